//===- FlexNNTest.cpp - Convolution and pooling on Flex vs references -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "FlexTestData.h"
#include "NNReference.h"
#include "NumericTest.h"

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flex() { return DispatchDevice::flex(); }

Tensor sample(std::vector<int64_t> shape, DType dt, uint32_t seed) {
  return tensorOf(sampleValues(numelOf(shape), dt, seed), Shape(shape), dt,
                  flex());
}

void expectConv2d(const Tensor &x, const Tensor &w,
                  const std::optional<Tensor> &bias, const Conv2dParams &p,
                  const std::string &what) {
  ConvOptions o{{p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw}, p.groups};
  Tensor y = conv2d(x, w, bias, o);
  std::vector<double> got = valuesOf(y);
  std::vector<double> want = referenceConv2d(
      valuesOf(x), x.shape().dims(), valuesOf(w), w.shape().dims(),
      bias ? valuesOf(*bias) : std::vector<double>{}, p);
  EXPECT_EQ(y.shape().dims(),
            conv2dOutputShape(x.shape().dims(), w.shape().dims(), p));
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.conv2d", x.dtype())))
      << what << " on " << x.dtype().str();
}

TEST(FlexConv2d, EveryFloatDType) {
  for (DType dt : floatDTypes()) {
    expectConv2d(sample({2, 3, 7, 6}, dt, 1), sample({4, 3, 3, 2}, dt, 2),
                 sample({4}, dt, 3), {}, "plain, bias");
    Conv2dParams strided;
    strided.sh = 2;
    strided.ph = 1;
    strided.pw = 2;
    strided.dh = 2;
    strided.groups = 2;
    expectConv2d(sample({1, 4, 9, 8}, dt, 4), sample({6, 2, 3, 3}, dt, 5),
                 std::nullopt, strided, "stride, padding, dilation, groups");
    Conv2dParams grouped;
    grouped.groups = 2;
    expectConv2d(sample({2, 6, 5, 5}, dt, 6), sample({4, 3, 1, 1}, dt, 7),
                 sample({4}, dt, 8), grouped, "pointwise, grouped");
    Conv2dParams depthwise;
    depthwise.groups = 4;
    depthwise.sh = depthwise.sw = 2;
    depthwise.ph = depthwise.pw = 1;
    expectConv2d(sample({1, 4, 6, 6}, dt, 9), sample({4, 1, 3, 3}, dt, 10),
                 std::nullopt, depthwise, "depthwise");
    Conv2dParams wide;
    wide.sw = 3;
    wide.dw = 2;
    wide.pw = 3;
    expectConv2d(sample({1, 2, 4, 11}, dt, 11), sample({3, 2, 2, 4}, dt, 12),
                 sample({3}, dt, 13), wide, "wide stride and dilation");
    Conv2dParams single = strided;
    single.groups = 1;
    expectConv2d(sample({2, 3, 6, 7}, dt, 33), sample({1, 3, 3, 3}, dt, 34),
                 sample({1}, dt, 35), single, "one output channel");
  }
}

TEST(FlexConv2d, StridedOperands) {
  for (DType dt : {DType::F32, DType::BF16}) {
    Tensor x = permute(sample({2, 7, 6, 3}, dt, 14), {0, 3, 1, 2});
    Tensor w = flip(sample({4, 3, 3, 3}, dt, 15), {2});
    Conv2dParams p;
    p.ph = p.pw = 1;
    expectConv2d(x, w, std::nullopt, p, "NHWC input as a view, flipped kernel");
  }
}

// Big enough for threads: one image (threads inside each GEMM) and several
// (one image per thread).
TEST(FlexConv2d, LargeShapes) {
  Conv2dParams p;
  p.ph = p.pw = 1;
  for (DType dt : {DType::F32, DType::F64}) {
    expectConv2d(sample({1, 16, 32, 32}, dt, 16),
                 sample({32, 16, 3, 3}, dt, 17), sample({32}, dt, 18), p,
                 "one image");
    expectConv2d(sample({4, 8, 20, 20}, dt, 19), sample({16, 8, 3, 3}, dt, 20),
                 std::nullopt, p, "four images");
  }
}

TEST(FlexConv1d, DecomposesToConv2d) {
  for (DType dt : floatDTypes()) {
    Tensor x = sample({2, 3, 10}, dt, 21), w = sample({4, 3, 3}, dt, 22);
    Tensor b = sample({4}, dt, 23);
    Tensor y = conv1d(x, w, b, ConvOptions{{2}, {1}, {2}, 1});
    Conv2dParams p;
    p.sw = 2;
    p.pw = 1;
    p.dw = 2;
    // A 1-D convolution is the 2-D one over [N, C, 1, L].
    std::vector<double> want = referenceConv2d(
        valuesOf(x), {2, 3, 1, 10}, valuesOf(w), {4, 3, 1, 3}, valuesOf(b), p);
    EXPECT_EQ(y.shape(), Shape({2, 4, 4}));
    EXPECT_TRUE(allClose(valuesOf(y), want, tolerance("kiln.conv1d", dt)))
        << dt.str();
  }
}

void expectPool(bool isMax, const Tensor &x, const Pool2dParams &p,
                const std::string &what) {
  Tensor y = isMax ? maxPool2d(x, {p.kh, p.kw}, {p.sh, p.sw}, {p.ph, p.pw})
                   : avgPool2d(x, {p.kh, p.kw}, {p.sh, p.sw}, {p.ph, p.pw},
                               p.countIncludePad);
  std::vector<double> want =
      isMax ? referenceMaxPool2d(valuesOf(x), x.shape().dims(), p)
            : referenceAvgPool2d(valuesOf(x), x.shape().dims(), p);
  EXPECT_EQ(y.shape().dims(), pool2dOutputShape(x.shape().dims(), p));
  const char *op = isMax ? "kiln.max_pool2d" : "kiln.avg_pool2d";
  EXPECT_TRUE(allClose(valuesOf(y), want, tolerance(op, x.dtype())))
      << what << " on " << x.dtype().str();
}

TEST(FlexPool2d, EveryFloatDType) {
  for (DType dt : floatDTypes()) {
    Tensor x = sample({2, 3, 7, 8}, dt, 24);
    Pool2dParams p{3, 2, 2, 2, 1, 1, true};
    expectPool(true, x, p, "max, padded");
    expectPool(false, x, p, "avg, count_include_pad");
    p.countIncludePad = false;
    expectPool(false, x, p, "avg, in-bounds count");
    Pool2dParams overlap{3, 3, 1, 1, 1, 1, false};
    expectPool(true, x, overlap, "max, overlapping");
    expectPool(false, x, overlap, "avg, overlapping");
    expectPool(true, transpose(x, 2, 3), {2, 2, 2, 2, 0, 0, true},
               "max, transposed input");
  }
}

// Padding is -inf for max pooling: all-negative inputs never see a 0.
TEST(FlexPool2d, MaxPaddingNeverWins) {
  Tensor x = tensorOf({-3, -1, -2, -5}, {1, 1, 2, 2}, DType::F32, flex());
  Tensor y = maxPool2d(x, {2, 2}, {1, 1}, {1, 1});
  EXPECT_EQ(valuesOf(y),
            (std::vector<double>{-3, -1, -1, -2, -1, -1, -2, -2, -5}));
}

TEST(FlexPool2d, MaxPropagatesNaN) {
  double nan = std::nan("");
  Tensor x = tensorOf({1, nan, 3, 4}, {1, 1, 2, 2}, DType::F32, flex());
  std::vector<double> y = valuesOf(maxPool2d(x, {2, 2}, {2, 2}));
  ASSERT_EQ(y.size(), 1u);
  EXPECT_TRUE(std::isnan(y[0]));
}

} // namespace
