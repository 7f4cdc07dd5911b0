//===- FusionDiffTest.cpp - Fused kernels, Cpu against Flex ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Graphs written to land in each kind of kernel that --kiln-fuse forms:
// elementwise chains with broadcast operands, row kernels (softmax,
// layer_norm, log_softmax, logsumexp, cross_entropy, normalizing by a row
// sum), column kernels (sums over leading and middle axes with fused
// producers), values that two kernels share, and ops that fuse with
// nothing. Each output's tolerance is the chain's, from the table.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

#include "kiln/Support/Env.h"

#include <cstdlib>

using namespace kiln;
using namespace kiln::test;

namespace {

class FusionDiffTest : public ::testing::TestWithParam<DType> {};

TEST_P(FusionDiffTest, ElementwiseChains) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(50);
    auto in = [&](Shape shape, double lo = -2, double hi = 2) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    Tensor x = in({6, 70}), y = in({6, 70}), row = in({70}), col = in({6, 1});
    s.check("chain with broadcast operands",
            tanh(x * 2.0 + row) * sigmoid(y - col) + exp(x * 0.5),
            chainTolerance({"kiln.tanh", "kiln.sigmoid", "kiln.exp", "kiln.mul",
                            "kiln.add"},
                           dtype));
    s.check("chain over views",
            gelu(x.transpose().transpose() + flip(y, {1})) -
                silu(x.slice({0, 0}, {6, 70}, {1, 1})),
            chainTolerance({"kiln.gelu", "kiln.silu", "kiln.add"}, dtype));
    s.check("chain of a rank-0 tensor",
            where(x > in({}), log1p(abs(x)), sqrt(abs(y) + 1.0) * in({})),
            chainTolerance({"kiln.log1p", "kiln.sqrt", "kiln.mul"}, dtype));
    s.check("chain through casts",
            cast(cast(x * 3.0, DType::I32), dtype) + cast(y > 0.0, dtype),
            chainTolerance({"kiln.cast", "kiln.add"}, dtype));
    s.check("rank-4 chain with size-1 dims",
            pow(abs(in({2, 1, 5, 9})) + 0.5, in({3, 1, 9})) * in({1, 3, 1, 1}),
            chainTolerance({"kiln.pow", "kiln.mul"}, dtype));
    // A value with two consumers in different kernels is computed once.
    Tensor shared = exp(x * 0.3);
    s.check("shared value", shared, tolerance("kiln.exp", dtype));
    s.check("first consumer", sum(shared * y, {1}),
            chainTolerance({"kiln.exp", "kiln.sum"}, dtype));
    s.check("second consumer", shared.transpose() - 1.0,
            chainTolerance({"kiln.exp", "kiln.sub"}, dtype));
  });
}

TEST_P(FusionDiffTest, RowKernels) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(51);
    auto in = [&](Shape shape, double lo = -2, double hi = 2) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    for (int64_t cols : {1, 7, 64, 129}) {
      std::string c = " [4, 3, " + std::to_string(cols) + "]";
      Tensor x = in({4, 3, cols}), v = in({4, 3, cols});
      s.check("kiln.softmax", dtype, "softmax times a value" + c,
              softmax(x * 1.5, -1) * v,
              chainTolerance({"kiln.softmax", "kiln.mul"}, dtype));
      s.check("kiln.log_softmax", dtype, "log_softmax of a chain" + c,
              logSoftmax(tanh(x) * 3.0, -1),
              chainTolerance({"kiln.log_softmax", "kiln.tanh"}, dtype));
      s.check("kiln.logsumexp", dtype, "logsumexp" + c,
              logsumexp(x + v, {2}),
              chainTolerance({"kiln.logsumexp", "kiln.add"}, dtype));
      s.check("kiln.layer_norm", dtype, "layer_norm + residual" + c,
              layerNorm(x, in({cols}, 0.5, 1.5), in({cols})) + v,
              chainTolerance({"kiln.layer_norm", "kiln.add"}, dtype));
      s.check("kiln.sum", dtype, "normalize by the row sum" + c,
              exp(x) / sum(exp(x), {2}, true),
              chainTolerance({"kiln.softmax", "kiln.div"}, dtype));
      s.check("kiln.reduce_max", dtype, "x - max(x) over two axes" + c,
              x - max(x, {1, 2}, true),
              chainTolerance({"kiln.sub"}, dtype));
      s.check("kiln.mean", dtype, "variance" + c,
              mean((x - mean(x, {2}, true)) * (x - mean(x, {2}, true)), {2}),
              chainTolerance({"kiln.mean", "kiln.mean", "kiln.mul"}, dtype));
    }
    // A row reduction read through a partly broadcast operand: the row
    // spans two axes and the weight varies along one of them only.
    Tensor x = in({4, 5, 6});
    s.check("kiln.sum", dtype, "sum over two axes of x * w[6]",
            sum(x * in({6}), {1, 2}),
            chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    s.check("kiln.sum", dtype, "sum over two axes of x * w[5, 1]",
            sum(x * in({5, 1}), {1, 2}, true),
            chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    // Square shapes: an operand with as many elements as there are rows is
    // not therefore a per-row value.
    s.check("kiln.sum", dtype, "sum of [5,5,5] * [5,5] over the last axis",
            sum(in({5, 5, 5}) * in({5, 5}), {2}),
            chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    s.check("kiln.softmax", dtype, "softmax of [4,4,4] + [4,4]",
            softmax(in({4, 4, 4}) + in({4, 4}), -1),
            chainTolerance({"kiln.softmax", "kiln.add"}, dtype));
    Tensor logits = in({9, 12}, -4, 4);
    Tensor labels = s.input(randomValues(rng, 9, DType::I64, 0, 11), {9},
                            DType::I64);
    s.check("kiln.cross_entropy", dtype, "cross_entropy of a scaled input",
            crossEntropy(logits * 0.5 + 1.0, labels),
            chainTolerance({"kiln.cross_entropy", "kiln.mul"}, dtype));
  });
}

TEST_P(FusionDiffTest, ColumnKernels) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(52);
    auto in = [&](Shape shape, double lo = -2, double hi = 2) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    Tensor x = in({33, 70}), y = in({33, 70});
    s.check("kiln.sum", dtype, "sum over axis 0 of x * y",
            sum(x * y, {0}), chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    s.check("kiln.sum", dtype, "sum over axis 0 keepdim of exp",
            sum(exp(x * 0.5), {0}, true),
            chainTolerance({"kiln.sum", "kiln.exp"}, dtype));
    s.check("kiln.mean", dtype, "mean over axis 0 with a broadcast row",
            mean(x + in({70}), {0}),
            chainTolerance({"kiln.mean", "kiln.add"}, dtype));
    s.check("kiln.reduce_max", dtype, "max over axis 0 of a transpose",
            max(y.transpose() * 2.0, {1}), chainTolerance({"kiln.mul"}, dtype));
    Tensor z = in({6, 7, 40});
    s.check("kiln.sum", dtype, "sum over a middle axis",
            sum(z * in({6, 1, 40}), {1}),
            chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    s.check("kiln.sum", dtype, "sum over leading axes",
            sum(tanh(z), {0, 1}), chainTolerance({"kiln.sum", "kiln.tanh"}, dtype));
    s.check("kiln.prod", dtype, "prod over axis 0",
            prod(in({5, 30}, 0.8, 1.25), {0}), tolerance("kiln.prod", dtype));
    // Leading-axis reductions with an operand partly broadcast inside the
    // columns.
    s.check("kiln.sum", dtype, "sum over axis 0 of z * w[7, 1]",
            sum(z * in({7, 1}), {0}),
            chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    s.check("kiln.sum", dtype, "sum over axes 0, 1 of z * w[40]",
            sum(z * in({40}), {0, 1}, true),
            chainTolerance({"kiln.sum", "kiln.mul"}, dtype));
    // The column sum feeds a row kernel; the row max feeds a column sum.
    s.check("kiln.sum", dtype, "column sum, then softmax",
            softmax(sum(z, {0}), -1),
            chainTolerance({"kiln.sum", "kiln.softmax"}, dtype));
    s.check("kiln.sum", dtype, "row max, then column sum",
            sum(max(z, {2}), {0}), chainTolerance({"kiln.sum"}, dtype));
  });
}

TEST_P(FusionDiffTest, OpsThatDoNotFuse) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(53);
    auto in = [&](Shape shape, double lo = -2, double hi = 2) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    Tensor x = in({5, 12});
    // Generic kernels between elementwise ones.
    s.check("kiln.cumsum", dtype, "cumsum between chains",
            cumsum(exp(x * 0.5), 1) * 0.5 + 1.0,
            chainTolerance({"kiln.cumsum", "kiln.exp"}, dtype));
    s.check("kiln.concat", dtype, "concat of kernels, then a kernel",
            tanh(concat({sigmoid(x), x * x}, 0)),
            chainTolerance({"kiln.sigmoid", "kiln.tanh", "kiln.mul"}, dtype));
    s.check("kiln.pad", dtype, "pad between chains",
            pad(relu(x), {1, 1}, {0, 2}, 0.5) - 0.25,
            chainTolerance({"kiln.sub"}, dtype));
    Tensor idx = s.input({0, 3, 3, 1}, {4}, DType::I64);
    s.check("kiln.index_select", dtype, "index_select of a kernel",
            indexSelect(x * 2.0, 0, idx) + 1.0,
            chainTolerance({"kiln.mul", "kiln.add"}, dtype));
    s.check("kiln.argmax", dtype, "argmax of a chain", argmax(x * x, 1));
    s.check("kiln.sum", dtype, "reductions of reductions",
            sum(sum(x, {1}, true) * x, {0}),
            chainTolerance({"kiln.sum", "kiln.sum", "kiln.mul"}, dtype));
    // A chain whose input is a cast from an integer buffer.
    Tensor counts = s.input(randomValues(rng, 60, DType::I32, 0, 20), {5, 12},
                            DType::I32);
    s.check("kiln.cast", dtype, "chain from integers",
            log1p(cast(counts, dtype)) * x,
            chainTolerance({"kiln.log1p", "kiln.mul"}, dtype));
  });
}

// Outputs of 16 MiB and more from light ops leave the Cpu kernels through
// stack blocks and non-temporal stores: whole blocks, a short last block,
// rows that start mid-line (1025 columns), 4- and 8-byte elements.
// KILN_STREAM_STORES=1 asks for them whatever the host prefers.
TEST(FusionDiffTest, StreamedOutputs) {
  ASSERT_EQ(setenv("KILN_STREAM_STORES", "1", 1), 0);
  ASSERT_EQ(env::streamStores(), std::optional<bool>(true));
  compareOnDevices([&](Side &s) {
    Rng rng(54);
    auto in = [&](Shape shape, DType dtype) {
      return s.input(randomValues(rng, shape.numel(), dtype, -2, 2), shape,
                     dtype);
    };
    const int64_t n = (int64_t(1) << 22) + 13;
    Tensor x = in({n}, DType::F32), y = in({n}, DType::F32);
    s.check("kiln.add", DType::F32, "x * 2 + y, 16 MiB",
            x * 2.0 + y, chainTolerance({"kiln.mul", "kiln.add"}, DType::F32));
    Tensor i = in({n}, DType::I32), j = in({n}, DType::I32);
    s.check("kiln.add", DType::I32, "i * 3 + j, 16 MiB", i * 3 + j);
    Tensor d = in({n / 2}, DType::F64), e = in({n / 2}, DType::F64);
    s.check("kiln.sub", DType::F64, "d - e * e, 16 MiB", d - e * e,
            chainTolerance({"kiln.mul", "kiln.sub"}, DType::F64));
    Tensor rows = in({4099, 1025}, DType::F32), v = in({4099, 1025}, DType::F32);
    s.check("kiln.layer_norm", DType::F32, "layer_norm + residual, 16 MiB",
            layerNorm(rows, std::nullopt, std::nullopt) + v,
            chainTolerance({"kiln.layer_norm", "kiln.add"}, DType::F32));
    // Exponentials are streamed too: blocks that start on a line by the
    // kernel's vector stores, the last (13 elements) by the runtime's copy.
    s.check("kiln.exp", DType::F32, "exp(x) * y, 16 MiB", exp(x) * y,
            chainTolerance({"kiln.exp", "kiln.mul"}, DType::F32));
    // The exponentials go to a row of scratch and the output is streamed;
    // rows too long for the scratch keep them in the output row. Rows of
    // 4099 start off a line (the runtime's copy), rows of 4096 on one.
    s.check("kiln.softmax", DType::F32, "softmax, 16 MiB",
            softmax(in({1025, 4099}, DType::F32), 1));
    s.check("kiln.softmax", DType::F32, "softmax, rows of whole lines",
            softmax(in({1024, 4096}, DType::F32), 1));
    s.check("kiln.softmax", DType::F32, "softmax of rows past the scratch",
            softmax(in({3, 70001}, DType::F32), 1));
  });
  unsetenv("KILN_STREAM_STORES");
}

INSTANTIATE_TEST_SUITE_P(Floats, FusionDiffTest,
                         ::testing::ValuesIn(floatDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace
