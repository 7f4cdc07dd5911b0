#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/utils/build.sh"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)"
