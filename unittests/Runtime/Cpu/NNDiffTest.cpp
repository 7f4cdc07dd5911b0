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

/// An input of values in [-1, 1) whose gradients are tracked.
Tensor trackedInput(Side &s, Rng &rng, Shape shape, DType dtype) {
  Tensor t =
      s.input(randomValues(rng, shape.numel(), dtype, -1, 1), shape, dtype);
  t.requireGrad(CheckpointingStrategy::Disabled);
  return t;
}

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
    s.check("kiln.dropout", dtype, "kiln.dropout with a run-time offset",
            dropout(y, 0.5, 7, s.input({41}, {}, DType::I64)));
  });
}

// The gradients of grouped and depthwise convolutions: with windows that
// step by 1 the input's is a grouped convolution of the output's gradient
// (the channels swapped within each group), and the weight's sums partial
// products along output rows; with stride 2 both take the generic path.
TEST_P(NNDiffTest, GroupedConvGradients) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(43);
    auto tracked = [&](Shape shape) {
      return trackedInput(s, rng, std::move(shape), dtype);
    };
    struct Case {
      std::string label;
      Shape weight;
      ConvOptions options;
    };
    std::vector<Case> cases = {
        {"groups 3, 2 channels per group",
         {6, 2, 3, 3},
         {{1, 1}, {1, 1}, {1, 1}, 3}},
        {"depthwise, multiplier 2", {12, 1, 3, 3}, {{1, 1}, {1, 0}, {1, 1}, 6}},
        {"depthwise, dilation 2", {6, 1, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 6}},
        {"depthwise, stride 2", {6, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 6}}};
    for (const Case &c : cases) {
      Tensor x = tracked({2, 6, 9, 11}), w = tracked(c.weight);
      Tensor y = conv2d(x, w, std::nullopt, c.options);
      std::string label = "kiln.conv2d " + c.label;
      s.check("kiln.conv2d", dtype, label, y);
      Tensor dy = s.input(randomValues(rng, y.shape().numel(), dtype, -1, 1),
                          y.shape(), dtype);
      Gradients g = backward(sum(y * dy));
      s.check("kiln.conv2d", dtype, label + ", input gradient", g.get(x));
      s.check("kiln.conv2d", dtype, label + ", weight gradient", g.get(w));
    }
  });
}

// Batch norm (with given statistics, and in training mode with the running
// statistics' update), group and instance norm, and adaptive pooling to
// sizes that divide the input and sizes that do not; each forward, and the
// gradients of a weighted sum with respect to every input.
TEST_P(NNDiffTest, CnnNormsAndAdaptivePools) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(42);
    auto in = [&](Shape shape, double lo = -2, double hi = 2) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    auto tracked = [&](Shape shape, double lo = -2, double hi = 2) {
      Tensor t = in(std::move(shape), lo, hi);
      t.requireGrad(CheckpointingStrategy::Disabled);
      return t;
    };
    // Checks y, and the gradients of sum(y * dy) with respect to `leaves`.
    auto checkWithGrads = [&](const std::string &op, const std::string &label,
                              const Tensor &y, std::vector<Tensor> leaves) {
      s.check(op, dtype, label, y);
      Gradients g = backward(sum(y * in(y.shape(), -1, 1)));
      for (size_t i = 0; i < leaves.size(); ++i)
        s.check(op, dtype, label + ", gradient " + std::to_string(i),
                g.get(leaves[i]));
    };
    // Odd sizes: 3 channels, 5x7 planes.
    Tensor x = tracked({2, 3, 5, 7}), mean = tracked({3}),
           var = tracked({3}, 0.5, 2), w = tracked({3}, 0.5, 1.5),
           b = tracked({3});
    checkWithGrads("kiln.batch_norm", "kiln.batch_norm weight, bias",
                   batchNorm(x, mean, var, w, b), {x, mean, var, w, b});
    checkWithGrads("kiln.batch_norm", "kiln.batch_norm plain, rank 3",
                   batchNorm(x.reshape({2, 3, 35}), mean, var, std::nullopt,
                             std::nullopt, 1e-3),
                   {x, mean, var});
    Tensor runningMean = in({3}), runningVar = in({3}, 0.5, 2);
    checkWithGrads("kiln.batch_norm", "kiln.batch_norm training",
                   batchNormTraining(x, &runningMean, &runningVar, w, b, 0.2),
                   {x, w, b});
    s.check("kiln.batch_norm", dtype, "running mean", runningMean);
    s.check("kiln.batch_norm", dtype, "running variance", runningVar);

    // RMSNorm over an odd last dim, a long one, and a transposed input.
    for (int64_t cols : {7, 256}) {
      Tensor r = tracked({3, cols}), rw = tracked({cols}, 0.5, 1.5);
      std::string c = " [3, " + std::to_string(cols) + "]";
      checkWithGrads("kiln.rms_norm", "kiln.rms_norm weight" + c,
                     rmsNorm(r, rw), {r, rw});
      checkWithGrads("kiln.rms_norm", "kiln.rms_norm plain" + c,
                     rmsNorm(r, std::nullopt, 1e-3), {r});
    }
    Tensor rt = tracked({9, 4});
    checkWithGrads("kiln.rms_norm", "kiln.rms_norm transposed",
                   rmsNorm(rt.transpose(), in({9}, 0.5, 1.5)), {rt});

    // Rope of [B, H, T, D] in both layouts, at an offset, and of a
    // transposed input.
    Tensor q = tracked({2, 3, 5, 8});
    Tensor pos = s.input({11}, {}, DType::I64);
    checkWithGrads("kiln.rope", "kiln.rope half-split", rope(q), {q});
    checkWithGrads("kiln.rope", "kiln.rope interleaved, offset",
                   rope(q, 500.0, pos, true), {q});
    Tensor qt = tracked({2, 8, 5});
    checkWithGrads("kiln.rope", "kiln.rope transposed",
                   rope(qt.transpose(1, 2), 10000.0, pos), {qt});

    // Cross-entropy over rank-3 logits with ignored labels, smoothing and
    // each reduction.
    Tensor ce = tracked({3, 7, 5});
    Tensor ceLabels = s.input({0, 6, 9, 3, 9, 1, 2, 2, 5, 9, 4, 0, 6, 1, 3},
                              {3, 5}, DType::I64);
    for (LossReduction red :
         {LossReduction::None, LossReduction::Sum, LossReduction::Mean}) {
      CrossEntropyOptions o;
      o.ignoreIndex = 9;
      o.labelSmoothing = 0.05;
      o.reduction = red;
      checkWithGrads("kiln.cross_entropy",
                     "kiln.cross_entropy reduction " + std::to_string(int(red)),
                     crossEntropy(ce, ceLabels, o), {ce});
    }

    Tensor h = tracked({2, 6, 3, 5}), gw = tracked({6}, 0.5, 1.5),
           gb = tracked({6});
    checkWithGrads("kiln.group_norm", "kiln.group_norm 3 groups",
                   groupNorm(h, 3, gw, gb), {h, gw, gb});
    checkWithGrads("kiln.group_norm", "kiln.group_norm 1 group, rank 3",
                   groupNorm(h.reshape({2, 6, 15}), 1), {h});
    checkWithGrads("kiln.group_norm", "instance norm",
                   instanceNorm(h, gw, std::nullopt, 1e-3), {h, gw});

    for (std::vector<int64_t> size : std::vector<std::vector<int64_t>>{
             {1, 1}, {5, 1}, {3, 2}, {2, 4}, {7, 9}}) {
      std::string c =
          " to " + std::to_string(size[0]) + "x" + std::to_string(size[1]);
      checkWithGrads("kiln.adaptive_avg_pool2d", "kiln.adaptive_avg_pool2d" + c,
                     adaptiveAvgPool2d(x, size), {x});
      checkWithGrads("kiln.adaptive_max_pool2d", "kiln.adaptive_max_pool2d" + c,
                     adaptiveMaxPool2d(x, size), {x});
    }
  });
}

// Transposed convolutions: strides, padding, output padding, dilation,
// groups and odd sizes, 1-D and 2-D; forward and the gradients with
// respect to the input, the weight and the bias.
TEST_P(NNDiffTest, ConvTranspose) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(43);
    auto tracked = [&](Shape shape) {
      return trackedInput(s, rng, std::move(shape), dtype);
    };
    auto check = [&](const std::string &op, const std::string &label,
                     const Tensor &y, std::vector<Tensor> leaves) {
      s.check(op, dtype, label, y);
      Tensor dy =
          s.input(randomValues(rng, y.numel(), dtype, -1, 1), y.shape(), dtype);
      Gradients g = backward(sum(y * dy));
      for (size_t i = 0; i < leaves.size(); ++i)
        s.check(op, dtype, label + ", gradient " + std::to_string(i),
                g.get(leaves[i]));
    };
    Tensor x = tracked({2, 4, 5, 7}), w = tracked({4, 3, 3, 3}),
           b = tracked({6});
    check("kiln.conv_transpose2d", "kiln.conv_transpose2d stride 2, output pad",
          convTranspose2d(x, w, std::nullopt, {{2, 2}, {1, 1}, {1, 0}, {}, 1}),
          {x, w});
    check("kiln.conv_transpose2d",
          "kiln.conv_transpose2d groups, dilation, bias",
          convTranspose2d(x, w, b, {{2, 1}, {0, 1}, {0, 0}, {1, 2}, 2}),
          {x, w, b});
    check("kiln.conv_transpose2d", "kiln.conv_transpose2d stride 1",
          convTranspose2d(x, w, std::nullopt, {{1, 1}, {1, 1}, {}, {}, 1}),
          {x, w});
    Tensor x1 = tracked({2, 4, 9}), w1 = tracked({4, 1, 3});
    check("kiln.conv_transpose1d", "kiln.conv_transpose1d depthwise",
          convTranspose1d(x1, w1, std::nullopt, {{3}, {1}, {2}, {}, 4}),
          {x1, w1});
  });
}

// Pooling with dilation, ceil mode, padding, and 1-D: values, indices and
// the gradients.
TEST_P(NNDiffTest, PoolingOptions) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(44);
    Tensor x = s.input(randomValues(rng, 2 * 3 * 9 * 10, dtype, -2, 2),
                       {2, 3, 9, 10}, dtype);
    x.requireGrad(CheckpointingStrategy::Disabled);
    Tensor line =
        s.input(randomValues(rng, 2 * 3 * 11, dtype, -2, 2), {2, 3, 11}, dtype);
    line.requireGrad(CheckpointingStrategy::Disabled);
    std::vector<std::pair<std::string, PoolOptions>> cases = {
        {"dilated, ceil", {{3, 3}, {2, 2}, {1, 1}, {2, 2}, true}},
        {"ceil, exclude pad", {{3, 2}, {2, 3}, {1, 1}, {}, true, false}},
        {"plain", {{2, 2}, {}, {}, {}, false}},
    };
    for (auto &[name, o] : cases) {
      auto [values, where] = maxPoolWithIndices(x, o);
      s.check("kiln.max_pool", dtype, "kiln.max_pool " + name, values);
      s.check("kiln.max_pool_indices", dtype, "kiln.max_pool_indices " + name,
              where);
      Tensor dy = s.input(randomValues(rng, values.numel(), dtype, -1, 1),
                          values.shape(), dtype);
      s.check("kiln.max_pool", dtype, "kiln.max_pool gradient, " + name,
              backward(sum(values * dy)).get(x));
      if (!o.dilation.empty())
        continue;
      Tensor avg = avgPool(x, o);
      s.check("kiln.avg_pool", dtype, "kiln.avg_pool " + name, avg);
      s.check("kiln.avg_pool", dtype, "kiln.avg_pool gradient, " + name,
              backward(sum(avg * dy)).get(x));
    }
    Tensor m1 = maxPool(line, {{3}, {2}, {1}, {2}, true});
    s.check("kiln.max_pool", dtype, "kiln.max_pool 1-D", m1);
    s.check("kiln.max_pool", dtype, "kiln.max_pool 1-D gradient",
            backward(sum(m1 * m1)).get(line));
    Tensor a1 = avgPool(line, {{4}, {3}, {2}, {}, true, true});
    s.check("kiln.avg_pool", dtype, "kiln.avg_pool 1-D", a1);
  });
}

// Resizing up and down, nearest and (bi)linear, aligned or not, by size
// or by scale; forward and the input's gradient.
TEST_P(NNDiffTest, Interpolate) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(45);
    Tensor x = s.input(randomValues(rng, 2 * 3 * 5 * 7, dtype, -2, 2),
                       {2, 3, 5, 7}, dtype);
    x.requireGrad(CheckpointingStrategy::Disabled);
    Tensor line =
        s.input(randomValues(rng, 2 * 3 * 9, dtype, -2, 2), {2, 3, 9}, dtype);
    line.requireGrad(CheckpointingStrategy::Disabled);
    auto check = [&](const std::string &label, const Tensor &in,
                     InterpolateOptions o) {
      Tensor y = interpolate(in, std::move(o));
      s.check("kiln.interpolate", dtype, "kiln.interpolate " + label, y);
      Tensor dy =
          s.input(randomValues(rng, y.numel(), dtype, -1, 1), y.shape(), dtype);
      s.check("kiln.interpolate", dtype, "kiln.interpolate gradient, " + label,
              backward(sum(y * dy)).get(in));
    };
    check("nearest up", x, {{10, 14}, {}, "nearest", false});
    check("nearest down", x, {{3, 4}, {}, "nearest", false});
    check("bilinear up", x, {{11, 9}, {}, "bilinear", false});
    check("bilinear aligned", x, {{9, 13}, {}, "bilinear", true});
    check("bilinear down by scale", x, {{}, {0.5, 0.6}, "bilinear", false});
    check("linear 1-D", line, {{4}, {}, "linear", false});
  });
}

// Attention: grouped-query with a padding mask, causal cross-length, and
// an additive mask; each forward and the gradients of q, k and v.
TEST_P(NNDiffTest, Attention) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(43);
    auto in = [&](Shape shape, double lo = -1, double hi = 1) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    auto tracked = [&](Shape shape) {
      Tensor t = in(std::move(shape));
      t.requireGrad(CheckpointingStrategy::Disabled);
      return t;
    };
    auto checkWithGrads = [&](const std::string &label, const Tensor &y,
                              std::vector<Tensor> leaves) {
      s.check("kiln.softmax", dtype, label, y);
      Gradients g = backward(sum(y * in(y.shape())));
      for (size_t i = 0; i < leaves.size(); ++i)
        s.check("kiln.softmax", dtype,
                label + ", gradient " + std::to_string(i), g.get(leaves[i]));
    };
    Tensor q = tracked({2, 6, 5, 8}), k = tracked({2, 2, 5, 8}),
           v = tracked({2, 2, 5, 8});
    AttentionOptions padding;
    padding.mask =
        s.input({1, 1, 1, 0, 1, 1, 1, 1, 1, 0}, {2, 1, 1, 5}, DType::Bool);
    checkWithGrads("grouped, padding",
                   scaledDotProductAttention(q, k, v, padding), {q, k, v});
    AttentionOptions causal;
    causal.causal = true;
    Tensor kc = tracked({2, 3, 7, 8}), vc = tracked({2, 3, 7, 4}),
           qc = tracked({2, 3, 4, 8});
    checkWithGrads("causal, cross length",
                   scaledDotProductAttention(qc, kc, vc, causal), {qc, kc, vc});
    AttentionOptions additive;
    additive.mask = in({4, 7}, -2, 0);
    additive.scale = 0.5;
    checkWithGrads("additive mask, scale",
                   scaledDotProductAttention(qc, kc, vc, additive), {qc});
  });
}

// argsort (a runtime step on Cpu), sort and topk values with their
// gradients, along an inner and an outer axis and of a transposed input.
TEST_P(NNDiffTest, SortAndTopk) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(44);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, -3, 3), shape,
                     dtype);
    };
    Tensor x = in({5, 37});
    x.requireGrad(CheckpointingStrategy::Disabled);
    s.check("kiln.argsort", dtype, "argsort rows", argsort(x));
    s.check("kiln.argsort", dtype, "argsort columns, descending",
            argsort(x, 0, true));
    s.check("kiln.argsort", dtype, "argsort of a transpose",
            argsort(x.transpose(), 1));
    Tensor sorted = sort(exp(x), 1, true);
    auto [top, at] = topk(x * 2.0, 7, 1);
    s.check("kiln.argsort", dtype, "sort of an exp", sorted);
    s.check("kiln.argsort", dtype, "topk values", top);
    s.check("kiln.argsort", dtype, "topk indices", at);
    Gradients g =
        backward(sum(sorted * in(sorted.shape())) + sum(top * in(top.shape())));
    s.check("kiln.argsort", dtype, "gradient", g.get(x));
  });
}

INSTANTIATE_TEST_SUITE_P(Floats, NNDiffTest, ::testing::ValuesIn(floatDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace
