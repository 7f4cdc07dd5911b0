//===- FlexGemm.h - Packed matrix products for Flex -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one matrix product behind Flex's matmul and convolutions. Operands are
// strided views, so a transposed or sliced operand costs nothing extra: both
// are packed anyway. The product is blocked the usual way (Goto/BLIS): a
// KC-deep slice of B is packed into NR-wide panels that stay in L3, an
// MC x KC block of A into MR-high panels that stay in L2, and a SIMD
// micro-kernel keeps an MR x NR tile of C in registers while it streams one
// panel of each.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_FLEX_FLEXGEMM_H
#define KILN_LIB_RUNTIME_FLEX_FLEXGEMM_H

#include "kiln/Runtime/Buffer.h"

#include <cstdint>

namespace kiln::detail::flex {

/// Element (i, j) of a matrix operand is data[i * rowStride + j * colStride].
template <typename T> struct MatrixRef {
  const T *data;
  int64_t rowStride;
  int64_t colStride;

  /// The transposed operand, without moving data.
  MatrixRef transposed() const { return {data, colStride, rowStride}; }
};

/// C[m, n] = A[m, k] * B[k, n], or C += A * B when `accumulate`. C is row
/// major with leading dimension `ldc`. Scratch comes from `allocator`. Large
/// products use every host thread unless `parallel` is false (for callers
/// that already run one product per thread).
void gemm(int64_t m, int64_t n, int64_t k, MatrixRef<float> a,
          MatrixRef<float> b, float *c, int64_t ldc, bool accumulate,
          Allocator &allocator, bool parallel = true);
void gemm(int64_t m, int64_t n, int64_t k, MatrixRef<double> a,
          MatrixRef<double> b, double *c, int64_t ldc, bool accumulate,
          Allocator &allocator, bool parallel = true);

namespace simd {

/// The register tile and cache blocks of the widest SIMD target here.
struct GemmShape {
  int64_t mr, nr; ///< micro-tile of C held in registers
  int64_t kc;     ///< depth of a packed slice
  int64_t mc;     ///< rows of A packed per block (a multiple of mr)
};
GemmShape gemmShapeF32();
GemmShape gemmShapeF64();

/// C[mc, nc] (+)= packedA * packedB over one kc-deep slice. packedA holds
/// ceil(mc / mr) panels of mr x kc (element (i, p) at p * mr + i), packedB
/// ceil(nc / nr) panels of kc x nr (element (p, j) at p * nr + j), both
/// zero-padded to whole panels.
void gemmBlockF32(int64_t mc, int64_t nc, int64_t kc, const float *packedA,
                  const float *packedB, float *c, int64_t ldc, bool accumulate);
void gemmBlockF64(int64_t mc, int64_t nc, int64_t kc, const double *packedA,
                  const double *packedB, double *c, int64_t ldc,
                  bool accumulate);

/// Rows [0, rows) of a B whose rows are `rowStride` apart and whose columns
/// are adjacent, into the first `panels` whole panels of packedB (see
/// above); `dst` is row 0 of panel 0.
void packRowsBF32(const float *src, int64_t rowStride, int64_t rows,
                  int64_t panels, int64_t kc, float *dst);
void packRowsBF64(const double *src, int64_t rowStride, int64_t rows,
                  int64_t panels, int64_t kc, double *dst);

} // namespace simd
} // namespace kiln::detail::flex

#endif // KILN_LIB_RUNTIME_FLEX_FLEXGEMM_H
