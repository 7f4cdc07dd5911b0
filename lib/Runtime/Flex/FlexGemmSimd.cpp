//===- FlexGemmSimd.cpp - The SIMD micro-kernel of Flex's GEMM ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// An MR x (2 vectors) tile of C lives in registers while the kernel walks
// one packed panel of A and one of B: per step of k it loads two vectors of
// B, broadcasts MR values of A and issues 2 * MR FMAs. MR is 6 where there
// are 16 vector registers (12 accumulators + 2 B vectors + 1 broadcast) and
// 8 where AVX-512 has 32.
//
//===----------------------------------------------------------------------===//

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/Runtime/Flex/FlexGemmSimd.cpp"
#include "hwy/foreach_target.h" // IWYU pragma: keep

#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include "lib/Runtime/Flex/FlexGemm.h"

#include <algorithm>

HWY_BEFORE_NAMESPACE();
namespace kiln::detail::flex::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr size_t kMR = 8;
#else
constexpr size_t kMR = 6;
#endif

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void MicroTile(D d, int64_t kc, const T *HWY_RESTRICT a,
                          const T *HWY_RESTRICT b, T *HWY_RESTRICT c,
                          int64_t ldc, int64_t mr, int64_t nr,
                          bool accumulate) {
  using V = hn::Vec<D>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  V c0[kMR], c1[kMR];
  for (size_t i = 0; i < kMR; ++i) {
    c0[i] = hn::Zero(d);
    c1[i] = hn::Zero(d);
    hwy::Prefetch(c + i * ldc);
    hwy::Prefetch(c + i * ldc + 2 * N - 1);
  }
  for (int64_t p = 0; p < kc; ++p) {
    const V b0 = hn::LoadU(d, b);
    const V b1 = hn::LoadU(d, b + N);
    for (size_t i = 0; i < kMR; ++i) {
      const V ai = hn::Set(d, a[i]);
      c0[i] = hn::MulAdd(ai, b0, c0[i]);
      c1[i] = hn::MulAdd(ai, b1, c1[i]);
    }
    a += kMR;
    b += 2 * N;
  }
  if (mr == static_cast<int64_t>(kMR) && nr == 2 * N) {
    for (size_t i = 0; i < kMR; ++i) {
      T *row = c + i * ldc;
      if (accumulate) {
        c0[i] = hn::Add(hn::LoadU(d, row), c0[i]);
        c1[i] = hn::Add(hn::LoadU(d, row + N), c1[i]);
      }
      hn::StoreU(c0[i], d, row);
      hn::StoreU(c1[i], d, row + N);
    }
    return;
  }
  // An edge tile: the packed panels are zero-padded, so the whole tile was
  // computed; only its in-range part is written.
  HWY_ALIGN T tile[kMR * 2 * hn::MaxLanes(d)];
  for (size_t i = 0; i < kMR; ++i) {
    hn::Store(c0[i], d, tile + i * 2 * N);
    hn::Store(c1[i], d, tile + i * 2 * N + N);
  }
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j) {
      T v = tile[i * 2 * N + j];
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + v : v;
    }
}

template <typename T>
void Block(int64_t mc, int64_t nc, int64_t kc, const T *packedA,
           const T *packedB, T *c, int64_t ldc, bool accumulate) {
  const hn::ScalableTag<T> d;
  const int64_t mr = static_cast<int64_t>(kMR);
  const int64_t nr = 2 * static_cast<int64_t>(hn::Lanes(d));
  // B's micro-panel stays in L1 while every A micro-panel of the block
  // (in L2) streams past it.
  for (int64_t j = 0; j < nc; j += nr)
    for (int64_t i = 0; i < mc; i += mr)
      MicroTile(d, kc, packedA + i * kc, packedB + j * kc, c + i * ldc + j, ldc,
                std::min(mr, mc - i), std::min(nr, nc - j), accumulate);
}

void GemmBlockF32(int64_t mc, int64_t nc, int64_t kc, const float *packedA,
                  const float *packedB, float *c, int64_t ldc,
                  bool accumulate) {
  Block(mc, nc, kc, packedA, packedB, c, ldc, accumulate);
}
void GemmBlockF64(int64_t mc, int64_t nc, int64_t kc, const double *packedA,
                  const double *packedB, double *c, int64_t ldc,
                  bool accumulate) {
  Block(mc, nc, kc, packedA, packedB, c, ldc, accumulate);
}

/// Rows of a B that is contiguous along its rows, into `panels` whole
/// panels: each row is read in order and scattered over the panels, which
/// streams B instead of touching one page per row and panel.
template <typename T>
void PackRowsB(const T *src, int64_t rowStride, int64_t rows, int64_t panels,
               int64_t kc, T *dst) {
  const hn::ScalableTag<T> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t p = 0; p < rows; ++p) {
    const T *row = src + p * rowStride;
    T *out = dst + p * 2 * N;
    for (int64_t q = 0; q < panels; ++q) {
      hn::StoreU(hn::LoadU(d, row + q * 2 * N), d, out + q * kc * 2 * N);
      hn::StoreU(hn::LoadU(d, row + q * 2 * N + N), d,
                 out + q * kc * 2 * N + N);
    }
  }
}
void PackRowsBF32(const float *src, int64_t rowStride, int64_t rows,
                  int64_t panels, int64_t kc, float *dst) {
  PackRowsB(src, rowStride, rows, panels, kc, dst);
}
void PackRowsBF64(const double *src, int64_t rowStride, int64_t rows,
                  int64_t panels, int64_t kc, double *dst) {
  PackRowsB(src, rowStride, rows, panels, kc, dst);
}

GemmShape GemmShapeF32() {
  const hn::ScalableTag<float> d;
  return {static_cast<int64_t>(kMR), 2 * static_cast<int64_t>(hn::Lanes(d)),
          256, 144};
}
GemmShape GemmShapeF64() {
  const hn::ScalableTag<double> d;
  return {static_cast<int64_t>(kMR), 2 * static_cast<int64_t>(hn::Lanes(d)),
          256, 72};
}

} // namespace HWY_NAMESPACE
} // namespace kiln::detail::flex::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::detail::flex::simd {

HWY_EXPORT(GemmBlockF32);
HWY_EXPORT(GemmBlockF64);
HWY_EXPORT(GemmShapeF32);
HWY_EXPORT(GemmShapeF64);
HWY_EXPORT(PackRowsBF32);
HWY_EXPORT(PackRowsBF64);

void gemmBlockF32(int64_t mc, int64_t nc, int64_t kc, const float *packedA,
                  const float *packedB, float *c, int64_t ldc,
                  bool accumulate) {
  HWY_DYNAMIC_DISPATCH(GemmBlockF32)
  (mc, nc, kc, packedA, packedB, c, ldc, accumulate);
}
void gemmBlockF64(int64_t mc, int64_t nc, int64_t kc, const double *packedA,
                  const double *packedB, double *c, int64_t ldc,
                  bool accumulate) {
  HWY_DYNAMIC_DISPATCH(GemmBlockF64)
  (mc, nc, kc, packedA, packedB, c, ldc, accumulate);
}
GemmShape gemmShapeF32() { return HWY_DYNAMIC_DISPATCH(GemmShapeF32)(); }
GemmShape gemmShapeF64() { return HWY_DYNAMIC_DISPATCH(GemmShapeF64)(); }
void packRowsBF32(const float *src, int64_t rowStride, int64_t rows,
                  int64_t panels, int64_t kc, float *dst) {
  HWY_DYNAMIC_DISPATCH(PackRowsBF32)(src, rowStride, rows, panels, kc, dst);
}
void packRowsBF64(const double *src, int64_t rowStride, int64_t rows,
                  int64_t panels, int64_t kc, double *dst) {
  HWY_DYNAMIC_DISPATCH(PackRowsBF64)(src, rowStride, rows, panels, kc, dst);
}

} // namespace kiln::detail::flex::simd
#endif
