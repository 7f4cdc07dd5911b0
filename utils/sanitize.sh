#!/usr/bin/env bash
# The sanitized build in build-asan/ (AddressSanitizer + UBSan, with the
# libFuzzer targets): builds it, runs the unit tests listed below under the
# sanitizers, then each fuzzer from seed corpora made of the lit tests'
# inputs. Any sanitizer report, crash or failing test fails the script.
# Each fuzzer runs a fixed number of inputs from a fixed seed (about a
# minute each on a quiet host), so that a run's outcome does not hang on
# the host's speed; KILN_FUZZ_SECONDS=N fuzzes N seconds each from a random
# seed instead, to look for new bugs. Extra arguments: ninja targets to
# build and nothing else.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-asan"
"$root/utils/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DKILN_SANITIZE=ON -DKILN_FUZZERS=ON \
    -DCMAKE_CXX_FLAGS="-gline-tables-only"
fi
tests=(KilnSupportTests KilnAPITests KilnAPINumericTests KilnEngineTests
       KilnFlexIndexingTests KilnCpuCacheTests KilnTrainingTests
       KilnGradCheckTests KilnCpuDiffTests KilnDistributedTests
       KilnImportTests)
fuzzers=(kiln-npy-fuzzer kiln-cache-fuzzer kiln-mlir-fuzzer kiln-api-fuzzer
         kiln-safetensors-fuzzer kiln-onnx-fuzzer)
if [ $# -gt 0 ]; then
  ninja -C "$build" "$@"
  exit 0
fi
ninja -C "$build" "${tests[@]}" "${fuzzers[@]}" tensor-opt

# Running out of memory is tested: allocations fail as they would without
# ASan instead of aborting. LLVM's headers poison their allocators' free
# space when compiled with ASan, as Kiln's code is, while libLLVM and
# libMLIR (uninstrumented) use the same memory unpoisoned: that manual
# poisoning only gives false reports, so it is ignored.
export ASAN_OPTIONS="detect_leaks=0:detect_odr_violation=0:abort_on_error=1:allocator_may_return_null=1:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export KILN_CACHE_DIR="$build/sanitize-cache"
for t in "${tests[@]}"; do
  echo "sanitize: $t"
  # The 150k-op Flex chain, the 2^26-element sums and the Cpu-vs-Flex
  # random graphs (and the 4-rank Cpu training job) are the plain suite's;
  # under ASan they only take longer
  # (the API fuzzer runs random programs here). ASan's operator new reports
  # a failed allocation instead of throwing std::bad_alloc, so toVector's
  # out-of-memory error is tested by the plain suite alone.
  "$build/unittests/$t" --gtest_brief=1 \
    --gtest_filter='-DeepGraphTest.*:SumPrecisionTest.*:ErrorTest.HostMemoryAndThreadCounts:Shards/RandomGraphTest.*:Jobs/DataParallelTest.*/cpu_4ranks'
done

# Seeds: every split of the dialect and pass tests, a few .npy files, a
# valid kernel-cache entry (written by the cache fuzzer itself), and for the
# API fuzzer, whose every byte string is a program, fixed random bytes.
seeds="$build/fuzz-seeds"
rm -rf "$seeds"
mkdir -p "$seeds/mlir" "$seeds/npy" "$seeds/cache" "$seeds/api" \
  "$seeds/safetensors" "$seeds/onnx"
python3 - "$root" "$seeds/mlir" <<'PY'
import glob, os, sys
root, out = sys.argv[1], sys.argv[2]
n = 0
for path in sorted(glob.glob(root + "/test/Dialect/Kiln/*.mlir") +
                   glob.glob(root + "/test/Transforms/*.mlir")):
    for part in open(path, encoding="utf-8").read().split("// -----"):
        n += 1
        with open(os.path.join(out, "%04d.mlir" % n), "w") as f:
            f.write(part)
PY
npy="$root/test/tensor-run/Inputs/npy.py"
python3 "$npy" write "$seeds/npy/f32.npy" f32 2x3
python3 "$npy" write "$seeds/npy/i64.npy" i64 4
python3 "$npy" write "$seeds/npy/bool.npy" bool scalar
python3 "$npy" write "$seeds/npy/v2.npy" f16 3 --version 2
KILN_FUZZ_SEED_OUT="$seeds/cache/entry" "$build/bin/kiln-cache-fuzzer"
cp "$root/unittests/API/Inputs/independent.safetensors" "$seeds/safetensors/"
# The importer's test models, and every 8th model of the ONNX backend
# suite's node tests (small graphs of one op each).
cp "$root"/test/Import/Inputs/*.onnx "$root"/unittests/Import/Inputs/*.onnx \
  "$seeds/onnx/"
n=0
for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
  if [ $((n++ % 8)) -eq 0 ]; then
    cp "$m" "$seeds/onnx/node-$n.onnx"
  fi
done
python3 - "$seeds/api" <<'PY'
import os, random, sys
rng = random.Random(1)
for n in range(32):
    with open(os.path.join(sys.argv[1], "%02d.bin" % n), "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(rng.randrange(16, 512))))
PY

# Runs fuzzer $1 on $2 inputs from seed 1 (or for KILN_FUZZ_SECONDS s from
# a random seed); extra arguments go to libFuzzer. Exit status 77 is a skip
# (the API fuzzer under an ISA this host cannot run: it prints why).
run_fuzzer() {
  local f="$1" runs="$2" kind="${1#kiln-}" status=0
  shift 2
  kind="${kind%-fuzzer}"
  local corpus="$build/fuzz-corpus/$kind" budget
  if [ -n "${KILN_FUZZ_SECONDS:-}" ]; then
    budget=(-max_total_time="$KILN_FUZZ_SECONDS")
  else
    budget=(-seed=1 -runs="$runs")
  fi
  mkdir -p "$corpus" "$build/fuzz-artifacts"
  echo "sanitize: $f ${budget[*]} $*"
  "$build/bin/$f" "$@" "${budget[@]}" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$kind-" \
    "$corpus" "$seeds/$kind" > "$build/fuzz-$kind.log" 2>&1 || status=$?
  tail -n 40 "$build/fuzz-$kind.log"
  if [ "$status" -eq 77 ]; then
    echo "sanitize: $f skipped"
    return 0
  fi
  return "$status"
}

# A compile that runs past KILN_COMPILE_TIMEOUT seconds aborts the fuzzer
# with the graph it was compiling (before libFuzzer's own -timeout, which
# only has the input).
export KILN_COMPILE_TIMEOUT=15
# Inputs per fuzzer: about a minute's worth each on a quiet 2-core host.
declare -A runs=([kiln-npy-fuzzer]=250000 [kiln-cache-fuzzer]=2000000
                 [kiln-mlir-fuzzer]=60000 [kiln-api-fuzzer]=400
                 [kiln-safetensors-fuzzer]=600000 [kiln-onnx-fuzzer]=100000)
for f in "${fuzzers[@]}"; do
  if [ "$f" = kiln-api-fuzzer ]; then
    # Programs run on Cpu and Flex: once per ISA of the Cpu backend, the
    # corpus shared. An API program needs room: a few bytes per instruction.
    for isa in avx2 avx512; do
      echo "sanitize: under KILN_CPU_ISA=$isa"
      KILN_CPU_ISA=$isa run_fuzzer "$f" "${runs[$f]}" -max_len=1024
    done
    continue
  fi
  run_fuzzer "$f" "${runs[$f]}"
done
echo "sanitize: all passed"
