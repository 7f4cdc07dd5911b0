//===- ConvMatmulDiffTest.cpp - Convolutions as matmuls, Cpu against Flex -===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The Cpu backend runs a 2-D convolution of one group as its matmul kernel
// with the columns of the windows read from the input while packing
// (--kiln-conv-to-matmul). When the windows step by 1 over output rows as
// wide as the input's, the micro-kernel loads the columns from the input
// itself, each tap a shifted plane masked at the padding; otherwise packing
// reads each output row a panel spans as one masked load when the windows
// step by 1 along a row, and gathers the lanes otherwise. These geometries
// take all three ways, on rows wider and narrower than a panel, with
// padding on either side, strides, dilations, several k slices and the
// epilogue. Run once per ISA (16- and 32-lane panels).
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

using namespace kiln;
using namespace kiln::test;

namespace {

struct Geometry {
  int64_t n, c, h, w, o, kh, kw;
  ConvOptions options;
};

Tensor randomInput(Side &s, Rng &rng, Shape shape) {
  return s.input(randomValues(rng, shape.numel(), DType::F32, -1, 1), shape,
                 DType::F32);
}

std::string describe(const Geometry &g) {
  auto pair = [](const std::vector<int64_t> &v) {
    return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]";
  };
  return "kiln.conv2d x [" + std::to_string(g.n) + ", " + std::to_string(g.c) +
         ", " + std::to_string(g.h) + ", " + std::to_string(g.w) + "] w [" +
         std::to_string(g.o) + ", " + std::to_string(g.c) + ", " +
         std::to_string(g.kh) + ", " + std::to_string(g.kw) + "] stride " +
         pair(g.options.stride) + " padding " + pair(g.options.padding) +
         " dilation " + pair(g.options.dilation);
}

const std::vector<Geometry> &geometries() {
  static const std::vector<Geometry> all = {
      // Rows of 8: several output rows per panel, masked loads.
      {2, 3, 8, 8, 4, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      // No padding, odd sizes.
      {1, 5, 13, 11, 7, 3, 3, {{1, 1}, {0, 0}, {1, 1}, 1}},
      // Rows of 40, wider than an AVX2 panel; three images.
      {3, 4, 9, 40, 6, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      // Stride 2, a 5 x 5 window: gathered lanes.
      {2, 3, 17, 17, 5, 5, 5, {{2, 2}, {2, 2}, {1, 1}, 1}},
      // Dilation 2 with padding 2.
      {2, 8, 15, 15, 9, 3, 3, {{1, 1}, {2, 2}, {2, 2}, 1}},
      // Padding along one dim only, a 1 x 3 window.
      {2, 3, 10, 37, 4, 1, 3, {{1, 1}, {0, 1}, {1, 1}, 1}},
      // Different strides and dilations per dim.
      {1, 3, 12, 12, 4, 3, 3, {{3, 2}, {1, 0}, {1, 2}, 1}},
      // 576 rows of columns: three k slices; rows of 58.
      {1, 64, 6, 58, 33, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      // A wide window on long rows.
      {1, 2, 5, 100, 3, 3, 7, {{1, 1}, {1, 3}, {1, 1}, 1}},
      // Read in place: 29 channels of 9 taps, two k slices of whole
      // channels (15 and 14), 63 pixels (a partial last panel) and 10
      // output channels (a partial row panel); 49 taps of a 7 x 7 window;
      // 81 taps of a 9 x 9 one, too many to unroll: packed.
      {2, 29, 7, 9, 10, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      {1, 3, 11, 13, 5, 7, 7, {{1, 1}, {3, 3}, {1, 1}, 1}},
      {1, 2, 10, 10, 3, 9, 9, {{1, 1}, {4, 4}, {1, 1}, 1}},
      // The weight read in place against 11 panels of 32 lanes (21 of 16)
      // of packed windows, K = 360 one slice, 19 output channels (a
      // partial row panel); 2304 columns, 72 panels of 32 lanes: the
      // weight packed.
      {1, 40, 20, 20, 19, 3, 3, {{1, 1}, {0, 0}, {1, 1}, 1}},
      {1, 3, 50, 50, 5, 3, 3, {{1, 1}, {0, 0}, {1, 1}, 1}},
      // 72 output channels: packed on 32-lane panels, in place on 16.
      {2, 4, 6, 10, 72, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      // Rows of 5, more than 6 to a 32-lane panel: the weight's gradient
      // packs the shifted planes in 8 x 8 blocks all the same.
      {2, 6, 5, 5, 7, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      // 24 output channels over 2 x 2 pixels per image (a ResNet's last
      // stage): the weight's gradient is one product over all 3 images.
      {3, 5, 4, 4, 24, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}},
      // Padding as wide as the input: whole rows of zeros.
      {2, 3, 4, 4, 2, 3, 3, {{1, 1}, {2, 2}, {1, 1}, 1}},
      // One pixel; a 1 x 1 window that steps by 2.
      {1, 1, 1, 1, 3, 1, 1, {{1, 1}, {0, 0}, {1, 1}, 1}},
      {2, 6, 9, 9, 5, 1, 1, {{2, 2}, {0, 0}, {1, 1}, 1}},
      // A pointwise convolution: a plain product with the input.
      {2, 6, 7, 7, 70, 1, 1, {{1, 1}, {0, 0}, {1, 1}, 1}},
      // Few pixels per image, the images along the columns of one
      // product: 5 images of 3 x 5 pixels (panels that run across
      // images), 3 images of 7 x 7 (a ResNet's last stage at 224 x 224),
      // 4 images of 2 x 2 of a 1 x 1 window with padding.
      {5, 4, 6, 10, 7, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}},
      {3, 8, 7, 7, 10, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
      {4, 3, 2, 2, 5, 1, 1, {{1, 1}, {1, 0}, {1, 1}, 1}},
  };
  return all;
}

TEST(ConvMatmulTest, EveryWayOfPackingTheWindows) {
  compareOnDevices([&](Side &s) {
    Rng rng(43);
    auto in = [&](Shape shape) { return randomInput(s, rng, shape); };
    for (const Geometry &g : geometries()) {
      Tensor x = in({g.n, g.c, g.h, g.w}), w = in({g.o, g.c, g.kh, g.kw});
      s.check("kiln.conv2d", DType::F32, describe(g),
              conv2d(x, w, std::nullopt, g.options));
      s.check("kiln.conv2d", DType::F32, describe(g) + " with bias",
              conv2d(x, w, in({g.o}), g.options));
    }
  });
}

// The gradients: with respect to the input, a convolution of the output's
// gradient with the flipped weight when the windows step by 1 (the generic
// path otherwise); with respect to the weight, the output's gradient times
// the transposed columns, gathered while packing.
TEST(ConvMatmulTest, BothGradients) {
  compareOnDevices([&](Side &s) {
    Rng rng(45);
    auto in = [&](Shape shape) { return randomInput(s, rng, shape); };
    for (const Geometry &g : geometries()) {
      Tensor x = in({g.n, g.c, g.h, g.w}), w = in({g.o, g.c, g.kh, g.kw});
      x.requireGrad(CheckpointingStrategy::Disabled);
      w.requireGrad(CheckpointingStrategy::Disabled);
      Tensor y = conv2d(x, w, std::nullopt, g.options);
      Tensor dy = in(y.shape());
      Gradients grads = backward(sum(y * dy));
      s.check("kiln.conv2d_backward_input", DType::F32,
              describe(g) + ", its input's gradient", grads.get(x));
      s.check("kiln.conv2d_backward_weight", DType::F32,
              describe(g) + ", its weight's gradient", grads.get(w));
    }
  });
}

// Random geometries: strides, dilations and paddings up to 3, windows up
// to 4, inputs down to 1 pixel; the forward op and both gradients.
TEST(ConvMatmulTest, RandomGeometries) {
  std::vector<Geometry> random;
  uint64_t state = 12345;
  auto next = [&](int64_t lo, int64_t hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<int64_t>((state >> 33) % uint64_t(hi - lo + 1));
  };
  while (random.size() < 24) {
    Geometry g{next(1, 2),
               next(1, 5),
               next(1, 12),
               next(1, 12),
               next(1, 6),
               next(1, 4),
               next(1, 4),
               {{next(1, 3), next(1, 3)},
                {next(0, 3), next(0, 3)},
                {next(1, 3), next(1, 3)},
                1}};
    bool fits = true;
    for (int d = 0; d < 2; ++d) {
      int64_t in = d ? g.w : g.h, k = d ? g.kw : g.kh;
      fits = fits && in + 2 * g.options.padding[d] >=
                         g.options.dilation[d] * (k - 1) + 1;
    }
    if (fits)
      random.push_back(g);
  }
  compareOnDevices([&](Side &s) {
    Rng rng(46);
    auto in = [&](Shape shape) { return randomInput(s, rng, shape); };
    for (const Geometry &g : random) {
      Tensor x = in({g.n, g.c, g.h, g.w}), w = in({g.o, g.c, g.kh, g.kw});
      x.requireGrad(CheckpointingStrategy::Disabled);
      w.requireGrad(CheckpointingStrategy::Disabled);
      Tensor y = conv2d(x, w, std::nullopt, g.options);
      Tensor dy = in(y.shape());
      Gradients grads = backward(sum(y * dy));
      s.check("kiln.conv2d", DType::F32, describe(g), y);
      s.check("kiln.conv2d_backward_input", DType::F32,
              describe(g) + ", its input's gradient", grads.get(x));
      s.check("kiln.conv2d_backward_weight", DType::F32,
              describe(g) + ", its weight's gradient", grads.get(w));
    }
  });
}

// A ResNet block's convolution, batch norm in training mode and ReLU,
// forward and backward: the batch norm's sums and broadcasts read the
// product's [N, C, H * W] through views (--kiln-conv-to-matmul moves them
// onto it), on images of 4 x 4 (their columns as one matrix) and 9 x 9.
TEST(ConvMatmulTest, BatchNormAroundTheProduct) {
  compareOnDevices([&](Side &s) {
    Rng rng(47);
    auto in = [&](Shape shape) { return randomInput(s, rng, shape); };
    for (int64_t size : {4, 9}) {
      Tensor x = in({3, 8, size, size}), w = in({8, 8, 3, 3}), gamma = in({8}),
             beta = in({8});
      for (Tensor *t : {&x, &w, &gamma, &beta})
        t->requireGrad(CheckpointingStrategy::Disabled);
      Tensor runningMean = in({8}), runningVar = in({8}) * 0.25 + 1.0;
      ConvOptions same{{1, 1}, {1, 1}, {1, 1}, 1};
      Tensor y =
          relu(batchNormTraining(conv2d(x, w, std::nullopt, same), &runningMean,
                                 &runningVar, gamma, beta, 0.1));
      Gradients grads = backward(sum(y * in(y.shape())));
      std::string label = "conv2d, batch norm, relu on " +
                          std::to_string(size) + " x " + std::to_string(size);
      s.check("kiln.conv2d", DType::F32, label, y);
      s.check("kiln.conv2d", DType::F32, label + ", running variance",
              runningVar);
      s.check("kiln.conv2d_backward_input", DType::F32,
              label + ", the input's gradient", grads.get(x));
      s.check("kiln.conv2d_backward_weight", DType::F32,
              label + ", the weight's gradient", grads.get(w));
      s.check("kiln.batch_norm", DType::F32, label + ", gamma's gradient",
              grads.get(gamma));
      s.check("kiln.batch_norm", DType::F32, label + ", beta's gradient",
              grads.get(beta));
    }
  });
}

TEST(ConvMatmulTest, TheEpilogueFollowsTheProduct) {
  compareOnDevices([&](Side &s) {
    Rng rng(44);
    auto in = [&](Shape shape) { return randomInput(s, rng, shape); };
    Tensor x = in({2, 16, 14, 14}), w = in({16, 16, 3, 3}), b = in({16});
    ConvOptions same{{1, 1}, {1, 1}, {1, 1}, 1};
    Tensor y = conv2d(x, w, b, same);
    s.check("kiln.conv2d", DType::F32, "relu(conv2d + bias)", relu(y));
    s.check("kiln.conv2d", DType::F32, "relu(conv2d + bias + x)", relu(y + x));
    s.check("kiln.conv2d", DType::F32, "two convolutions in a row",
            conv2d(relu(y), w, std::nullopt, same));
  });
}

} // namespace
