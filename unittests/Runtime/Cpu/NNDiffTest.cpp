//===- NNDiffTest.cpp - Neural-network ops, Cpu against Flex --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// conv2d and conv1d (stride, padding, dilation, groups, bias), max and
// average pooling, layer_norm, dropout and cross_entropy for every float
// dtype.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

using namespace kiln;
using namespace kiln::test;

namespace {

class NNDiffTest : public ::testing::TestWithParam<DType> {};

TEST_P(NNDiffTest, ConvAndPool) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(40);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, -1, 1), shape,
                     dtype);
    };
    Tensor x = in({2, 4, 9, 11});
    s.check("kiln.conv2d", dtype, "kiln.conv2d 3x3", conv2d(x, in({6, 4, 3, 3})));
    s.check("kiln.conv2d", dtype, "kiln.conv2d bias, padding, stride",
            conv2d(x, in({5, 4, 3, 2}), in({5}), {{2, 1}, {1, 2}, {1, 1}, 1}));
    s.check("kiln.conv2d", dtype, "kiln.conv2d dilation",
            conv2d(x, in({3, 4, 2, 3}), std::nullopt, {{1, 1}, {0, 1}, {2, 2}, 1}));
    s.check("kiln.conv2d", dtype, "kiln.conv2d groups",
            conv2d(x, in({6, 2, 3, 3}), in({6}), {{1, 1}, {1, 1}, {1, 1}, 2}));
    s.check("kiln.conv2d", dtype, "kiln.conv2d depthwise",
            conv2d(x, in({4, 1, 3, 3}), std::nullopt, {{1, 1}, {1, 1}, {1, 1}, 4}));
    s.check("kiln.conv2d", dtype, "kiln.conv2d of a permuted input",
            conv2d(in({2, 9, 11, 4}).permute({0, 3, 1, 2}), in({3, 4, 1, 1})));
    Tensor seq = in({3, 4, 20});
    s.check("kiln.conv1d", dtype, "kiln.conv1d",
            conv1d(seq, in({5, 4, 3}), in({5}), {{2}, {1}, {1}, 1}));
    s.check("kiln.conv1d", dtype, "kiln.conv1d dilation, groups",
            conv1d(seq, in({4, 2, 3}), std::nullopt, {{1}, {2}, {2}, 2}));
    s.check("kiln.max_pool2d", dtype, "kiln.max_pool2d 2x2",
            maxPool2d(x, {2, 2}));
    s.check("kiln.max_pool2d", dtype, "kiln.max_pool2d padded, strided",
            maxPool2d(x, {3, 3}, {2, 1}, {1, 1}));
    s.check("kiln.avg_pool2d", dtype, "kiln.avg_pool2d 2x2",
            avgPool2d(x, {2, 2}));
    s.check("kiln.avg_pool2d", dtype, "kiln.avg_pool2d include pad",
            avgPool2d(x, {3, 3}, {2, 2}, {1, 1}, true));
    s.check("kiln.avg_pool2d", dtype, "kiln.avg_pool2d exclude pad",
            avgPool2d(x, {3, 2}, {1, 2}, {1, 1}, false));
  });
}

TEST_P(NNDiffTest, NormAndLoss) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(41);
    auto in = [&](Shape shape, double lo = -2, double hi = 2) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    for (int64_t cols : {8, 67, 256}) {
      Tensor x = in({5, cols});
      std::string c = " [5, " + std::to_string(cols) + "]";
      Tensor w = in({cols}, 0.5, 1.5), b = in({cols});
      s.check("kiln.layer_norm", dtype, "kiln.layer_norm" + c,
              layerNorm(x, std::nullopt, std::nullopt));
      s.check("kiln.layer_norm", dtype, "kiln.layer_norm weight, bias" + c,
              layerNorm(x, w, b));
      s.check("kiln.layer_norm", dtype, "kiln.layer_norm bias only" + c,
              layerNorm(x, std::nullopt, b, 1e-3));
      s.check("kiln.layer_norm", dtype, "kiln.layer_norm weight only" + c,
              layerNorm(x, w, std::nullopt));
    }
    s.check("kiln.layer_norm", dtype, "kiln.layer_norm rank 3, transposed",
            layerNorm(in({2, 16, 3}).transpose(1, 2), in({16}), in({16})));
    for (DType index : {DType::I64, DType::I32}) {
      Tensor labels = s.input(randomValues(rng, 6, index, 0, 9), {6}, index);
      s.check("kiln.cross_entropy", dtype,
              "kiln.cross_entropy " + index.str() + " labels",
              crossEntropy(in({6, 10}, -4, 4), labels));
      s.check("kiln.cross_entropy", dtype,
              "kiln.cross_entropy of a transpose",
              crossEntropy(in({10, 6}, -4, 4).transpose(), labels));
    }
    Tensor y = in({8, 33});
    s.check("kiln.dropout", dtype, "kiln.dropout p=0.5", dropout(y, 0.5, 7));
    s.check("kiln.dropout", dtype, "kiln.dropout p=0", dropout(y, 0, 7));
    s.check("kiln.dropout", dtype, "kiln.dropout of a flip",
            dropout(flip(y, {1}), 0.25, 8));
  });
}

INSTANTIATE_TEST_SUITE_P(Floats, NNDiffTest, ::testing::ValuesIn(floatDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace
