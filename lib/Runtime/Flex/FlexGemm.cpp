//===- FlexGemm.cpp - Packing, blocking and threads of Flex's GEMM --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Loop nest, outermost first: chunks of rows and of columns that bound the
// packing scratch; kc-deep slices of k (pack the slice of A and of B, all
// threads); then (row block, column chunk) units of the macro-kernel, which
// threads take from a shared counter so that uneven units still balance.
//
//===----------------------------------------------------------------------===//

#include "FlexGemm.h"
#include "kiln/Runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <functional>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Runs fn(u) for u in [0, count) on up to `threads` threads.
void runUnits(int64_t threads, int64_t count,
              const std::function<void(int64_t)> &fn) {
  if (threads <= 1 || count <= 1) {
    for (int64_t u = 0; u < count; ++u)
      fn(u);
    return;
  }
  std::atomic<int64_t> next{0};
  parallelFor(std::min(threads, count), 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t)
      for (int64_t u = next.fetch_add(1); u < count; u = next.fetch_add(1))
        fn(u);
  });
}

/// Rows [i0, i0 + rows) and columns [p0, p0 + kc) of A as one mr-high
/// panel, zero-padded to mr rows.
template <typename T>
void packPanelA(MatrixRef<T> a, int64_t i0, int64_t rows, int64_t p0,
                int64_t kc, int64_t mr, T *dst) {
  const T *base = a.data + i0 * a.rowStride + p0 * a.colStride;
  if (a.colStride == 1 && rows == mr) {
    // Row-major A: read the mr rows side by side so that the panel is
    // written in order.
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t i = 0; i < mr; ++i)
        dst[p * mr + i] = base[i * a.rowStride + p];
  } else {
    for (int64_t p = 0; p < kc; ++p) {
      const T *src = base + p * a.colStride;
      for (int64_t i = 0; i < rows; ++i)
        dst[p * mr + i] = src[i * a.rowStride];
    }
  }
  if (rows < mr)
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t i = rows; i < mr; ++i)
        dst[p * mr + i] = T(0);
}

/// Rows [p0, p0 + kc) and columns [j0, j0 + cols) of B as one nr-wide
/// panel, zero-padded to nr columns.
template <typename T>
void packPanelB(MatrixRef<T> b, int64_t p0, int64_t kc, int64_t j0,
                int64_t cols, int64_t nr, T *dst) {
  const T *base = b.data + p0 * b.rowStride + j0 * b.colStride;
  for (int64_t p = 0; p < kc; ++p) {
    const T *src = base + p * b.rowStride;
    T *out = dst + p * nr;
    if (b.colStride == 1)
      std::copy(src, src + cols, out);
    else
      for (int64_t j = 0; j < cols; ++j)
        out[j] = src[j * b.colStride];
    for (int64_t j = cols; j < nr; ++j)
      out[j] = T(0);
  }
}

void packRowsB(const float *src, int64_t rowStride, int64_t rows,
               int64_t panels, int64_t kc, float *dst) {
  simd::packRowsBF32(src, rowStride, rows, panels, kc, dst);
}
void packRowsB(const double *src, int64_t rowStride, int64_t rows,
               int64_t panels, int64_t kc, double *dst) {
  simd::packRowsBF64(src, rowStride, rows, panels, kc, dst);
}

template <typename T>
void gemmImpl(int64_t m, int64_t n, int64_t k, MatrixRef<T> a, MatrixRef<T> b,
              T *c, int64_t ldc, bool accumulate, Allocator &allocator,
              bool parallel, simd::GemmShape shape,
              void (*block)(int64_t, int64_t, int64_t, const T *, const T *,
                            T *, int64_t, bool)) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  const int64_t mr = shape.mr, nr = shape.nr;
  // Bounds on the rows and columns packed at once, so that scratch stays a
  // few MiB whatever the operands' size.
  const int64_t rowChunk = 32 * shape.mc, colChunk = 4096;
  const int64_t kcMax = std::min(shape.kc, k);
  const int64_t mAll = std::min(m, rowChunk), nAll = std::min(n, colChunk);
  auto scratchA =
      allocator.allocate(ceilDiv(mAll, mr) * mr * kcMax * sizeof(T));
  auto scratchB =
      allocator.allocate(ceilDiv(nAll, nr) * nr * kcMax * sizeof(T));
  T *packedA = static_cast<T *>(scratchA->data);
  T *packedB = static_cast<T *>(scratchB->data);

  int64_t threads = parallel ? hostThreads() : 1;
  // Below about a million FMAs, waking threads costs more than it saves.
  if (static_cast<double>(m) * n * k < double(1 << 20))
    threads = 1;

  for (int64_t i0 = 0; i0 < m; i0 += rowChunk) {
    const int64_t mi = std::min(rowChunk, m - i0);
    const int64_t mPanels = ceilDiv(mi, mr);
    // Even row blocks of at most mc rows, whole panels each.
    const int64_t mBlocks = ceilDiv(mi, shape.mc);
    const int64_t mc = ceilDiv(ceilDiv(mi, mBlocks), mr) * mr;
    for (int64_t j0 = 0; j0 < n; j0 += colChunk) {
      const int64_t nj = std::min(colChunk, n - j0);
      const int64_t nPanels = ceilDiv(nj, nr);
      // Split columns too when row blocks alone would leave threads idle.
      int64_t nChunks = threads > 1 ? ceilDiv(8 * threads, mBlocks) : 1;
      nChunks = std::min(nChunks, nPanels);
      const int64_t nc = ceilDiv(nPanels, nChunks) * nr;
      nChunks = ceilDiv(nj, nc);
      for (int64_t p0 = 0; p0 < k; p0 += shape.kc) {
        const int64_t kc = std::min(shape.kc, k - p0);
        // A B that is contiguous along its rows is packed by groups of
        // rows (read in order) into its whole panels; the rest panel by
        // panel.
        const int64_t rowGroup = 16;
        const int64_t byRows = b.colStride == 1 ? nj / nr : 0;
        const int64_t rowUnits = byRows ? ceilDiv(kc, rowGroup) : 0;
        runUnits(threads, mPanels + rowUnits + nPanels - byRows,
                 [&](int64_t u) {
                   if (u < mPanels) {
                     int64_t i = u * mr;
                     packPanelA(a, i0 + i, std::min(mr, mi - i), p0, kc, mr,
                                packedA + i * kc);
                   } else if (u < mPanels + rowUnits) {
                     int64_t p = (u - mPanels) * rowGroup;
                     packRowsB(b.data + (p0 + p) * b.rowStride + j0,
                               b.rowStride, std::min(rowGroup, kc - p), byRows,
                               kc, packedB + p * nr);
                   } else {
                     int64_t j = (u - mPanels - rowUnits + byRows) * nr;
                     packPanelB(b, p0, kc, j0 + j, std::min(nr, nj - j), nr,
                                packedB + j * kc);
                   }
                 });
        const bool acc = accumulate || p0 > 0;
        runUnits(threads, mBlocks * nChunks, [&](int64_t u) {
          int64_t i = (u % mBlocks) * mc, j = (u / mBlocks) * nc;
          if (i >= mi)
            return;
          block(std::min(mc, mi - i), std::min(nc, nj - j), kc,
                packedA + i * kc, packedB + j * kc, c + (i0 + i) * ldc + j0 + j,
                ldc, acc);
        });
      }
    }
  }
}

} // namespace

void flex::gemm(int64_t m, int64_t n, int64_t k, MatrixRef<float> a,
                MatrixRef<float> b, float *c, int64_t ldc, bool accumulate,
                Allocator &allocator, bool parallel) {
  // Asked per call, not cached: tests switch the SIMD target.
  gemmImpl<float>(m, n, k, a, b, c, ldc, accumulate, allocator, parallel,
                  simd::gemmShapeF32(), simd::gemmBlockF32);
}

void flex::gemm(int64_t m, int64_t n, int64_t k, MatrixRef<double> a,
                MatrixRef<double> b, double *c, int64_t ldc, bool accumulate,
                Allocator &allocator, bool parallel) {
  gemmImpl<double>(m, n, k, a, b, c, ldc, accumulate, allocator, parallel,
                   simd::gemmShapeF64(), simd::gemmBlockF64);
}
