//===- Reference.cpp - Hand-written loops that Kiln must beat -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What a careful C++ programmer writes for each workload, built at
// -O3 -march=native without -ffast-math. Two habits make them vectorize
// without fast-math:
// - reductions keep 16 or 32 independent lanes in a plain array, which the
//   compiler turns into vector registers (it may not reassociate one scalar
//   accumulator);
// - exp is a Cephes-style polynomial in straight-line arithmetic, since
//   libm's expf/tanhf are scalar calls that would make the loop 10x slower
//   than memory.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef KILN_BENCH_BLAS
#include <cblas.h>
// OpenBLAS's own, not in every cblas.h.
extern "C" void openblas_set_num_threads(int threads);
#endif

using namespace bench;

namespace {

constexpr int kLanes = 16;

/// exp(x) to about 2 ulp on [-87, 88]; vectorizes (rint, cvt, shifts).
inline float vexp(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  float n = std::nearbyint(x * 1.44269504088896341f);
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

constexpr float kGeluC = 0.7978845608028654f, kGeluA = 0.044715f;

/// 0.5 x (1 + tanh(u)) == x * sigmoid(2u): one exp and one division.
inline float geluTanh(float x) {
  float u = kGeluC * (x + kGeluA * x * x * x);
  return x / (1.0f + vexp(-2.0f * u));
}

/// d/dx gelu_tanh(x).
inline float geluTanhGrad(float x) {
  float u = kGeluC * (x + kGeluA * x * x * x);
  float t = 1.0f - 2.0f / (vexp(2.0f * u) + 1.0f);
  return 0.5f * (1.0f + t) +
         0.5f * x * (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * x * x);
}

float laneSum(const float *x, int64_t n) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j)
      acc[j] += x[i + j];
  float s = 0;
  for (; i < n; ++i)
    s += x[i];
  for (int j = 0; j < kLanes; ++j)
    s += acc[j];
  return s;
}

float laneMax(const float *x, int64_t n) {
  float acc[kLanes];
  for (int j = 0; j < kLanes; ++j)
    acc[j] = -INFINITY;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j)
      acc[j] = acc[j] > x[i + j] ? acc[j] : x[i + j];
  float m = -INFINITY;
  for (; i < n; ++i)
    m = std::max(m, x[i]);
  for (int j = 0; j < kLanes; ++j)
    m = std::max(m, acc[j]);
  return m;
}

/// sum((x - mean)^2), the second pass of a two-pass variance.
float laneSqDev(const float *x, int64_t n, float mean) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      float d = x[i + j] - mean;
      acc[j] += d * d;
    }
  float s = 0;
  for (; i < n; ++i)
    s += (x[i] - mean) * (x[i] - mean);
  for (int j = 0; j < kLanes; ++j)
    s += acc[j];
  return s;
}

} // namespace

float bench::refGeluTanh(float x) { return geluTanh(x); }

void bench::refEwChain(const float *a, const float *b, const float *c,
                       float *out, int64_t n, int threads) {
  parallelFor(threads, n, [=](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      out[i] = geluTanh(a[i] * b[i] + c[i]) * 0.5f + a[i];
  });
}

float bench::refReduceSum(const float *x, int64_t n, int threads) {
  std::vector<double> partial(threads, 0.0);
  // Chunks a multiple of the lane count, so every thread's loop is whole.
  int64_t blocks = (n + 4095) / 4096;
  parallelFor(threads, blocks, [&](int64_t lo, int64_t hi) {
    int64_t b = lo * 4096, e = std::min(n, hi * 4096);
    float acc[2 * kLanes] = {};
    int64_t i = b;
    for (; i + 2 * kLanes <= e; i += 2 * kLanes)
      for (int j = 0; j < 2 * kLanes; ++j)
        acc[j] += x[i + j];
    double s = 0;
    for (; i < e; ++i)
      s += x[i];
    for (int j = 0; j < 2 * kLanes; ++j)
      s += acc[j];
    int64_t chunk = (blocks + threads - 1) / threads; // as parallelFor splits
    partial[lo / chunk] += s;
  });
  double total = 0;
  for (double p : partial)
    total += p;
  return static_cast<float>(total);
}

void bench::refSoftmax(const float *x, float *out, int64_t rows, int64_t cols,
                       int threads) {
  parallelFor(threads, rows, [=](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float *xr = x + r * cols;
      float *o = out + r * cols;
      float m = laneMax(xr, cols);
      // exp goes straight into the output row (it stays in L1), then one
      // multiply by the reciprocal instead of a division per element.
      for (int64_t i = 0; i < cols; ++i)
        o[i] = vexp(xr[i] - m);
      float inv = 1.0f / laneSum(o, cols);
      for (int64_t i = 0; i < cols; ++i)
        o[i] *= inv;
    }
  });
}

void bench::refLayerNorm(const float *x, const float *gamma, const float *beta,
                         float *out, int64_t rows, int64_t cols, float eps,
                         int threads) {
  parallelFor(threads, rows, [=](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float *xr = x + r * cols;
      float *o = out + r * cols;
      float mean = laneSum(xr, cols) / float(cols);
      float var = laneSqDev(xr, cols, mean) / float(cols);
      float rstd = 1.0f / std::sqrt(var + eps);
      for (int64_t i = 0; i < cols; ++i)
        o[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
  });
}

namespace {

constexpr int64_t kMr = 4, kNr = 16;

/// C[0:4, 0:16] += A[0:4, kb:ke] @ B[kb:ke, 0:16], with the C tile held in
/// 8 ymm registers across the k loop (the compiler's SLP vectorizer turns
/// each row's 16 lanes into two FMAs).
inline void microTile(const float *a, int64_t lda, const float *b,
                      int64_t ldb, float *c, int64_t ldc, int64_t kb,
                      int64_t ke) {
  float acc[kMr][kNr];
  for (int r = 0; r < kMr; ++r)
    for (int j = 0; j < kNr; ++j)
      acc[r][j] = c[r * ldc + j];
  for (int64_t kk = kb; kk < ke; ++kk) {
    const float *bk = b + kk * ldb;
    for (int r = 0; r < kMr; ++r) {
      float av = a[r * lda + kk];
      for (int j = 0; j < kNr; ++j)
        acc[r][j] += av * bk[j];
    }
  }
  for (int r = 0; r < kMr; ++r)
    for (int j = 0; j < kNr; ++j)
      c[r * ldc + j] = acc[r][j];
}

} // namespace

void bench::refMatmulBlocked(const float *a, const float *b, float *c,
                             int64_t m, int64_t k, int64_t n, int threads) {
  // B is first copied into 16-column panels ([n/16][k][16]): read in place,
  // a power-of-two row stride maps a tile's rows onto a few cache sets and
  // runs 10x slower. A kKb x kNb block of panels (256 KiB) then stays in L2
  // while 4-row strips of A stream past it. No A packing, no prefetching:
  // context for the matmul rows, not their reference.
  constexpr int64_t kKb = 256, kNb = 256;
  int64_t panels = n / kNr;
  std::vector<float> packed(panels * k * kNr);
  float *bp = packed.data();
  parallelFor(threads, panels, [=](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p)
      for (int64_t kk = 0; kk < k; ++kk)
        std::memcpy(bp + (p * k + kk) * kNr, b + kk * n + p * kNr,
                    kNr * sizeof(float));
  });
  parallelFor(threads, (m + kMr - 1) / kMr, [=](int64_t lo, int64_t hi) {
    int64_t i0 = lo * kMr, i1 = std::min(m, hi * kMr);
    std::fill(c + i0 * n, c + i1 * n, 0.0f);
    for (int64_t jb = 0; jb < n; jb += kNb) {
      int64_t je = std::min(n, jb + kNb);
      for (int64_t kb = 0; kb < k; kb += kKb) {
        int64_t ke = std::min(k, kb + kKb);
        for (int64_t i = i0; i < i1; i += kMr) {
          int64_t rows = std::min(kMr, i1 - i), j = jb;
          if (rows == kMr)
            for (; j + kNr <= je; j += kNr)
              microTile(a + i * k, k, bp + (j / kNr) * k * kNr, kNr,
                        c + i * n + j, n, kb, ke);
          // Edges: the rows and columns that do not fill a tile.
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t kk = kb; kk < ke; ++kk) {
              float av = a[(i + r) * k + kk];
              for (int64_t jj = rows == kMr ? j : jb; jj < je; ++jj)
                c[(i + r) * n + jj] += av * b[kk * n + jj];
            }
        }
      }
    }
  });
}

#ifdef KILN_BENCH_BLAS
bool bench::haveBlas() { return true; }

void bench::refMatmulBlas(const float *a, bool aT, const float *b, bool bT,
                          float *c, int64_t m, int64_t k, int64_t n,
                          int threads) {
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasRowMajor, aT ? CblasTrans : CblasNoTrans,
              bT ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), 1.0f, a,
              int(aT ? m : k), b, int(bT ? k : n), 0.0f, c, int(n));
}
#else
bool bench::haveBlas() { return false; }

void bench::refMatmulBlas(const float *, bool, const float *, bool, float *,
                          int64_t, int64_t, int64_t, int) {
  std::fprintf(stderr, "tensor-bench: built without a BLAS\n");
  std::abort();
}
#endif

void bench::refTranspose(const float *in, float *out, int64_t rows,
                         int64_t cols, int threads) {
  constexpr int64_t kTile = 32;
  parallelFor(threads, (rows + kTile - 1) / kTile, [=](int64_t lo, int64_t hi) {
    for (int64_t rb = lo * kTile; rb < std::min(rows, hi * kTile); rb += kTile)
      for (int64_t cb = 0; cb < cols; cb += kTile)
        for (int64_t r = rb; r < std::min(rows, rb + kTile); ++r)
          for (int64_t c = cb; c < std::min(cols, cb + kTile); ++c)
            out[c * rows + r] = in[r * cols + c];
  });
}

void bench::refOverhead(const float *a, const float *b, float *out,
                        int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float x = a[i] * b[i];
    x = x + a[i];
    x = x - b[i];
    x = x * 0.5f;
    x = std::max(x, 0.0f);
    x = x + 1.0f;
    x = std::sqrt(x);
    x = x * a[i];
    x = x + b[i];
    out[i] = -x;
  }
}

double bench::refMlpGrads(const float *x, const float *target, const float *w1,
                          const float *b1, const float *w2, const float *b2,
                          float *dw1, float *db1, float *dw2, float *db2,
                          int64_t batch, int64_t in, int64_t hidden,
                          int threads, bool blas) {
  int64_t out = in;
  std::vector<float> z(batch * hidden), h(batch * hidden), y(batch * out),
      dy(batch * out), dh(batch * hidden);
  // The blocked loop's transposed operands (sgemm reads them in place).
  std::vector<float> t(
      blas ? 0 : std::max({hidden * batch, hidden * out, in * batch}));
  // C = op(A) op(B): sgemm reads transposed operands in place; the blocked
  // loop is given a transposed copy.
  auto matmul = [&](const float *a, bool aT, const float *b, bool bT, float *c,
                    int64_t m, int64_t k, int64_t n) {
    if (blas)
      return refMatmulBlas(a, aT, b, bT, c, m, k, n, threads);
    if (aT) {
      refTranspose(a, t.data(), k, m, threads);
      a = t.data();
    }
    if (bT) {
      refTranspose(b, t.data(), n, k, threads);
      b = t.data();
    }
    refMatmulBlocked(a, b, c, m, k, n, threads);
  };
  // Forward.
  matmul(x, false, w1, false, z.data(), batch, in, hidden);
  parallelFor(threads, batch, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r)
      for (int64_t j = 0; j < hidden; ++j) {
        float v = z[r * hidden + j] + b1[j];
        z[r * hidden + j] = v;
        h[r * hidden + j] = geluTanh(v);
      }
  });
  matmul(h.data(), false, w2, false, y.data(), batch, hidden, out);
  double loss = 0;
  float scale = 2.0f / float(batch * out);
  for (int64_t r = 0; r < batch; ++r)
    for (int64_t j = 0; j < out; ++j) {
      float d = y[r * out + j] + b2[j] - target[r * out + j];
      loss += double(d) * d;
      dy[r * out + j] = d * scale;
    }
  loss /= double(batch * out);
  // Backward: dW2 = h^T dy, dh = dy W2^T, dz = dh * gelu'(z), dW1 = x^T dz;
  // the bias gradients are column sums of dy and dz.
  matmul(h.data(), true, dy.data(), false, dw2, hidden, batch, out);
  matmul(dy.data(), false, w2, true, dh.data(), batch, out, hidden);
  parallelFor(threads, batch * hidden, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      dh[i] *= geluTanhGrad(z[i]);
  });
  matmul(x, true, dh.data(), false, dw1, in, batch, hidden);
  std::fill(db2, db2 + out, 0.0f);
  std::fill(db1, db1 + hidden, 0.0f);
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t j = 0; j < out; ++j)
      db2[j] += dy[r * out + j];
    for (int64_t j = 0; j < hidden; ++j)
      db1[j] += dh[r * hidden + j];
  }
  return loss;
}

void bench::refSgd(float *p, const float *g, int64_t n, float lr,
                   int threads) {
  parallelFor(threads, n, [=](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      p[i] -= lr * g[i];
  });
}

double bench::refDeepMlpLoss(const float *x0, const float *const *weights,
                             const float *const *biases, int64_t blocks,
                             int64_t batch, int64_t dim, float eps,
                             int threads) {
  std::vector<float> x(x0, x0 + batch * dim), ln(batch * dim),
      z(batch * dim), ones(dim, 1.0f), zeros(dim, 0.0f);
  for (int64_t blk = 0; blk < blocks; ++blk) {
    refLayerNorm(x.data(), ones.data(), zeros.data(), ln.data(), batch, dim,
                 eps, threads);
    refMatmulBlocked(ln.data(), weights[blk], z.data(), batch, dim, dim,
                     threads);
    const float *bias = biases[blk];
    parallelFor(threads, batch, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t j = 0; j < dim; ++j)
          x[r * dim + j] += geluTanh(z[r * dim + j] + bias[j]);
    });
  }
  double loss = 0;
  for (float v : x)
    loss += double(v) * v;
  return loss / double(batch * dim);
}
