#!/usr/bin/env bash
# One check of the Cuda backend on a machine with an NVIDIA GPU, in under
# 8 minutes: install the dependencies, build only what the checks need, run
# the GPU unit tests and the GPU lit tests, then the Cuda rows of
# tensor-bench. Prints a summary and exits non-zero when any step failed.
#
# usage: utils/gpu-check.sh [BUILD_DIR]   (default: build)
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build}
JOBS=$(nproc)
LIT=${LIT:-/usr/lib/llvm-22/bin/lit}
STEPS=()
FAILED=0

# Runs "$@" as step $1, with a time limit (seconds) of $2, and records it.
step() {
  local name=$1 limit=$2
  shift 2
  echo "=== $name"
  local start=$SECONDS
  if timeout "$limit" "$@"; then
    STEPS+=("PASS  $name ($((SECONDS - start))s)")
  else
    STEPS+=("FAIL  $name (exit $?, $((SECONDS - start))s)")
    FAILED=1
  fi
}

summary() {
  echo
  echo "=== gpu-check summary (${SECONDS}s)"
  for s in "${STEPS[@]}"; do echo "  $s"; done
  if [ "$FAILED" = 0 ]; then echo "gpu-check: PASS"; else echo "gpu-check: FAIL"; fi
}
trap summary EXIT

step "nvidia-smi" 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
step "install deps" 120 utils/install-deps.sh
step "configure" 60 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
step "build" 300 ninja -C "$BUILD" -j "$JOBS" tensor-opt tensor-bench \
  KilnCudaNoGpuTests KilnCudaDiffTests KilnNcclTests KilnCudaDataParallelTests
if [ "$FAILED" != 0 ]; then exit 1; fi

# On a GPU machine the differential suite must run, not skip.
export KILN_REQUIRE_GPU=1
step "unit: KilnCudaNoGpuTests" 60 "$BUILD/unittests/KilnCudaNoGpuTests"
step "unit: KilnCudaDiffTests" 120 "$BUILD/unittests/KilnCudaDiffTests"
step "unit: KilnNcclTests" 60 "$BUILD/unittests/KilnNcclTests"
step "unit: KilnCudaDataParallelTests" 120 \
  "$BUILD/unittests/KilnCudaDataParallelTests"
step "lit: test/Conversion/GPU" 120 "$LIT" -sv "$BUILD/test/Conversion/GPU"
step "bench: tensor-bench --backends cuda" 120 \
  "$BUILD/bin/tensor-bench" --backends cuda --threads 1
[ "$FAILED" = 0 ]
