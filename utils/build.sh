#!/usr/bin/env bash
# Configures and builds Kiln in build/ (Release, Ninja). Extra arguments are
# ninja targets; none builds everything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/utils/install-deps.sh"
if [ ! -f "$root/build/build.ninja" ]; then
  cmake -S "$root" -B "$root/build" -G Ninja -DKILN_PYTHON=ON
fi
ninja -C "$root/build" "$@"
