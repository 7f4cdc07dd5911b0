#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, runs the demo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/utils/build.sh" tensor-opt
echo "== examples/mlp.mlir, composites decomposed by tensor-opt --kiln-decompose"
"$root/build/bin/tensor-opt" "$root/examples/mlp.mlir" --kiln-decompose --canonicalize
