//===- FlexMatmulTest.cpp - kiln.matmul on Flex against a reference -------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "FlexTestData.h"
#include "NumericTest.h"

#include "hwy/targets.h"

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flex() { return DispatchDevice::flex(); }

/// numpy matmul of row-major a[..., m, k] and b[..., k, n], batch dims
/// broadcast; integer results wrap to `dtype` like the kernel's.
std::vector<double> referenceMatmul(const std::vector<double> &a,
                                    std::vector<int64_t> as,
                                    const std::vector<double> &b,
                                    std::vector<int64_t> bs, DType dtype) {
  size_t rank = std::max(as.size(), bs.size());
  as.insert(as.begin(), rank - as.size(), 1);
  bs.insert(bs.begin(), rank - bs.size(), 1);
  int64_t m = as[rank - 2], k = as[rank - 1], n = bs[rank - 1];
  std::vector<int64_t> batch(rank - 2);
  for (size_t d = 0; d + 2 < rank; ++d)
    batch[d] = std::max(as[d], bs[d]);
  std::vector<double> out;
  for (int64_t t = 0; t < numelOf(batch); ++t) {
    std::vector<int64_t> coord = unravel(t, batch), ca = coord, cb = coord;
    for (size_t d = 0; d < batch.size(); ++d) {
      ca[d] = as[d] == 1 ? 0 : coord[d];
      cb[d] = bs[d] == 1 ? 0 : coord[d];
    }
    std::vector<int64_t> abatch(as.begin(), as.end() - 2),
        bbatch(bs.begin(), bs.end() - 2);
    int64_t ao = ravel(ca, abatch) * m * k, bo = ravel(cb, bbatch) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += a[ao + i * k + p] * b[bo + p * n + j];
        out.push_back(wrapTo(s, dtype));
      }
  }
  return out;
}

/// Checks matmul(a, b) against the reference, reading the operands' values
/// (views included) back through the API.
void expectMatmul(const Tensor &a, const Tensor &b, const std::string &what) {
  DType dt = a.dtype();
  std::vector<double> got = valuesOf(matmul(a, b));
  std::vector<double> want = referenceMatmul(valuesOf(a), a.shape().dims(),
                                             valuesOf(b), b.shape().dims(), dt);
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.matmul", dt)))
      << what << " on " << dt.str();
}

Tensor sample(std::vector<int64_t> shape, DType dt, uint32_t seed) {
  return tensorOf(sampleValues(numelOf(shape), dt, seed), Shape(shape), dt,
                  flex());
}

TEST(FlexMatmul, EveryDTypeWithPartialTiles) {
  for (DType dt : numericDTypes())
    expectMatmul(sample({7, 13}, dt, 1), sample({13, 9}, dt, 2), "7x13x9");
}

TEST(FlexMatmul, BroadcastBatchDims) {
  for (DType dt : numericDTypes()) {
    expectMatmul(sample({2, 1, 5, 6}, dt, 3), sample({3, 6, 4}, dt, 4),
                 "[2,1,5,6] x [3,6,4]");
    expectMatmul(sample({5, 6}, dt, 5), sample({2, 6, 3}, dt, 6),
                 "[5,6] x [2,6,3]");
  }
}

TEST(FlexMatmul, StridedOperands) {
  for (DType dt : numericDTypes()) {
    // A transposed weight, a row-and-column-sliced lhs, a flipped batch.
    Tensor wT = transpose(sample({9, 11}, dt, 7), 0, 1);
    Tensor a = slice(sample({14, 15}, dt, 8), {0, 2}, {14, 13}, {2, 1});
    expectMatmul(a, wT, "sliced x transposed");
    Tensor batched = flip(sample({3, 4, 5}, dt, 9), {0});
    expectMatmul(batched, transpose(sample({3, 6, 5}, dt, 10), 1, 2),
                 "flipped x batch-transposed");
    // Rows read backwards, a row broadcast to every row, columns backwards.
    expectMatmul(sample({5, 6}, dt, 28), flip(sample({6, 20}, dt, 29), {0}),
                 "rhs rows flipped");
    expectMatmul(sample({5, 6}, dt, 30),
                 expand(sample({1, 20}, dt, 31), {6, 20}),
                 "rhs rows broadcast");
    expectMatmul(flip(sample({5, 6}, dt, 32), {1}),
                 flip(sample({6, 20}, dt, 33), {1}), "columns flipped");
  }
}

TEST(FlexMatmul, VectorOperands) {
  for (DType dt : {DType::F32, DType::I32}) {
    Tensor v = sample({6}, dt, 11), m = sample({6, 4}, dt, 12);
    std::vector<double> got = valuesOf(matmul(v, m));
    std::vector<double> want =
        referenceMatmul(valuesOf(v), {1, 6}, valuesOf(m), {6, 4}, dt);
    EXPECT_TRUE(allClose(got, want, tolerance("kiln.matmul", dt)));
    Tensor m2 = sample({3, 6}, dt, 13);
    got = valuesOf(matmul(m2, v));
    want = referenceMatmul(valuesOf(m2), {3, 6}, valuesOf(v), {6, 1}, dt);
    EXPECT_TRUE(allClose(got, want, tolerance("kiln.matmul", dt)));
  }
}

// Sizes past one cache block in every dim, so that several k slices, row
// blocks, column chunks and threads take part.
TEST(FlexMatmul, LargeProducts) {
  for (DType dt : floatDTypes()) {
    expectMatmul(sample({150, 300}, dt, 14), sample({300, 70}, dt, 15),
                 "150x300x70");
    expectMatmul(sample({9, 600}, dt, 16),
                 transpose(sample({4200, 600}, dt, 17), 0, 1), "wide rhs");
  }
}

// The batch paths: folded into rows (shared rhs), one product per thread
// (small batches), and per-batch products over an lhs that cannot fold.
TEST(FlexMatmul, BatchPaths) {
  for (DType dt : {DType::F32, DType::F64, DType::BF16}) {
    expectMatmul(sample({4, 33, 40}, dt, 18), sample({40, 50}, dt, 19),
                 "folded batch");
    expectMatmul(sample({8, 20, 30}, dt, 20), sample({8, 30, 25}, dt, 21),
                 "parallel batch");
    expectMatmul(permute(sample({33, 4, 40}, dt, 22), {1, 0, 2}),
                 sample({40, 50}, dt, 23), "unfoldable batch");
    expectMatmul(sample({2, 128, 256}, dt, 24), sample({2, 256, 96}, dt, 25),
                 "large batch");
  }
}

TEST(FlexMatmul, EmptyContractionGivesZeros) {
  for (DType dt : {DType::F32, DType::F64, DType::I64}) {
    Tensor a = DispatchTensor::zeros({3, 0}, dt, flex());
    Tensor b = DispatchTensor::zeros({0, 4}, dt, flex());
    EXPECT_EQ(valuesOf(matmul(a, b)), std::vector<double>(12, 0.0));
  }
}

TEST(FlexMatmul, IntegersWrap) {
  for (DType dt : {DType::I8, DType::U8, DType::I16}) {
    std::vector<double> av{100, 100, 7}, bv{2, 1, 3};
    Tensor a = tensorOf(av, {1, 3}, dt, flex());
    Tensor b = tensorOf(bv, {3, 1}, dt, flex());
    EXPECT_EQ(valuesOf(matmul(a, b)),
              referenceMatmul(av, {1, 3}, bv, {3, 1}, dt))
        << dt.str();
  }
}

// Every SIMD target the runtime may pick on this machine, down to the
// portable one, not just the best.
TEST(FlexMatmul, EverySimdTarget) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (DType dt : {DType::F32, DType::F64})
      expectMatmul(sample({37, 70}, dt, 26), sample({70, 45}, dt, 27),
                   hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

} // namespace
