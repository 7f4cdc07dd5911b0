#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and trains the
# main demo, examples/char-lm, on Kiln's own sources with the Cpu JIT.
# Extra arguments go to char-lm (--steps N, --device flex|cpu|cuda, ...).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/utils/build.sh" char-lm
exec "$root/build/bin/char-lm" "$@"
