//===- Bench.h - Shared pieces of tensor-bench ------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// tensor-bench is split by compile flags: Probes.cpp and Reference.cpp are
// built at -O3 -march=native (they stand for "the machine" and "a careful
// programmer"), everything that talks to Kiln is built like the rest of the
// project. This header is the seam between them, so it uses plain pointers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TENSOR_BENCH_BENCH_H
#define KILN_TOOLS_TENSOR_BENCH_BENCH_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

//===--- Harness (Harness.cpp) ---------------------------------------------===//

/// Milliseconds of each timed run.
struct Stats {
  std::vector<double> ms;
  double median() const;
  double min() const;
  double max() const;
};

/// Runs `fn` `warmup` times untimed, then `runs` times timed.
Stats timeRuns(int warmup, int runs, const std::function<void()> &fn);

double nowMs();

/// Splits [0, n) into `threads` contiguous chunks, one per std::thread (the
/// caller runs the first). Reference loops use it so that "2 threads" means
/// the same thing for them as for Kiln.
void parallelFor(int threads, int64_t n,
                 const std::function<void(int64_t, int64_t)> &body);

/// Deterministic uniform floats in [lo, hi): the same on every run and every
/// machine, and much faster than std::mt19937 for 64M values.
void fillUniform(float *out, int64_t n, uint64_t seed, float lo, float hi);

//===--- Machine probes (Probes.cpp, -O3 -march=native) --------------------===//

/// Best STREAM triad bandwidth, a[i] = b[i] + s * c[i], in bytes/s, counted
/// the STREAM way (3 arrays of `n` floats per pass, no write-allocate).
/// `passes` gets the time of each timed pass.
double triadBytesPerSec(int threads, int64_t n, int reps, Stats &passes);
/// One STREAM triad pass at a time over arrays allocated once: the
/// bandwidth of this moment, for rows that pair every timed run with a
/// pass of their own (the machine's speed moves between runs).
class TriadPass {
public:
  /// Arrays of `n` floats, first touched by `threads` threads.
  explicit TriadPass(int64_t n, int threads = 1);
  ~TriadPass();
  TriadPass(const TriadPass &) = delete;
  TriadPass &operator=(const TriadPass &) = delete;
  /// Bytes per second of one pass on `threads` threads.
  double bytesPerSec(int threads);

private:
  float *a, *b, *c;
  int64_t n;
};
/// Best FMA throughput in FLOP/s (2 per lane per FMA) over `reps` bursts.
double fmaFlopsPerSec(int threads, int reps, Stats &bursts);
/// The vector ISA the FMA probe picked ("avx512f", "avx2+fma", "scalar").
const char *fmaIsa();

//===--- Hand-written reference loops (Reference.cpp, -O3 -march=native) ---===//

float refGeluTanh(float x);
/// out = gelu_tanh(a*b + c) * 0.5 + a.
void refEwChain(const float *a, const float *b, const float *c, float *out,
                int64_t n, int threads);
/// Float sum with wide independent accumulators (what a vectorizing
/// programmer writes without -ffast-math).
float refReduceSum(const float *x, int64_t n, int threads);
void refSoftmax(const float *x, float *out, int64_t rows, int64_t cols,
                int threads);
void refLayerNorm(const float *x, const float *gamma, const float *beta,
                  float *out, int64_t rows, int64_t cols, float eps,
                  int threads);
/// C[m,n] = A[m,k] @ B[k,n], cache-blocked but not register-tiled: context
/// for the matmul rows, not their reference (that is the FMA peak).
void refMatmulBlocked(const float *a, const float *b, float *c, int64_t m,
                      int64_t k, int64_t n, int threads);
/// Whether tensor-bench was built with a BLAS (OpenBLAS) to compare with.
bool haveBlas();
/// C[m,n] = op(A) @ op(B) by the BLAS's sgemm, op transposing A (stored
/// [k,m]) when aT and B (stored [n,k]) when bT; `threads` BLAS threads. A
/// reference a user would otherwise call, not built without one (haveBlas).
void refMatmulBlas(const float *a, bool aT, const float *b, bool bT, float *c,
                   int64_t m, int64_t k, int64_t n, int threads);
/// out[c,r] = in[r,c].
void refTranspose(const float *in, float *out, int64_t rows, int64_t cols,
                  int threads);
/// The 10-op graph of the overhead row, on one small array.
void refOverhead(const float *a, const float *b, float *out, int64_t n);
/// The loss and gradients of mlp_train_step by hand, its matmuls blocked
/// loops (transposed operands copied first) or, with `blas`, sgemm calls.
/// x: [batch, in], w1: [in, hidden], w2: [hidden, in], target: [batch, in];
/// loss = mean((gelu_tanh(x w1 + b1) w2 + b2 - target)^2).
double refMlpGrads(const float *x, const float *target, const float *w1,
                   const float *b1, const float *w2, const float *b2,
                   float *dw1, float *db1, float *dw2, float *db2,
                   int64_t batch, int64_t in, int64_t hidden, int threads,
                   bool blas = false);
/// p -= lr * g.
void refSgd(float *p, const float *g, int64_t n, float lr, int threads);
/// The deep_mlp_memory loss, mean(y^2), forward only. LayerNorm weights are
/// their initial ones and zeros.
double refDeepMlpLoss(const float *x0, const float *const *weights,
                      const float *const *biases, int64_t blocks,
                      int64_t batch, int64_t dim, float eps, int threads);

} // namespace bench

#endif // KILN_TOOLS_TENSOR_BENCH_BENCH_H
