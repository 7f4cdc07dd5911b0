#!/usr/bin/env python3
"""Fails when an op of the kiln dialect has no round-trip or verifier test.

Reads every op name from the generated KilnOps.h.inc (the strings that
getOperationName() returns) and looks for each one in the given test files.

By default the files are round-trip tests: each op must appear both in the
IR that tensor-opt parses and in a CHECK line on its printed form. With
--diagnostics they are -verify-diagnostics tests: each op must appear on a
line that an expected-error points at. Run by
test/Dialect/Kiln/op-coverage.mlir.

usage: check-op-coverage.py [--diagnostics] KilnOps.h.inc TEST.mlir...
"""

import re
import sys

NAME = re.compile(
    r'getOperationName\(\)\s*\{\s*return\s*::llvm::StringLiteral\("(kiln\.\w+)"\)'
)


EXPECTED = re.compile(r"expected-error(?:@([-+]\d+))?\s*\{\{")


def ops_in(text):
    return set(re.findall(r"\bkiln\.\w+", text))


def round_trip_coverage(paths):
    """Ops both parsed and checked, and the reason for each gap."""
    parsed, checked = set(), set()
    for path in paths:
        with open(path) as f:
            for line in f:
                text = line.strip()
                if re.match(r"//\s*CHECK(-NEXT|-SAME)?:", text):
                    checked |= ops_in(text)
                elif not text.startswith("//"):
                    parsed |= ops_in(text)
    return parsed & checked, lambda op: (
        "never parsed" if op not in parsed else "never checked"
    ) + " in a round-trip test"


def diagnostics_coverage(paths):
    """Ops on a line that an expected-error points at."""
    covered = set()
    for path in paths:
        with open(path) as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines):
            m = EXPECTED.search(line)
            if not m:
                continue
            target = i + int(m.group(1) or 0)
            if 0 <= target < len(lines):
                covered |= ops_in(lines[target].split("//")[0])
    return covered, lambda op: "never the subject of an expected-error"


def main(argv):
    args = argv[1:]
    diagnostics = bool(args) and args[0] == "--diagnostics"
    if diagnostics:
        args = args[1:]
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(args[0]) as f:
        ops = sorted(set(NAME.findall(f.read())))
    if not ops:
        print(f"error: no op names found in {args[0]}", file=sys.stderr)
        return 2

    coverage = diagnostics_coverage if diagnostics else round_trip_coverage
    covered, why = coverage(args[1:])
    missing = [op for op in ops if op not in covered]
    for op in missing:
        print(f"error: {op} is {why(op)}", file=sys.stderr)
    print(f"{len(ops) - len(missing)} of {len(ops)} kiln ops covered")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
