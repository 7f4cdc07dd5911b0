#!/usr/bin/env python3
"""Runs a command and fails unless it exits with exactly the given status.

`not` accepts any non-zero status; a malformed input must give a diagnostic
and status 1, never a crash (a signal) or another status. The command's
stdout and stderr pass through, so a test can FileCheck the diagnostic.

usage: expect-exit.py STATUS COMMAND [ARG...]
"""

import signal
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    want = int(sys.argv[1])
    try:
        got = subprocess.run(sys.argv[2:], timeout=60).returncode
    except subprocess.TimeoutExpired:
        print("expect-exit: timed out after 60 s", file=sys.stderr)
        return 2
    if got == want:
        return 0
    if got < 0:
        what = f"was killed by {signal.Signals(-got).name}"
    else:
        what = f"exited with status {got}"
    print(f"expect-exit: command {what}, expected status {want}",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
