#!/usr/bin/env bash
# Installs the Debian 12 packages Kiln needs. Idempotent: when everything is
# present it only says so.
set -euo pipefail

packages=(
  cmake ninja-build ccache git python3
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  libclang-rt-22-dev
  libzstd-dev libomp-22-dev
  libhwy-dev libgtest-dev libbenchmark-dev
  libopenblas-dev
  openmpi-bin libopenmpi-dev
  libonnx-dev libprotobuf-dev libonnx-testdata
)

# The Python package's build and tests: nanobind, numpy and pytest for the
# python3 first on PATH (pip from PyPI; a system Python that refuses pip
# installs needs a virtual environment or pyenv first on PATH).
python_ok() {
  python3 - <<'PY' 2>/dev/null
import importlib.util, sys, sysconfig, os
mods = ("nanobind", "numpy", "pytest")
sys.exit(0 if all(importlib.util.find_spec(m) for m in mods) and os.path.exists(
    os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)
PY
}
if command -v python3 >/dev/null 2>&1 && ! python_ok; then
  echo "kiln: installing the Python packages nanobind, numpy and pytest"
  if ! python3 -m pip install -q nanobind numpy pytest; then
    echo "kiln: pip could not install nanobind, numpy and pytest for" \
      "$(command -v python3); the Python package will not build" >&2
  fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "kiln: all dependencies are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "kiln: missing packages (${missing[*]}) and not root; run as root" >&2
    exit 1
  fi
fi

echo "kiln: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
