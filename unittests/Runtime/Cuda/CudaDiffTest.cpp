//===- CudaDiffTest.cpp - Cuda against Flex through the public API --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each check builds one graph on Flex (the reference) and on cuda:0 from
// the same bits (the inputs are made on Flex and moved with to()),
// materializes every output of a side with one sync, and compares them
// under the tolerance table of NumericTest.h. The suite covers each kernel
// kind the GPU generator has: elementwise (scalar and vector), broadcasts,
// row, column and split reductions, softmax and layer_norm rows, matmul
// (tensor cores, epilogues, batches, a dequantized operand) and the generic
// kernels through linalg. Where there is no GPU every test skips, saying
// why.
//
//===----------------------------------------------------------------------===//

#include "NumericTest.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

using namespace kiln;
using namespace kiln::test;

namespace {

struct Input {
  DType dtype;
  Shape shape;
  double lo = -1, hi = 1; ///< uniform values (integers: whole numbers)
};

using Graph = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

/// SplitMix64, so that the inputs are the same everywhere.
struct Rng {
  uint64_t s;
  double uniform(double lo, double hi) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1.0p-53;
  }
};

class CudaVsFlex : public ::testing::Test {
protected:
  void SetUp() override {
    try {
      gpu = DispatchDevice::cuda(0);
    } catch (const Error &e) {
      // utils/gpu-check.sh sets KILN_REQUIRE_GPU: there a skip would hide
      // a broken driver setup behind a green run.
      if (std::getenv("KILN_REQUIRE_GPU"))
        FAIL() << "KILN_REQUIRE_GPU is set but no CUDA GPU: " << e.what();
      GTEST_SKIP() << "no CUDA GPU: " << e.what();
    }
  }

  /// Runs `g` on Flex and on the GPU and compares output i within tol[i]
  /// (the last tolerance repeats).
  void check(const std::vector<Input> &inputs, const Graph &g,
             std::vector<Tolerance> tol, uint64_t seed = 1) {
    Rng rng{seed};
    std::vector<Tensor> onFlex, onGpu;
    for (const Input &in : inputs) {
      std::vector<double> v(in.shape.numel());
      for (double &x : v) {
        x = rng.uniform(in.lo, in.hi);
        if (in.dtype.isInteger() || in.dtype.isBool())
          x = std::floor(x);
      }
      Tensor t = tensorOf(v, in.shape, in.dtype, DispatchDevice::flex());
      onFlex.push_back(t);
      onGpu.push_back(t.to(*gpu));
    }
    std::vector<Tensor> want = g(onFlex), got = g(onGpu);
    ASSERT_EQ(want.size(), got.size());
    for (const Tensor &t : got)
      EXPECT_EQ(t.device(), *gpu);
    sync(got);
    for (size_t i = 0; i < want.size(); ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      EXPECT_EQ(got[i].shape(), want[i].shape());
      EXPECT_EQ(got[i].dtype(), want[i].dtype());
      Tolerance t = tol[std::min(i, tol.size() - 1)];
      EXPECT_TRUE(allClose(valuesOf(got[i]), valuesOf(want[i]), t));
    }
  }

  static Tolerance tolOf(const char *op, DType dtype = DType::F32) {
    return tolerance(op, dtype);
  }

  std::optional<DispatchDevice> gpu;
};

const Tolerance kExact{0, 0};

TEST_F(CudaVsFlex, TransfersKeepEveryBit) {
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                  DType::I32, DType::I16, DType::I8, DType::U8, DType::Bool}) {
    SCOPED_TRACE(d.str());
    check({{d, {3, 5, 7}, -100, 100}},
          [](const std::vector<Tensor> &x) { return std::vector{x[0]}; },
          {kExact});
  }
}

TEST_F(CudaVsFlex, UnaryF32) {
  std::vector<const char *> ops = {
      "kiln.neg",  "kiln.abs",     "kiln.exp",   "kiln.log",  "kiln.log1p",
      "kiln.sqrt", "kiln.rsqrt",   "kiln.recip", "kiln.sin",  "kiln.cos",
      "kiln.tanh", "kiln.sigmoid", "kiln.erf",   "kiln.relu", "kiln.gelu",
      "kiln.gelu", "kiln.silu",    "kiln.floor", "kiln.ceil", "kiln.round",
      "kiln.sign", "kiln.clamp"};
  std::vector<Tolerance> tol;
  for (const char *op : ops)
    tol.push_back(tolOf(op));
  tol.push_back(kExact); // is_nan
  // 1023 is not a multiple of the vector width: the scalar path.
  for (Shape s : {Shape{8, 1024}, Shape{3, 1023}}) {
    SCOPED_TRACE(s.str());
    check({{DType::F32, s, -4, 4}, {DType::F32, s, 0.01, 8}},
          [](const std::vector<Tensor> &in) {
            const Tensor &x = in[0], &p = in[1];
            return std::vector{neg(x),     abs(x),     exp(x),
                               log(p),     log1p(p),   sqrt(p),
                               rsqrt(p),   recip(p),   sin(x),
                               cos(x),     tanh(x),    sigmoid(x),
                               erf(x),     relu(x),    gelu(x),
                               gelu(x, true), silu(x), floor(x),
                               ceil(x),    round(x),   sign(x),
                               clamp(x, -0.5, 0.5),    isNan(log(x))};
          },
          tol);
  }
}

TEST_F(CudaVsFlex, BinaryWithBroadcasting) {
  std::vector<Tolerance> tol = {
      tolOf("kiln.add"), tolOf("kiln.sub"), tolOf("kiln.mul"),
      tolOf("kiln.div"), tolOf("kiln.pow"), tolOf("kiln.max"),
      tolOf("kiln.min"), tolOf("kiln.rem"), tolOf("kiln.atan2")};
  for (Shape rhs : {Shape{33, 64}, Shape{64}, Shape{33, 1}, Shape{}}) {
    SCOPED_TRACE(rhs.str());
    check({{DType::F32, {33, 64}, 0.1, 3}, {DType::F32, rhs, -3, 3}},
          [](const std::vector<Tensor> &in) {
            const Tensor &x = in[0], &y = in[1];
            return std::vector{add(x, y),     sub(x, y), mul(x, y),
                               div(x, y),     pow(x, y), maximum(x, y),
                               minimum(x, y), rem(x, y), atan2(x, y)};
          },
          tol);
  }
  // pow of negative bases: odd and even integer exponents keep C's signs.
  check({{DType::F32, {64}, -3, 3}},
        [](const std::vector<Tensor> &in) {
          return std::vector{pow(in[0], 2.0), pow(in[0], 3.0),
                             pow(in[0], 0.5)};
        },
        {tolOf("kiln.pow")});
}

TEST_F(CudaVsFlex, OtherDTypes) {
  for (DType d : {DType::F64, DType::F16, DType::BF16, DType::I64,
                  DType::I32, DType::I8, DType::U8}) {
    SCOPED_TRACE(d.str());
    bool isFloat = d.isFloat();
    check({{d, {17, 40}, isFloat ? -4.0 : 0.0, isFloat ? 4.0 : 60.0},
           {d, {40}, isFloat ? 0.5 : 1.0, isFloat ? 4.0 : 9.0}},
          [](const std::vector<Tensor> &in) {
            const Tensor &x = in[0], &y = in[1];
            return std::vector{add(x, y), mul(x, y), div(x, y), rem(x, y),
                               maximum(x, y), lt(x, y), eq(x, x),
                               cast(x, DType::F32), cast(y, DType::I32),
                               where(gt(x, y), x, y), abs(x)};
          },
          {tolOf("kiln.div", d)});
  }
  check({{DType::Bool, {100}, 0, 2}, {DType::Bool, {100}, 0, 2}},
        [](const std::vector<Tensor> &in) {
          return std::vector{logicalAnd(in[0], in[1]),
                             logicalOr(in[0], in[1]), logicalNot(in[0]),
                             cast(in[0], DType::F32)};
        },
        {kExact});
}

TEST_F(CudaVsFlex, FusedChains) {
  // One kernel: a broadcast bias, a scalar and a transcendental, vectorized.
  check({{DType::F32, {64, 256}}, {DType::F32, {256}}},
        [](const std::vector<Tensor> &in) {
          return std::vector{tanh(in[0] * 0.5 + in[1]) * 2.0 - in[0]};
        },
        {{1e-5, 1e-5}});
  // Half precision computes in f32 and rounds once.
  check({{DType::F16, {64, 256}}, {DType::BF16, {64, 256}}},
        [](const std::vector<Tensor> &in) {
          return std::vector{exp(in[0]) * in[0], sigmoid(in[1]) + in[1]};
        },
        {tolOf("kiln.exp", DType::F16), tolOf("kiln.sigmoid", DType::BF16)});
}

TEST_F(CudaVsFlex, RowReductions) {
  Tolerance sumTol = tolOf("kiln.sum");
  for (Shape s : {Shape{37, 1000}, Shape{4, 3, 50}, Shape{300, 7}}) {
    SCOPED_TRACE(s.str());
    int64_t last = s.rank() - 1;
    check({{DType::F32, s, 0.5, 1.5}},
          [last](const std::vector<Tensor> &in) {
            const Tensor &x = in[0];
            return std::vector{
                sum(x, {last}),         mean(x, {last}, true),
                prod(sum(x, {last}, true) * 0.0 + x, {last}),
                max(x, {last}),         min(x, {last}, true),
                any(x > 1.4, {last}), all(x > 0.6, {last})};
          },
          {sumTol, sumTol, {1e-4, 1e-4}, kExact});
  }
}

TEST_F(CudaVsFlex, ColumnAndMiddleReductions) {
  Tolerance sumTol = tolOf("kiln.sum");
  check({{DType::F32, {500, 33}, 0, 1}},
        [](const std::vector<Tensor> &in) {
          return std::vector{sum(in[0], {0}), max(in[0], {0}, true),
                             mean(in[0], {0})};
        },
        {sumTol});
  check({{DType::F32, {6, 70, 9}, 0, 1}},
        [](const std::vector<Tensor> &in) {
          return std::vector{sum(exp(in[0]), {1}), min(in[0], {1})};
        },
        {tolOf("kiln.exp")});
  check({{DType::I32, {40, 30}, -50, 50}},
        [](const std::vector<Tensor> &in) {
          return std::vector{sum(in[0], {0}), sum(in[0], {1}),
                             max(in[0], {0})};
        },
        {kExact});
}

TEST_F(CudaVsFlex, LongReductionsSplitOverBlocks) {
  // A full reduction and a few long rows take the two-launch path.
  check({{DType::F32, {1 << 20}, 0, 1}},
        [](const std::vector<Tensor> &in) {
          return std::vector{sum(in[0]), max(in[0]), mean(in[0] * in[0])};
        },
        {{1e-3, 1e-4}});
  check({{DType::F32, {3, 200000}, 0, 1}},
        [](const std::vector<Tensor> &in) {
          return std::vector{sum(in[0], {1}), min(in[0], {1})};
        },
        {{1e-3, 1e-4}});
}

TEST_F(CudaVsFlex, SoftmaxAndFriends) {
  for (Shape s : {Shape{37, 1000}, Shape{8, 32}, Shape{2, 50000}}) {
    SCOPED_TRACE(s.str());
    check({{DType::F32, s, -8, 8}},
          [](const std::vector<Tensor> &in) {
            return std::vector{softmax(in[0]), logSoftmax(in[0]),
                               logsumexp(in[0], {1})};
          },
          {{1e-6, 2e-5}, {2e-5, 2e-5}});
  }
}

TEST_F(CudaVsFlex, LayerNorm) {
  for (Shape s : {Shape{64, 768}, Shape{5, 33}}) {
    SCOPED_TRACE(s.str());
    int64_t n = s.dims().back();
    check({{DType::F32, s, -3, 3}, {DType::F32, {n}}, {DType::F32, {n}}},
          [](const std::vector<Tensor> &in) {
            return std::vector{layerNorm(in[0], in[1], in[2]),
                               layerNorm(in[0], std::nullopt, std::nullopt)};
          },
          {{1e-4, 1e-4}});
  }
}

TEST_F(CudaVsFlex, Matmul) {
  Tolerance mm = tolOf("kiln.matmul");
  // Edges in every dim, a K that is not a multiple of the tile.
  check({{DType::F32, {65, 37}}, {DType::F32, {37, 129}}},
        [](const std::vector<Tensor> &in) {
          return std::vector{matmul(in[0], in[1])};
        },
        {mm});
  check({{DType::F32, {512, 512}}, {DType::F32, {512, 256}}},
        [](const std::vector<Tensor> &in) {
          return std::vector{matmul(in[0], in[1])};
        },
        {{2e-4, 1e-4}});
  // Batched with broadcast batch dims, and an epilogue fused on the tile.
  check({{DType::F32, {3, 1, 40, 30}},
         {DType::F32, {5, 30, 20}},
         {DType::F32, {20}}},
        [](const std::vector<Tensor> &in) {
          Tensor c = matmul(in[0], in[1]);
          return std::vector{c, gelu(c + in[2], true)};
        },
        {mm, {1e-4, 1e-4}});
  // A vector operand, and a transposed one (a layout copy first).
  check({{DType::F32, {16, 24}}, {DType::F32, {24}}, {DType::F32, {10, 24}}},
        [](const std::vector<Tensor> &in) {
          return std::vector{matmul(in[0], in[1]),
                             matmul(in[0], transpose(in[2], 0, 1))};
        },
        {mm});
}

TEST_F(CudaVsFlex, MatmulOfOtherDTypes) {
  for (DType d : {DType::F64, DType::F16, DType::I32}) {
    SCOPED_TRACE(d.str());
    check({{d, {9, 12}, -4, 4}, {d, {12, 7}, -4, 4}},
          [](const std::vector<Tensor> &in) {
            return std::vector{matmul(in[0], in[1])};
          },
          {tolOf("kiln.matmul", d)});
  }
}

TEST_F(CudaVsFlex, DequantizedMatmul) {
  for (QuantScheme::Values v :
       {QuantScheme::Values::Q8, QuantScheme::Values::Q4}) {
    check({{DType::F32, {8, 64}}, {DType::F32, {64, 32}}},
          [v](const std::vector<Tensor> &in) {
            QuantScheme q;
            q.values = v;
            q.blockSize = 32;
            Tensor w = dequantize(quantize(in[1], q));
            return std::vector{matmul(in[0], w), w};
          },
          {tolOf("kiln.matmul"), tolOf("kiln.dequantize")});
  }
}

TEST_F(CudaVsFlex, GenericKernels) {
  // Indexing.
  check({{DType::F32, {6, 8}}, {DType::I64, {6, 3}, 0, 8}},
        [](const std::vector<Tensor> &in) {
          const Tensor &x = in[0], &i = in[1];
          Tensor rows = DispatchTensor::fromVector<int64_t>(
              {5, 0, 2}, {3}, x.device());
          Tensor labels = DispatchTensor::fromVector<int64_t>(
              {1, 7, 3, 0, 2, 6}, {6}, x.device());
          return std::vector{
              gather(x, 1, i),
              scatterAdd(x, 1, i, gather(x, 1, i) * 2.0),
              indexSelect(x, 0, rows),
              maskFill(x, x > 0.5, -9.0),
              oneHot(labels, 8),
              embedding(x, i),
              crossEntropy(x, labels)};
        },
        {{1e-6, 1e-5}});
  // Scans and arg reductions.
  check({{DType::F32, {7, 33}}},
        [](const std::vector<Tensor> &in) {
          return std::vector{cumsum(in[0], 1), cumsum(in[0], 0),
                             argmax(in[0], 1), argmin(in[0], 0, true)};
        },
        {tolOf("kiln.cumsum"), tolOf("kiln.cumsum"), kExact});
  // Layout: copies, pads and concatenations.
  check({{DType::F32, {4, 6, 5}}, {DType::F32, {4, 2, 5}}},
        [](const std::vector<Tensor> &in) {
          const Tensor &x = in[0];
          std::vector<Tensor> parts = split(x, {2, 4}, 1);
          return std::vector{permute(x, {2, 0, 1}),
                             slice(x, {1, 0, 0}, {4, 6, 5}, {2, 3, 1}),
                             flip(x, {0, 2}),
                             concat({x, in[1]}, 1),
                             pad(x, {0, 1, 2}, {1, 0, 0}, -1.0),
                             repeat(in[1], {1, 2, 3}),
                             parts[0] + 0.0,
                             parts[1],
                             sliceAssign(x, in[1], {0, 1, 0}, {4, 3, 5}),
                             reshape(exp(x), {20, 6}),
                             expand(in[1].slice({0, 0, 0}, {1, 2, 5}),
                                    {3, 2, 5}) * 1.0};
        },
        {tolOf("kiln.exp")});
  // Convolution and pooling.
  check({{DType::F32, {2, 3, 10, 9}}, {DType::F32, {4, 3, 3, 3}},
         {DType::F32, {4}}},
        [](const std::vector<Tensor> &in) {
          ConvOptions o;
          o.stride = {2, 1};
          o.padding = {1, 1};
          return std::vector{conv2d(in[0], in[1], in[2], o),
                             maxPool2d(in[0], {2, 2}),
                             avgPool2d(in[0], {3, 3}, {2, 2}, {1, 1})};
        },
        {tolOf("kiln.conv2d"), kExact, tolOf("kiln.avg_pool2d")});
}

TEST_F(CudaVsFlex, Creation) {
  // Counter-based random numbers are the same on every backend.
  auto make = [](const DispatchDevice &d) {
    return std::vector{
        DispatchTensor::arange(0.0, 10.0, 0.5, DType::F32, d),
        DispatchTensor::eye(5, 7, DType::F32, d),
        DispatchTensor::full({3, 4}, 2.5, DType::BF16, d),
        DispatchTensor::rand({1000}, DType::F32, d, 7),
        DispatchTensor::randn({1000}, DType::F32, d, 9, 1.0, 2.0),
        dropout(DispatchTensor::ones({500}, DType::F32, d), 0.3, 5)};
  };
  std::vector<Tensor> want = make(DispatchDevice::flex()), got = make(*gpu);
  sync(got);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(allClose(valuesOf(got[i]), valuesOf(want[i]), {1e-6, 1e-5}))
        << "output " << i;
}

TEST_F(CudaVsFlex, RepeatedStepsCompileOnce) {
  Tensor x = DispatchTensor::ones({256, 256}, DType::F32, *gpu);
  BackendCounters before = backendCounters(*gpu);
  for (int i = 0; i < 3; ++i)
    x = softmax(x * 1.5 + 0.25).detach();
  sync({x});
  BackendCounters after = backendCounters(*gpu);
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.cacheHits - before.cacheHits, 2);
  std::vector<float> v = x.toVector<float>();
  EXPECT_NEAR(v[0], 1.0f / 256, 1e-6);
}

TEST_F(CudaVsFlex, MemoryIsReusedAndAccounted) {
  resetPeakMemory(*gpu);
  MemoryStats start = memoryStats(*gpu);
  {
    Tensor a = DispatchTensor::ones({1 << 20}, DType::F32, *gpu);
    for (int i = 0; i < 4; ++i)
      a = exp(a * 0.5);
    sync({a});
    EXPECT_GE(memoryStats(*gpu).currentBytes - start.currentBytes,
              int64_t(4) << 20);
  }
  EXPECT_EQ(memoryStats(*gpu).currentBytes, start.currentBytes);
}

} // namespace
