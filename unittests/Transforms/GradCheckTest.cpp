//===- GradCheckTest.cpp - Every gradient against finite differences ------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One table row per checked function, naming the kiln ops it covers. Every
// op with a gradient rule (DifferentiableOpInterface) and every composite
// must be covered by some row: Coverage asks the op registry, so a new rule
// without a check fails here.
//
// Tolerance. In f64 with step h = 1e-5, a central difference of a smooth
// loss L (|L| <= ~10 here) errs by about h^2/6 |L'''| + eps |L| / h, i.e.
// ~1e-10 + ~1e-10; piecewise-linear ops (relu, abs, max, clamp, rem, pools,
// dropout) have no truncation error because the inputs stay more than h
// from every kink. A gradient is accepted within 1e-7 + 1e-6 |fd|: three
// orders of magnitude above that noise, and far below the O(1) error of a
// wrong rule (a dropped term, a wrong sign, a missed broadcast sum).
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Engine/Compile.h"

#include <cstdio>
#include <set>

using namespace kiln;
using namespace kiln::test;

namespace {

using Ts = std::vector<Tensor>;

struct GradCase {
  std::string name;
  /// The kiln ops whose gradient this row checks.
  std::vector<std::string> ops;
  std::vector<GradInput> inputs;
  GradFn f;
  Tolerance tol = {1e-7, 1e-6};
  double h = 1e-5;
};

std::ostream &operator<<(std::ostream &os, const GradCase &c) {
  return os << c.name;
}

/// 1-D f64 values cast to i64 indices.
std::vector<double> ids(std::initializer_list<int> v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Values of `rem`'s dividend whose quotients by `divisor` (broadcast along
/// the last dim of size `cols`) stay away from integers, where rem jumps.
std::vector<double> remDividends(int64_t n, int64_t cols,
                                 const std::vector<double> &divisor) {
  std::vector<double> v = uniform(n, 31, -3.0, 3.0);
  for (int64_t i = 0; i < n; ++i) {
    double d = divisor[i % cols];
    double q = v[i] / d, frac = q - std::floor(q);
    if (frac < 0.1 || frac > 0.9)
      v[i] = (std::floor(q) + 0.5) * d;
  }
  return v;
}

/// `x` values at least 0.1 away from `y` (broadcast along the last dim).
std::vector<double> awayFrom(const std::vector<double> &y, int64_t n,
                             uint64_t seed) {
  std::vector<double> off = signedAway(n, seed, 0.1, 1.0);
  for (int64_t i = 0; i < n; ++i)
    off[i] += y[i % y.size()];
  return off;
}

std::vector<double> shifted(std::vector<double> v, double by) {
  for (double &x : v)
    x += by;
  return v;
}

/// Values away from the clamp bounds +-0.5 and from 0.
std::vector<double> clampInputs(int64_t n) {
  std::vector<double> v = signedAway(n, 41, 0.05, 0.4);
  for (int64_t i = 0; i < n; i += 2)
    v[i] += v[i] > 0 ? 0.55 : -0.55;
  return v;
}

std::vector<GradCase> cases() {
  std::vector<GradCase> c;
  auto unary = [&](std::string name, std::string op, GradInput x,
                   std::function<Tensor(const Tensor &)> f) {
    c.push_back({name, {op}, {std::move(x)},
                 [f](const Ts &x) { return Ts{f(x[0])}; }});
  };
  auto binary = [&](std::string name, std::string op, GradInput x, GradInput y,
                    std::function<Tensor(const Tensor &, const Tensor &)> f) {
    c.push_back({name, {op}, {std::move(x), std::move(y)},
                 [f](const Ts &x) { return Ts{f(x[0], x[1])}; }});
  };
  auto signedX = [](uint64_t seed) {
    return input({3, 4}, signedAway(12, seed, 0.2, 1.5));
  };
  auto positive = [](uint64_t seed) { return randomInput({3, 4}, seed, 0.3, 2.0); };

  //===--- Elementwise unary ------------------------------------------------===//
  unary("Neg", "kiln.neg", signedX(1), [](const Tensor &x) { return -x; });
  unary("Abs", "kiln.abs", signedX(2), [](const Tensor &x) { return abs(x); });
  unary("Exp", "kiln.exp", signedX(3), [](const Tensor &x) { return exp(x); });
  unary("Log", "kiln.log", positive(4), [](const Tensor &x) { return log(x); });
  unary("Log1p", "kiln.log1p", randomInput({3, 4}, 5, -0.6, 2.0),
        [](const Tensor &x) { return log1p(x); });
  unary("Sqrt", "kiln.sqrt", positive(6), [](const Tensor &x) { return sqrt(x); });
  unary("Rsqrt", "kiln.rsqrt", positive(7),
        [](const Tensor &x) { return rsqrt(x); });
  unary("Recip", "kiln.recip", signedX(8),
        [](const Tensor &x) { return recip(x); });
  unary("Sin", "kiln.sin", signedX(9), [](const Tensor &x) { return sin(x); });
  unary("Cos", "kiln.cos", signedX(10), [](const Tensor &x) { return cos(x); });
  unary("Tan", "kiln.tan", randomInput({3, 4}, 41, -1.2, 1.2),
        [](const Tensor &x) { return tan(x); });
  unary("Tanh", "kiln.tanh", signedX(11), [](const Tensor &x) { return tanh(x); });
  unary("Sigmoid", "kiln.sigmoid", signedX(12),
        [](const Tensor &x) { return sigmoid(x); });
  unary("Erf", "kiln.erf", signedX(13), [](const Tensor &x) { return erf(x); });
  unary("Relu", "kiln.relu", signedX(14), [](const Tensor &x) { return relu(x); });
  unary("Gelu", "kiln.gelu", signedX(15), [](const Tensor &x) { return gelu(x); });
  unary("GeluTanh", "kiln.gelu", randomInput({3, 4}, 16, -3.0, 3.0),
        [](const Tensor &x) { return gelu(x, /*tanhApprox=*/true); });
  unary("Clamp", "kiln.clamp", input({3, 4}, clampInputs(12)),
        [](const Tensor &x) { return clamp(x, -0.5, 0.5); });
  unary("Silu", "kiln.silu", randomInput({3, 4}, 17, -3.0, 3.0),
        [](const Tensor &x) { return silu(x); });
  unary("LogSigmoid", "kiln.log_sigmoid", randomInput({3, 4}, 171, -6.0, 6.0),
        [](const Tensor &x) { return logSigmoid(x); });
  unary("Hardswish", "kiln.hardswish", randomInput({3, 4}, 172, -5.0, 5.0),
        [](const Tensor &x) { return hardswish(x); });
  unary("Mish", "kiln.mish", randomInput({3, 4}, 173, -4.0, 4.0),
        [](const Tensor &x) { return mish(x); });
  unary("LeakyRelu", "kiln.leaky_relu", randomInput({3, 4}, 174, -3.0, 3.0),
        [](const Tensor &x) { return leakyRelu(x, 0.2); });
  unary("Elu", "kiln.elu", randomInput({3, 4}, 175, -3.0, 3.0),
        [](const Tensor &x) { return elu(x, 1.5); });
  unary("Softplus", "kiln.softplus", randomInput({3, 4}, 176, -6.0, 6.0),
        [](const Tensor &x) { return softplus(x, 2.0, 6.0); });
  // f64 -> f32 -> f64 rounds to f32 (relative error 6e-8): with h = 1e-3 the
  // difference quotient errs by up to ~1e-4, and the function is linear.
  c.push_back({"Cast", {"kiln.cast"}, {randomInput({3, 4}, 18)},
               [](const Ts &x) {
                 return Ts{cast(cast(x[0], DType::F32) * 3.0, DType::F64)};
               },
               {1e-3, 1e-3}, 1e-3});

  //===--- Elementwise binary, broadcasting ---------------------------------===//
  binary("AddBroadcast", "kiln.add", randomInput({2, 3, 4}, 20),
         randomInput({3, 1}, 21),
         [](const Tensor &x, const Tensor &y) { return x + y; });
  binary("SubScalar", "kiln.sub", randomInput({3, 4}, 22),
         randomInput({}, 23),
         [](const Tensor &x, const Tensor &y) { return x - y; });
  binary("SubScalarLhs", "kiln.sub", randomInput({}, 24),
         randomInput({3, 4}, 25),
         [](const Tensor &x, const Tensor &y) { return x - y; });
  binary("MulOuter", "kiln.mul", randomInput({4, 1}, 26),
         randomInput({1, 5}, 27),
         [](const Tensor &x, const Tensor &y) { return x * y; });
  binary("DivBroadcast", "kiln.div", randomInput({2, 3}, 28),
         input({3}, signedAway(3, 29, 0.5, 1.5)),
         [](const Tensor &x, const Tensor &y) { return x / y; });
  binary("Pow", "kiln.pow", randomInput({3, 4}, 30, 0.3, 2.0),
         randomInput({4}, 31, -1.5, 2.5),
         [](const Tensor &x, const Tensor &y) { return pow(x, y); });
  unary("PowScalar", "kiln.pow", randomInput({3, 4}, 32, 0.3, 2.0),
        [](const Tensor &x) { return pow(x, 2.5); });
  {
    std::vector<double> y = uniform(4, 33, -1, 1);
    binary("Maximum", "kiln.max", input({3, 4}, awayFrom(y, 12, 34)),
           input({4}, y),
           [](const Tensor &a, const Tensor &b) { return maximum(a, b); });
    binary("Minimum", "kiln.min", input({3, 4}, awayFrom(y, 12, 35)),
           input({4}, y),
           [](const Tensor &a, const Tensor &b) { return minimum(a, b); });
  }
  {
    std::vector<double> d = signedAway(4, 36, 0.7, 1.5);
    binary("Rem", "kiln.rem", input({3, 4}, remDividends(12, 4, d)),
           input({4}, d),
           [](const Tensor &x, const Tensor &y) { return rem(x, y); });
  }
  binary("Atan2", "kiln.atan2", input({3, 4}, signedAway(12, 37, 0.3, 1.5)),
         input({4}, signedAway(4, 38, 0.3, 1.5)),
         [](const Tensor &y, const Tensor &x) { return atan2(y, x); });
  // The condition comes from a comparison of a differentiated input: no
  // gradient flows through it (c stays away from 0).
  c.push_back({"Where",
               {"kiln.where"},
               {input({3, 1}, signedAway(3, 39, 0.2, 1.0)),
                randomInput({3, 4}, 40), randomInput({4}, 41)},
               [](const Ts &x) { return Ts{where(x[0] > 0.0, x[1], x[2])}; }});

  //===--- Reductions -------------------------------------------------------===//
  unary("SumAxis", "kiln.sum", randomInput({3, 4, 2}, 50),
        [](const Tensor &x) { return sum(x, {1}); });
  unary("SumKeepdim", "kiln.sum", randomInput({3, 4, 2}, 51),
        [](const Tensor &x) { return sum(x, {0, 2}, true) * x; });
  unary("SumAll", "kiln.sum", randomInput({3, 4}, 52),
        [](const Tensor &x) { return sum(x) * sum(x); });
  unary("Prod", "kiln.prod", input({3, 4}, signedAway(12, 53, 0.5, 1.5)),
        [](const Tensor &x) { return prod(x, {1}); });
  unary("ProdKeepdim", "kiln.prod", input({2, 3, 2}, signedAway(12, 54, 0.5, 1.5)),
        [](const Tensor &x) { return prod(x, {0, 2}, true); });
  unary("ReduceMax", "kiln.reduce_max", input({3, 5}, distinct(15, 55)),
        [](const Tensor &x) { return max(x, {1}); });
  unary("ReduceMaxAll", "kiln.reduce_max", input({2, 3, 2}, distinct(12, 56)),
        [](const Tensor &x) { return max(x); });
  unary("ReduceMin", "kiln.reduce_min", input({2, 3, 2}, distinct(12, 57)),
        [](const Tensor &x) { return min(x, {0, 2}, true); });
  unary("Cumsum", "kiln.cumsum", randomInput({3, 4}, 58),
        [](const Tensor &x) { return cumsum(x, 1); });
  unary("CumsumAxis0", "kiln.cumsum", randomInput({3, 4}, 59),
        [](const Tensor &x) { return cumsum(x, 0); });
  unary("Mean", "kiln.mean", randomInput({3, 4}, 60),
        [](const Tensor &x) { return mean(x, {0}) * mean(x); });
  unary("Softmax", "kiln.softmax", randomInput({3, 5}, 61, -2, 2),
        [](const Tensor &x) { return softmax(x, -1); });
  unary("SoftmaxAxis0", "kiln.softmax", randomInput({3, 5}, 62, -2, 2),
        [](const Tensor &x) { return softmax(x, 0); });
  unary("LogSoftmax", "kiln.log_softmax", randomInput({3, 5}, 63, -2, 2),
        [](const Tensor &x) { return logSoftmax(x, 1); });
  unary("LogSumExp", "kiln.logsumexp", randomInput({3, 5}, 64, -2, 2),
        [](const Tensor &x) { return logsumexp(x, {1}); });
  unary("LogSumExpKeepdim", "kiln.logsumexp", randomInput({2, 3, 4}, 65, -2, 2),
        [](const Tensor &x) { return logsumexp(x, {0, 2}, true); });

  //===--- Matmul -----------------------------------------------------------===//
  binary("Matmul", "kiln.matmul", randomInput({3, 4}, 70),
         randomInput({4, 5}, 71),
         [](const Tensor &a, const Tensor &b) { return matmul(a, b); });
  binary("MatmulBatchedBroadcast", "kiln.matmul", randomInput({2, 3, 4}, 72),
         randomInput({4, 5}, 73),
         [](const Tensor &a, const Tensor &b) { return matmul(a, b); });
  binary("MatmulBatchBothSides", "kiln.matmul", randomInput({2, 1, 3, 4}, 74),
         randomInput({3, 4, 2}, 75),
         [](const Tensor &a, const Tensor &b) { return matmul(a, b); });
  binary("MatmulVectorLhs", "kiln.matmul", randomInput({4}, 76),
         randomInput({4, 5}, 77),
         [](const Tensor &a, const Tensor &b) { return matmul(a, b); });
  binary("MatmulVectorRhs", "kiln.matmul", randomInput({3, 4}, 78),
         randomInput({4}, 79),
         [](const Tensor &a, const Tensor &b) { return matmul(a, b); });

  //===--- Layout -----------------------------------------------------------===//
  unary("Reshape", "kiln.reshape", randomInput({3, 4}, 80),
        [](const Tensor &x) { return reshape(x, {2, 6}) * reshape(x, {2, 6}); });
  unary("Permute", "kiln.permute", randomInput({2, 3, 4}, 81),
        [](const Tensor &x) { return permute(x, {2, 0, 1}); });
  unary("Expand", "kiln.expand", randomInput({3, 1}, 82),
        [](const Tensor &x) { return expand(x, {2, 3, 4}); });
  unary("Slice", "kiln.slice", randomInput({5, 6}, 83),
        [](const Tensor &x) { return slice(x, {1, 0}, {5, 6}, {2, 3}); });
  binary("SliceAssign", "kiln.slice_assign", randomInput({4, 5}, 84),
         randomInput({2, 2}, 85), [](const Tensor &d, const Tensor &v) {
           return sliceAssign(d, v, {1, 1}, {3, 5}, {1, 2});
         });
  c.push_back({"Concat",
               {"kiln.concat"},
               {randomInput({2, 3}, 86), randomInput({2, 1}, 87),
                randomInput({2, 2}, 88)},
               [](const Ts &x) { return Ts{concat({x[0], x[1], x[2]}, 1)}; }});
  c.push_back({"Split",
               {"kiln.split"},
               {randomInput({6, 3}, 89)},
               [](const Ts &x) { return split(x[0], {1, 2, 3}, 0); }});
  // Only the middle piece reaches the loss: the others get zero cotangents.
  c.push_back({"SplitOnePieceUsed",
               {"kiln.split"},
               {randomInput({6, 3}, 90)},
               [](const Ts &x) { return Ts{split(x[0], {1, 2, 3}, 0)[1]}; }});
  unary("Squeeze", "kiln.squeeze", randomInput({3, 1, 4, 1}, 91),
        [](const Tensor &x) { return squeeze(x, {1, 3}); });
  unary("Unsqueeze", "kiln.unsqueeze", randomInput({3, 4}, 92),
        [](const Tensor &x) { return unsqueeze(x, {0, 2}); });
  unary("Flip", "kiln.flip", randomInput({3, 4}, 93),
        [](const Tensor &x) { return flip(x, {0, 1}); });
  unary("Repeat", "kiln.repeat", randomInput({2, 3}, 94),
        [](const Tensor &x) { return repeat(x, {2, 3}); });
  unary("Pad", "kiln.pad", randomInput({2, 3}, 95),
        [](const Tensor &x) { return pad(x, {1, 0}, {0, 2}, 0.5); });

  //===--- Indexing ---------------------------------------------------------===//
  c.push_back({"Gather",
               {"kiln.gather"},
               {randomInput({3, 5}, 100),
                indices({3, 4}, ids({0, 4, 4, 1, 2, 2, 2, 0, 3, 1, 0, 3}))},
               [](const Ts &x) { return Ts{gather(x[0], 1, x[1])}; }});
  c.push_back({"ScatterAdd",
               {"kiln.scatter_add"},
               {randomInput({5, 3}, 101),
                indices({4, 3}, ids({0, 4, 1, 4, 4, 1, 2, 0, 1, 0, 3, 3})),
                randomInput({4, 3}, 102)},
               [](const Ts &x) {
                 return Ts{scatterAdd(x[0], 0, x[1], x[2]) * x[0]};
               }});
  c.push_back({"IndexSelect",
               {"kiln.index_select"},
               {randomInput({5, 3}, 103), indices({4}, ids({4, 0, 4, 2}))},
               [](const Ts &x) { return Ts{indexSelect(x[0], 0, x[1])}; }});
  c.push_back({"IndexSelectAxis1",
               {"kiln.index_select"},
               {randomInput({2, 5, 3}, 104), indices({3}, ids({1, 1, 3}))},
               [](const Ts &x) { return Ts{indexSelect(x[0], 1, x[1])}; }});
  c.push_back({"Embedding",
               {"kiln.embedding"},
               {randomInput({6, 3}, 105),
                indices({2, 3}, ids({5, 0, 5, 2, 2, 1}))},
               [](const Ts &x) { return Ts{embedding(x[0], x[1])}; }});
  c.push_back({"Embedding1D",
               {"kiln.embedding"},
               {randomInput({6, 3}, 106), indices({4}, ids({3, 3, 0, 5}))},
               [](const Ts &x) { return Ts{embedding(x[0], x[1])}; }});
  c.push_back({"MaskFill",
               {"kiln.mask_fill"},
               {randomInput({3, 4}, 107), constant({3, 1}, {1.0, -1.0, 2.0})},
               [](const Ts &x) { return Ts{maskFill(x[0], x[1] > 0.0, -3.0)}; }});

  //===--- Neural-network ops -----------------------------------------------===//
  c.push_back({"Conv2d",
               {"kiln.conv2d"},
               {randomInput({2, 4, 5, 5}, 110), randomInput({6, 2, 3, 3}, 111),
                randomInput({6}, 112)},
               [](const Ts &x) {
                 ConvOptions o{{2, 1}, {1, 0}, {2, 1}, 2};
                 return Ts{conv2d(x[0], x[1], x[2], o)};
               }});
  c.push_back({"Conv2dNoBias",
               {"kiln.conv2d"},
               {randomInput({1, 3, 4, 4}, 113), randomInput({2, 3, 2, 2}, 114)},
               [](const Ts &x) { return Ts{conv2d(x[0], x[1])}; }});
  c.push_back({"Conv1d",
               {"kiln.conv1d"},
               {randomInput({2, 3, 7}, 115), randomInput({4, 3, 3}, 116),
                randomInput({4}, 117)},
               [](const Ts &x) {
                 ConvOptions o{{2}, {1}, {1}, 1};
                 return Ts{conv1d(x[0], x[1], x[2], o)};
               }});
  // Overlapping windows (stride 1 < kernel 3) with -inf padding.
  unary("MaxPool2d", "kiln.max_pool2d", input({1, 2, 5, 5}, distinct(50, 118)),
        [](const Tensor &x) { return maxPool2d(x, {3, 3}, {1, 2}, {1, 1}); });
  unary("AvgPool2d", "kiln.avg_pool2d", randomInput({1, 2, 5, 5}, 119),
        [](const Tensor &x) { return avgPool2d(x, {3, 2}, {2, 1}, {1, 1}); });
  unary("AvgPool2dExcludePad", "kiln.avg_pool2d",
        randomInput({2, 1, 4, 5}, 120), [](const Tensor &x) {
          return avgPool2d(x, {3, 3}, {2, 2}, {1, 1}, false);
        });
  c.push_back({"LayerNorm",
               {"kiln.layer_norm"},
               {randomInput({3, 5}, 121), randomInput({5}, 122),
                randomInput({5}, 123)},
               [](const Ts &x) { return Ts{layerNorm(x[0], x[1], x[2])}; }});
  c.push_back({"LayerNormWeightOnly",
               {"kiln.layer_norm"},
               {randomInput({2, 2, 4}, 124), randomInput({4}, 125)},
               [](const Ts &x) {
                 return Ts{layerNorm(x[0], x[1], std::nullopt, 1e-3)};
               }});
  c.push_back({"LayerNormBiasOnly",
               {"kiln.layer_norm"},
               {randomInput({3, 4}, 126), randomInput({4}, 127)},
               [](const Ts &x) {
                 return Ts{layerNorm(x[0], std::nullopt, x[1])};
               }});
  c.push_back({"RmsNorm",
               {"kiln.rms_norm"},
               {randomInput({3, 6}, 129), randomInput({6}, 130)},
               [](const Ts &x) { return Ts{rmsNorm(x[0], x[1], 1e-5)}; }});
  unary("RmsNormPlain", "kiln.rms_norm", randomInput({2, 3, 5}, 131),
        [](const Tensor &x) { return rmsNorm(x, std::nullopt, 0.0); });
  unary("Rope", "kiln.rope", randomInput({2, 3, 4}, 132),
        [](const Tensor &x) { return rope(x, 100.0); });
  unary("RopeInterleavedOffset", "kiln.rope", randomInput({3, 6}, 133),
        [](const Tensor &x) {
          return rope(x, 10.0,
                      DispatchTensor::fromVector<int64_t>({5}, {}, x.device()),
                      true);
        });
  c.push_back({"AttentionGroupedCausal",
               {"kiln.softmax"},
               {randomInput({1, 4, 3, 4}, 134), randomInput({1, 2, 3, 4}, 135),
                randomInput({1, 2, 3, 4}, 136)},
               [](const Ts &x) {
                 AttentionOptions o;
                 o.causal = true;
                 return Ts{scaledDotProductAttention(x[0], x[1], x[2], o)};
               }});
  unary("LayerNormPlain", "kiln.layer_norm", randomInput({3, 6}, 128),
        [](const Tensor &x) { return layerNorm(x, std::nullopt, std::nullopt); });
  c.push_back({"ConvTranspose2d",
               {"kiln.conv_transpose2d", "kiln.conv2d_backward_input"},
               {randomInput({2, 4, 3, 3}, 160), randomInput({4, 3, 3, 2}, 161),
                randomInput({6}, 162)},
               [](const Ts &x) {
                 ConvTransposeOptions o{{2, 1}, {1, 0}, {1, 0}, {1, 2}, 2};
                 return Ts{convTranspose2d(x[0], x[1], x[2], o)};
               }});
  c.push_back({"ConvTranspose1d",
               {"kiln.conv_transpose1d"},
               {randomInput({1, 2, 4}, 163), randomInput({2, 3, 3}, 164)},
               [](const Ts &x) {
                 ConvTransposeOptions o{{2}, {1}, {1}, {1}, 1};
                 return Ts{convTranspose1d(x[0], x[1], std::nullopt, o)};
               }});
  unary("MaxPoolDilatedCeil", "kiln.max_pool",
        input({1, 2, 6, 7}, distinct(84, 165)), [](const Tensor &x) {
          return maxPool(x, {{3, 2}, {2, 2}, {1, 1}, {2, 1}, true});
        });
  unary("MaxPool1d", "kiln.max_pool", input({2, 1, 9}, distinct(18, 166)),
        [](const Tensor &x) {
          return maxPool(x, {{3}, {2}, {1}, {1}, true});
        });
  // The indices are integers: the check goes through the values they pick.
  unary("MaxPoolIndices", "kiln.max_pool_indices",
        input({1, 1, 5, 5}, distinct(25, 167)), [](const Tensor &x) {
          Tensor where = maxPoolWithIndices(x, {{2, 2}, {2, 2}, {}, {}, true})
                             .second.reshape({1, 1, 9});
          return gather(x.reshape({1, 1, 25}), 2, where);
        });
  unary("AvgPoolCeilExcludePad", "kiln.avg_pool",
        randomInput({1, 2, 5, 6}, 168), [](const Tensor &x) {
          return avgPool(x, {{3, 2}, {2, 2}, {1, 1}, {}, true, false});
        });
  unary("AvgPool1d", "kiln.avg_pool", randomInput({2, 2, 7}, 169),
        [](const Tensor &x) {
          return avgPool(x, {{3}, {2}, {1}, {}, true});
        });
  unary("InterpolateBilinear", "kiln.interpolate",
        randomInput({1, 2, 3, 4}, 170), [](const Tensor &x) {
          return interpolate(x, {{5, 7}, {}, "bilinear", false});
        });
  unary("InterpolateAligned1d", "kiln.interpolate", randomInput({2, 1, 5}, 171),
        [](const Tensor &x) {
          return interpolate(x, {{3}, {}, "linear", true});
        });
  unary("InterpolateNearest", "kiln.interpolate",
        randomInput({1, 2, 3, 3}, 172), [](const Tensor &x) {
          return interpolate(x, {{}, {2.0, 1.5}, "nearest", false});
        });
  c.push_back({"BatchNorm",
               {"kiln.batch_norm"},
               {randomInput({2, 3, 2, 3}, 140), randomInput({3}, 141),
                randomInput({3}, 142, 0.5, 2.0), randomInput({3}, 143),
                randomInput({3}, 144)},
               [](const Ts &x) {
                 return Ts{batchNorm(x[0], x[1], x[2], x[3], x[4])};
               }});
  // Training mode: the statistics are the input's own, so its gradient
  // goes through them too.
  c.push_back({"BatchNormTraining",
               {"kiln.batch_norm"},
               {randomInput({3, 2, 5}, 145), randomInput({2}, 146),
                randomInput({2}, 147)},
               [](const Ts &x) {
                 return Ts{
                     batchNormTraining(x[0], nullptr, nullptr, x[1], x[2])};
               }});
  c.push_back({"GroupNorm",
               {"kiln.group_norm"},
               {randomInput({2, 4, 3}, 148), randomInput({4}, 149),
                randomInput({4}, 150)},
               [](const Ts &x) { return Ts{groupNorm(x[0], 2, x[1], x[2])}; }});
  unary("InstanceNorm", "kiln.group_norm", randomInput({2, 3, 2, 2}, 151),
        [](const Tensor &x) { return instanceNorm(x); });
  unary("AdaptiveAvgPool2d", "kiln.adaptive_avg_pool2d",
        randomInput({1, 2, 5, 7}, 152), [](const Tensor &x) {
          return adaptiveAvgPool2d(x, {3, 2});
        });
  unary("AdaptiveAvgPool2dGlobal", "kiln.adaptive_avg_pool2d",
        randomInput({2, 2, 3, 3}, 153), [](const Tensor &x) {
          return adaptiveAvgPool2d(x, {1, 1});
        });
  // Overlapping uneven windows (5 -> 3 rows, 7 -> 4 columns); distinct
  // values, so that no maximum ties.
  unary("AdaptiveMaxPool2d", "kiln.adaptive_max_pool2d",
        input({1, 2, 5, 7}, distinct(70, 154)), [](const Tensor &x) {
          return adaptiveMaxPool2d(x, {3, 4});
        });
  unary("AdaptiveMaxPool2dUniform", "kiln.adaptive_max_pool2d",
        input({1, 1, 4, 6}, distinct(24, 155)), [](const Tensor &x) {
          return adaptiveMaxPool2d(x, {2, 3});
        });
  c.push_back({"CrossEntropy",
               {"kiln.cross_entropy"},
               {randomInput({4, 5}, 129, -2, 2), indices({4}, ids({0, 4, 2, 2}))},
               [](const Ts &x) { return Ts{crossEntropy(x[0], x[1])}; }});
  c.push_back({"CrossEntropySmoothedIgnoredRank3",
               {"kiln.cross_entropy"},
               {randomInput({2, 5, 3}, 137, -2, 2),
                indices({2, 3}, ids({0, 4, 7, 2, 7, 1}))},
               [](const Ts &x) {
                 CrossEntropyOptions o;
                 o.ignoreIndex = 7;
                 o.labelSmoothing = 0.1;
                 return Ts{crossEntropy(x[0], x[1], o)};
               }});
  c.push_back(
      {"CrossEntropyPerElement",
       {"kiln.cross_entropy"},
       {randomInput({4, 5}, 138, -2, 2), indices({4}, ids({3, 0, 1, 4}))},
       [](const Ts &x) {
         CrossEntropyOptions o;
         o.reduction = LossReduction::None;
         return Ts{crossEntropy(x[0], x[1], o)};
       }});
  unary("SortValues", "kiln.gather", randomInput({3, 5}, 139),
        [](const Tensor &x) { return sort(x, 1, true); });
  unary("TopkValues", "kiln.gather", randomInput({4, 6}, 140),
        [](const Tensor &x) { return topk(x, 3, 0, false).first; });
  unary("Dropout", "kiln.dropout", randomInput({4, 5}, 130),
        [](const Tensor &x) { return dropout(x, 0.3, 7); });

  //===--- Graphs: reuse, fan-out, scalars, dead ends -----------------------===//
  unary("SquareXTimesX", "kiln.mul", randomInput({3, 4}, 140),
        [](const Tensor &x) { return x * x; });
  unary("SumOfTwoFunctions", "kiln.add", randomInput({3, 4}, 141),
        [](const Tensor &x) { return exp(x) + sin(x) * x; });
  // One value feeding an elementwise branch and a matmul branch.
  binary("FanOut", "kiln.matmul", randomInput({3, 4}, 142),
         randomInput({4, 4}, 143), [](const Tensor &x, const Tensor &w) {
           Tensor y = tanh(matmul(x, w));
           return y * sigmoid(y) + matmul(y, w) + sum(y, {0}, true);
         });
  binary("RankZeroScale", "kiln.mul", randomInput({}, 144),
         randomInput({2, 3}, 145),
         [](const Tensor &s, const Tensor &x) { return s * x + s * s; });
  // Comparisons, argmax and floor pass no gradient; x away from integers
  // and with distinct values in each row, so they are locally constant.
  unary("NonDifferentiablePaths", "kiln.mul",
        input({3, 4}, shifted(distinct(12, 146), 0.013)),
        [](const Tensor &x) {
          Tensor mask = cast(x > 0.0, DType::F64);
          Tensor arg = cast(argmax(x, 1, true), DType::F64);
          return x * mask + x * arg + floor(x * 4.0) * x;
        });
  // Integer indices built from a differentiated input carry nothing.
  c.push_back({"IndicesFromValues",
               {"kiln.gather"},
               {input({3, 4}, distinct(12, 147))},
               [](const Ts &x) {
                 return Ts{gather(x[0], 1, argmin(x[0], 1, true)) * 2.0};
               }});
  // In a job of one rank an all-reduce is the identity, and so is its
  // gradient (an all-reduce of the gradient); the test of a job of several
  // ranks is DataParallelGradTest (unittests/API/DistributedTest.cpp).
  unary("AllReduce", "kiln.all_reduce", randomInput({3, 4}, 151),
        [](const Tensor &x) {
          return distributed::allReduce(x * x, distributed::ReduceOp::Mean) *
                     x +
                 distributed::allReduce(x, distributed::ReduceOp::Sum);
        });
  // A residual chain of two layers with a layer norm: the tensors of a
  // training step.
  c.push_back({"ResidualBlock",
               {"kiln.layer_norm", "kiln.matmul", "kiln.gelu"},
               {randomInput({4, 6}, 148), randomInput({6, 6}, 149, -0.5, 0.5),
                randomInput({6}, 150)},
               [](const Ts &x) {
                 Tensor h = x[0];
                 for (int i = 0; i < 2; ++i)
                   h = h + gelu(matmul(layerNorm(h, x[2], std::nullopt), x[1]),
                                true);
                 return Ts{h};
               }});
  return c;
}

class GradCheck : public ::testing::TestWithParam<GradCase> {};

TEST_P(GradCheck, MatchesFiniteDifferences) {
  const GradCase &c = GetParam();
  for (CheckpointingStrategy s :
       {CheckpointingStrategy::Disabled, CheckpointingStrategy::Balanced}) {
    GradCheckResult r;
    EXPECT_TRUE(gradCheck(c.f, c.inputs, s, c.tol, c.h, &r))
        << c.name << " with " << s.str();
    std::printf("%s (%s): %zu elements, worst error %.3g of the tolerance\n",
                c.name.c_str(), s.str().c_str(), r.elements, r.worstRatio);
  }
}

INSTANTIATE_TEST_SUITE_P(Autodiff, GradCheck, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<GradCase> &info) {
                           return info.param.name;
                         });

/// Every op with a gradient rule, and every composite, has a row above.
TEST(GradCheckCoverage, EveryDifferentiableOpAndComposite) {
  std::set<std::string> checked;
  for (const GradCase &c : cases())
    checked.insert(c.ops.begin(), c.ops.end());
  auto ctx = detail::createContext();
  std::vector<std::string> missing;
  size_t rules = 0, composites = 0;
  for (mlir::RegisteredOperationName op : ctx->getRegisteredOperations()) {
    if (op.getDialectNamespace() != "kiln")
      continue;
    bool rule = op.hasInterface<mlir::kiln::DifferentiableOpInterface>();
    bool composite = op.hasTrait<mlir::kiln::OpTrait::Composite>();
    if (!rule && !composite)
      continue;
    rules += rule;
    composites += composite;
    if (!checked.count(op.getStringRef().str()))
      missing.push_back(op.getStringRef().str());
  }
  for (const std::string &m : missing)
    ADD_FAILURE() << m << " has no finite-difference check";
  std::printf("gradchecked %zu differentiable ops and %zu composites\n",
              rules, composites);
  EXPECT_GT(rules, 40u);
}

} // namespace
