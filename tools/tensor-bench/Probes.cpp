//===- Probes.cpp - The machine's own limits, measured in-process ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every figure tensor-bench prints is a ratio against something measured in
// the same process, because the machine is shared and its absolute speed
// moves from minute to minute. Two probes stand for the machine:
//
// - a STREAM triad for memory bandwidth. Arrays are far larger than the
//   last-level cache, and bytes are counted the STREAM way (3 arrays per
//   pass), which is also how the workloads count theirs (reads + writes,
//   without the write-allocate read);
// - a burst of independent FMAs for peak FLOP/s. One accumulator per
//   (latency x ports) slot is needed to fill the FMA pipes, so the kernel
//   keeps 12 ymm (AVX2) or 16 zmm (AVX-512) accumulators in flight. Each
//   variant is compiled with a target attribute and picked at run time, so
//   the same binary measures the right peak on an AVX-512 host; under
//   KILN_CPU_ISA=avx2 the AVX2 burst, the peak of the code Kiln then
//   generates (half the AVX-512 peak on a host with two 512-bit FMA
//   units).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include "kiln/Support/Env.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BENCH_X86 1
#endif

using namespace bench;

namespace {

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};
using Array = std::unique_ptr<float, FreeDeleter>;

Array allocate(int64_t n) {
  size_t bytes = (static_cast<size_t>(n) * sizeof(float) + 4095) / 4096 * 4096;
  return Array(static_cast<float *>(std::aligned_alloc(4096, bytes)));
}

constexpr int64_t kFmaIters = 20'000'000;

#ifdef BENCH_X86
__attribute__((target("avx512f"))) double fmaBurstAvx512() {
  constexpr int kAcc = 16;
  __m512 acc[kAcc];
  for (int j = 0; j < kAcc; ++j)
    acc[j] = _mm512_set1_ps(0.01f * j);
  // acc * 0.999999 + 1e-7 stays near 0.1: no overflow, no denormals.
  __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < kFmaIters; ++i)
    for (int j = 0; j < kAcc; ++j)
      acc[j] = _mm512_fmadd_ps(acc[j], x, y);
  __m512 s = acc[0];
  for (int j = 1; j < kAcc; ++j)
    s = _mm512_add_ps(s, acc[j]);
  volatile float sink = _mm512_reduce_add_ps(s);
  (void)sink;
  return 2.0 * 16 * kAcc * double(kFmaIters);
}

__attribute__((target("avx2,fma"))) double fmaBurstAvx2() {
  // 16 ymm registers: 12 accumulators and the two constants.
  constexpr int kAcc = 12;
  __m256 acc[kAcc];
  for (int j = 0; j < kAcc; ++j)
    acc[j] = _mm256_set1_ps(0.01f * j);
  __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < kFmaIters; ++i)
    for (int j = 0; j < kAcc; ++j)
      acc[j] = _mm256_fmadd_ps(acc[j], x, y);
  __m256 s = acc[0];
  for (int j = 1; j < kAcc; ++j)
    s = _mm256_add_ps(s, acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 8 * kAcc * double(kFmaIters);
}
#endif

double fmaBurstScalar() {
  constexpr int kAcc = 8;
  float acc[kAcc];
  for (int j = 0; j < kAcc; ++j)
    acc[j] = 0.01f * j;
  for (int64_t i = 0; i < kFmaIters / 4; ++i)
    for (int j = 0; j < kAcc; ++j)
      acc[j] = acc[j] * 0.999999f + 1e-7f;
  volatile float sink = acc[0] + acc[kAcc - 1];
  (void)sink;
  return 2.0 * kAcc * double(kFmaIters / 4);
}

enum class Isa { Avx512, Avx2, Scalar };

Isa pickIsa() {
#ifdef BENCH_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") &&
      kiln::env::cpuIsa() != kiln::CpuIsa::Avx2)
    return Isa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return Isa::Avx2;
#endif
  return Isa::Scalar;
}

double fmaBurst() {
  switch (pickIsa()) {
#ifdef BENCH_X86
  case Isa::Avx512:
    return fmaBurstAvx512();
  case Isa::Avx2:
    return fmaBurstAvx2();
#endif
  default:
    return fmaBurstScalar();
  }
}

} // namespace

const char *bench::fmaIsa() {
  switch (pickIsa()) {
  case Isa::Avx512:
    return "avx512f";
  case Isa::Avx2:
    return "avx2+fma";
  default:
    return "scalar";
  }
}

double bench::triadBytesPerSec(int threads, int64_t n, int reps,
                               Stats &passes) {
  TriadPass triad(n, threads);
  triad.bytesPerSec(threads); // the first pass warms the TLB and page tables
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    double bytes = triad.bytesPerSec(threads);
    passes.ms.push_back(3.0 * 4.0 * double(n) / bytes * 1e3);
    best = std::max(best, bytes);
  }
  return best;
}

bench::TriadPass::TriadPass(int64_t n, int threads) : n(n) {
  a = allocate(n).release();
  b = allocate(n).release();
  c = allocate(n).release();
  float *pa = a, *pb = b, *pc = c;
  // First touch by the thread that will stream each chunk.
  parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      pa[i] = 0.f;
      pb[i] = 1.f;
      pc[i] = 2.f;
    }
  });
}

bench::TriadPass::~TriadPass() {
  std::free(a);
  std::free(b);
  std::free(c);
}

double bench::TriadPass::bytesPerSec(int threads) {
  float *pa = a, *pb = b, *pc = c;
  const float s = 3.f;
  double t0 = nowMs();
  parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      pa[i] = pb[i] + s * pc[i];
  });
  double ms = nowMs() - t0;
  volatile float sink = pa[n / 2];
  (void)sink;
  return 3.0 * 4.0 * double(n) / (ms * 1e-3);
}

double bench::fmaFlopsPerSec(int threads, int reps, Stats &bursts) {
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    double flops = 0;
    double t0 = nowMs();
    std::vector<double> each(threads);
    parallelFor(threads, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t)
        each[t] = fmaBurst();
    });
    double ms = nowMs() - t0;
    bursts.ms.push_back(ms);
    for (double f : each)
      flops += f;
    best = std::max(best, flops / (ms * 1e-3));
  }
  return best;
}
