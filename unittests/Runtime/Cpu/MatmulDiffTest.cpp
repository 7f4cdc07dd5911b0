//===- MatmulDiffTest.cpp - Matmul and quantization, Cpu against Flex -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// matmul for every numeric dtype (f32 takes the packed micro-kernel, the
// others the generic path), with shapes that leave partial register tiles
// and K slices, batched and broadcast batch dims, 1-D operands, strided
// operands, epilogues (bias, gelu, residual) that fuse into the tile
// store, and prologues (elementwise producers of the left operand) that
// fuse into packing it. quantize and dequantize for every scheme and scale
// dtype, and a dequantize that the matmul unpacks while packing B.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

using namespace kiln;
using namespace kiln::test;

namespace {

class MatmulDiffTest : public ::testing::TestWithParam<DType> {};

TEST_P(MatmulDiffTest, Shapes) {
  DType dtype = GetParam();
  if (dtype.isBool())
    GTEST_SKIP() << "matmul takes numeric dtypes";
  // Integer products stay small enough for i8 accumulators of short K.
  double lo = dtype.isInteger() ? (dtype == DType::U8 ? 0 : -2) : -1;
  double hi = dtype.isInteger() ? 2 : 1;
  compareOnDevices([&](Side &s) {
    Rng rng(20);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    auto check = [&](const std::string &label, const Tensor &t) {
      s.check("kiln.matmul", dtype, "kiln.matmul " + label, t);
    };
    check("[1,1] x [1,1]", matmul(in({1, 1}), in({1, 1})));
    check("[7,5] x [5,3]", matmul(in({7, 5}), in({5, 3})));
    check("[13,129] x [129,37]", matmul(in({13, 129}), in({129, 37})));
    check("[64,64] x [64,64]", matmul(in({64, 64}), in({64, 64})));
    check("[9,17] x [17,33]", matmul(in({9, 17}), in({17, 33})));
    if (dtype == DType::F32) {
      // Several K slices and row blocks of the packed kernel; work units
      // that split the rows (few columns) or the columns (a partial last
      // column block and a partial last panel).
      check("[300,600] x [600,40]", matmul(in({300, 600}), in({600, 40})));
      check("[150,300] x [300,600]", matmul(in({150, 300}), in({300, 600})));
      check("batched [3,40,520] x [520,200]",
            matmul(in({3, 40, 520}), in({520, 200})));
      // One or two column panels: A is read in place, unpacked (a partial
      // last row panel, A broadcast over the batch; K in one slice, and
      // 9000 in several: 3 slices of 3000 on 32-lane panels, 2 on 16).
      check("A in place, broadcast [45,700] x [3,700,20]",
            matmul(in({45, 700}), in({3, 700, 20})));
      // (B scaled down, so that the sums' rounding stays below the
      // tolerance.)
      check("A in place, deep [10,9000] x [9000,20]",
            matmul(in({10, 9000}), in({9000, 20}) * 0.02));
      check("A in place, batched [2,29,300] x [2,300,60]",
            matmul(in({2, 29, 300}), in({2, 300, 60})));
      // A few rows: B streamed, not packed. Row-major B whose columns end
      // in a partial unit of vectors; a transposed B (a Linear's [out, in]
      // weight), one or two rows, with a bias and an activation after.
      check("few rows [3,100] x [100,80]", matmul(in({3, 100}), in({100, 80})));
      check("few rows [1,64] x [64,688]", matmul(in({1, 64}), in({64, 688})));
      check("few rows, transposed [1,256] x [688,256]^T",
            matmul(in({1, 256}), in({688, 256}).transpose()));
      check("few rows, transposed [1,1,96] x [48,96]^T + bias, silu",
            silu(matmul(in({1, 1, 96}), in({48, 96}).transpose()) + in({48})));
      check("few rows, transposed [2,64] x [40,64]^T",
            matmul(in({2, 64}), in({40, 64}).transpose()));
      // Batches of matmuls of a few rows (attention's products when one
      // token is decoded): B per matmul, row-major or transposed, and an
      // epilogue operand that varies along the batch.
      check("few rows, batched [1,2,4,300] x [1,2,300,32]",
            matmul(in({1, 2, 4, 300}), in({1, 2, 300, 32})));
      check("few rows, batched transposed [2,1,64] x [2,48,64]^T",
            matmul(in({2, 1, 64}), in({2, 48, 64}).transpose()));
      check("few rows, batched [3,2,40] x [3,40,80] + [3,2,80] + [80]",
            matmul(in({3, 2, 40}), in({3, 40, 80})) + in({3, 2, 80}) +
                in({80}));
      // Q K^T when one token is decoded: 4 rows per matmul against a
      // transposed B, A computed by elementwise ops while it is read.
      check("few rows, batched transposed with a prologue "
            "([1,2,4,32] + [1,2,4,32]) x [1,2,512,32]^T",
            matmul(in({1, 2, 4, 32}) + in({1, 2, 4, 32}),
                   in({1, 2, 512, 32}).transpose()));
      check("few rows, transposed with a scalar prologue [3,64] * 0.5 x "
            "[40,64]^T",
            matmul(in({3, 64}) * 0.5, in({48, 64}).transpose()));
    }
    check("batched [2,3,6,7] x [2,3,7,5]",
          matmul(in({2, 3, 6, 7}), in({2, 3, 7, 5})));
    check("broadcast batch [1,6,7] x [4,7,5]",
          matmul(in({1, 6, 7}), in({4, 7, 5})));
    check("broadcast rhs [3,6,7] x [7,5]", matmul(in({3, 6, 7}), in({7, 5})));
    check("broadcast lhs [6,7] x [2,7,5]", matmul(in({6, 7}), in({2, 7, 5})));
    check("[2,1,6,7] x [3,7,5]", matmul(in({2, 1, 6, 7}), in({3, 7, 5})));
    check("vector x matrix", matmul(in({7}), in({7, 5})));
    check("matrix x vector", matmul(in({6, 7}), in({7})));
    check("vector x vector", matmul(in({33}), in({33})));
    check("batched x vector", matmul(in({2, 6, 7}), in({7})));
    // Strided operands: the packing reads views.
    check("transposed rhs", matmul(in({6, 7}), in({5, 7}).transpose()));
    check("transposed lhs", matmul(in({7, 6}).transpose(), in({7, 5})));
    if (dtype == DType::F32) {
      // Transposes the packed kernel reads while packing (on Cpu they join
      // the matmul's kernel): several K slices and row blocks, partial
      // tiles, both operands, batched and broadcast.
      check("transposed rhs, several K slices",
            matmul(in({300, 600}), in({37, 600}).transpose()));
      check("transposed rhs, several column blocks",
            matmul(in({70, 300}), in({600, 300}).transpose()));
      check("transposed lhs, several K slices",
            matmul(in({600, 300}).transpose(), in({600, 40})));
      check("both transposed",
            matmul(in({300, 25}).transpose(), in({33, 300}).transpose()));
      check("batched, both transposed",
            matmul(in({2, 9, 14}).transpose(), in({2, 21, 9}).transpose()));
      check("broadcast transposed rhs",
            matmul(in({3, 13, 20}), in({17, 20}).transpose()));
    }
    check("flipped and sliced",
          matmul(flip(in({6, 7}), {0}), in({7, 10}).slice({0, 0}, {7, 10},
                                                          {1, 2})));
  });
}

TEST_P(MatmulDiffTest, Epilogues) {
  DType dtype = GetParam();
  if (!dtype.isFloat())
    GTEST_SKIP() << "the epilogues here are float ops";
  compareOnDevices([&](Side &s) {
    Rng rng(21);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, -1, 1), shape,
                     dtype);
    };
    // The matmul's tolerance bounds its error; the epilogue ops have
    // derivatives of at most ~1.2 and add their own few ulps.
    Tolerance tol = tolerance("kiln.matmul", dtype);
    Tensor a = in({19, 40}), b = in({40, 45}), bias = in({45});
    Tensor residual = in({19, 45});
    Tensor mm = matmul(a, b);
    s.check("kiln.matmul", dtype, "matmul + bias", mm + bias);
    s.check("kiln.gelu", dtype, "gelu(matmul + bias)", gelu(matmul(a, b) + bias));
    s.check("matmul + bias -> gelu -> + residual",
            gelu(matmul(a, b) + bias) + residual, tol);
    s.check("tanh gelu, scaled residual",
            gelu(matmul(a, b) + bias, true) * 0.5 + residual, tol);
    s.check("column bias and relu",
            relu(matmul(a, b) + in({19, 1})), tol);
    s.check("silu with a rank-0 scale",
            silu(matmul(a, b) * in({})), tol);
    s.check("batched, broadcast bias",
            gelu(matmul(in({3, 8, 16}), in({16, 24})) + in({1, 1, 24})), tol);
    // The matmul's value is also an output: it cannot stay in registers.
    Tensor shared = matmul(in({8, 12}), in({12, 10}));
    s.check("kiln.matmul", dtype, "shared matmul", shared);
    s.check("epilogue of a shared matmul", sigmoid(shared + 1.0), tol);
    // An epilogue on a matmul whose operands are themselves fused values.
    s.check("operands from elementwise kernels",
            matmul(tanh(in({10, 20})), exp(in({20, 9}) * 0.5)) - 1.0, tol);
    // Transposed operands with a residual that varies along rows and
    // columns (its tile rows are prefetched before the last K slice).
    s.check("transposed operands + scaled residual",
            matmul(in({40, 19}).transpose(), in({45, 40}).transpose()) * 0.5 +
                residual,
            tol);
    // Two matmuls in a chain, the second reading the first's epilogue.
    s.check("two chained matmuls",
            matmul(relu(matmul(in({6, 8}), in({8, 8})) + 0.1), in({8, 4})),
            tolerance("kiln.matmul", dtype));
  });
}

TEST(MatmulDiffTest, QuantizeAndDequantize) {
  std::vector<QuantScheme> schemes = {
      QuantScheme::q8PerTensor(),
      QuantScheme::q8Block(32),
      QuantScheme::q4Block(32),
      QuantScheme::q8Block(16, DTypeKind::F16),
      QuantScheme::q4Block(64, DTypeKind::BF16),
      QuantScheme::q8PerTensor(DTypeKind::F64),
  };
  compareOnDevices([&](Side &s) {
    Rng rng(22);
    for (DType dtype : floatDTypes()) {
      Tensor x = s.input(randomValues(rng, 6 * 64, dtype, -3, 3), {6, 64},
                         dtype);
      for (const QuantScheme &q : schemes) {
        std::string label = dtype.str() + " " + q.str();
        Tensor qx = quantize(x, q);
        // The quantized tensor itself: its levels and its scales.
        s.check("kiln.quantize", dtype, "kiln.quantize " + label, qx);
        for (DType to : floatDTypes())
          s.check("kiln.dequantize", to,
                  "kiln.dequantize " + label + " -> " + to.str(),
                  dequantize(qx, to));
      }
    }
  });
}

TEST(MatmulDiffTest, DequantizeFeedsMatmul) {
  std::vector<QuantScheme> schemes = {
      QuantScheme::q8PerTensor(), QuantScheme::q8Block(32),
      QuantScheme::q4Block(32), QuantScheme::q8Block(64, DTypeKind::F16),
      QuantScheme::q4Block(16, DTypeKind::BF16)};
  compareOnDevices([&](Side &s) {
    Rng rng(23);
    Tensor a = s.input(randomValues(rng, 11 * 64, DType::F32, -1, 1), {11, 64},
                       DType::F32);
    Tensor w = s.input(randomValues(rng, 64 * 128, DType::F32, -1, 1), {64, 128},
                       DType::F32);
    Tensor bias = s.input(randomValues(rng, 128, DType::F32, -1, 1), {128},
                          DType::F32);
    for (const QuantScheme &q : schemes) {
      // The quantized weight is materialized first, as a model loads it.
      Tensor wq = quantize(w, q);
      wq.sync();
      std::string label = q.str();
      s.check("kiln.matmul", DType::F32, "matmul(a, dequantize) " + label,
              matmul(a, dequantize(wq)));
      s.check("dequantized matmul + bias, gelu " + label,
              gelu(matmul(a, dequantize(wq)) + bias),
              tolerance("kiln.matmul", DType::F32));
      s.check("batched lhs " + label,
              matmul(a.reshape({1, 11, 64}).expand({2, 11, 64}) * 0.5,
                     dequantize(wq)),
              tolerance("kiln.matmul", DType::F32));
      // One row (decoding): B streamed in units of vectors, the last unit
      // partial.
      s.check("one row " + label,
              matmul(a.slice({0, 0}, {1, 64}), dequantize(wq)) + bias,
              tolerance("kiln.matmul", DType::F32));
    }
    // Rows [r0, r1) of A times `weight` quantized with `scheme`, the
    // quantized weight materialized first.
    auto rowsTimes = [&](const std::string &label, int64_t r0, int64_t r1,
                         const Tensor &weight, const QuantScheme &scheme) {
      Tensor wq = quantize(weight, scheme);
      wq.sync();
      s.check(label, matmul(a.slice({r0, 0}, {r1, 64}), dequantize(wq)),
              tolerance("kiln.matmul", DType::F32));
    };
    // Blocks of 16 over 80 columns: 5 vectors of one unit.
    rowsTimes("one row, q8 blocks of 16, 80 columns", 2, 3,
              w.slice({0, 0}, {64, 80}), QuantScheme::q8Block(16));
    // Blocks longer than a unit of 256-bit vectors (their scales are not
    // folded into A there), for one row and for three.
    rowsTimes("one row, q8 blocks of 128", 4, 5, w, QuantScheme::q8Block(128));
    // Blocks of 48 over 144 columns: units of 64 columns straddle them.
    rowsTimes("one row, q8 blocks of 48 that units straddle", 3, 4,
              s.input(randomValues(rng, 64 * 144, DType::F32, -1, 1), {64, 144},
                      DType::F32),
              QuantScheme::q8Block(48));
    rowsTimes("three rows, q8 blocks of 64", 5, 8, w, QuantScheme::q8Block(64));
  });
}

TEST_P(MatmulDiffTest, Prologues) {
  DType dtype = GetParam();
  if (!dtype.isFloat())
    GTEST_SKIP() << "the prologues here are float ops";
  // On Cpu an elementwise kernel read only as the left operand (or its
  // transpose) is evaluated while packing A: partial row panels and k
  // blocks, broadcasts along either axis, several K slices and row panel
  // groups, batches.
  compareOnDevices([&](Side &s) {
    Rng rng(22);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, -1, 1), shape,
                     dtype);
    };
    Tolerance tol = tolerance("kiln.matmul", dtype);
    s.check("gelu(A + bias along k) x B",
            matmul(gelu(in({19, 40}) + in({40}), true), in({40, 45})), tol);
    s.check("K not a multiple of 8",
            matmul(tanh(in({13, 37}) * 0.5), in({37, 20})), tol);
    s.check("row-wise normalization",
            matmul((in({21, 24}) - in({21, 1})) * in({21, 1}) * in({24}) +
                       in({24}),
                   in({24, 30})),
            tol);
    s.check("gelu(A + bias)^T x B, odd row panels",
            matmul(gelu(in({40, 21}) + in({21}), true).transpose(),
                   in({40, 33})),
            tol);
    s.check("transposed, a column broadcast along stored rows",
            matmul((in({24, 70}) * in({24, 1})).transpose(), in({24, 16})),
            tol);
    s.check("several K slices and panel groups",
            matmul(sigmoid(in({70, 600})), in({600, 40})), tol);
    s.check("transposed, several K slices and panel groups",
            matmul(sigmoid(in({600, 70})).transpose(), in({600, 40})), tol);
    s.check("batched",
            matmul(exp(in({2, 9, 14}) * 0.5), in({2, 14, 5})), tol);
    s.check("batched, transposed, broadcast operand",
            matmul((in({2, 14, 9}) + in({1, 1, 9})).transpose(),
                   in({14, 6})),
            tol);
    // The prologue's value is also an output: it is stored by its own
    // kernel and the matmul reads it.
    Tensor shared = relu(in({12, 16}) - 0.25);
    s.check("kiln.relu", dtype, "shared prologue value", shared);
    s.check("matmul of a shared value", matmul(shared, in({16, 8})), tol);
  });
}

/// Bools meet a matmul: comparisons and where in the prologue, on masks
/// broadcast along A's rows (each lane once read false), and a where over a
/// materialized bool in the epilogue (it failed to compile: the bools were
/// loaded as f32 vectors), on whole panels and on a partial one.
TEST(MatmulDiffTest, BoolsInProloguesAndEpilogues) {
  compareOnDevices([&](Side &s) {
    Rng rng(26);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), DType::F32, -1, 1), shape,
                     DType::F32);
    };
    auto mask = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), DType::Bool, 0, 1), shape,
                     DType::Bool);
    };
    Tolerance tol = tolerance("kiln.matmul", DType::F32);
    for (int64_t k : {int64_t(4), int64_t(8), int64_t(21)}) {
      std::string at = " (K = " + std::to_string(k) + ")";
      Tensor x0 = in({5, k}), x1 = in({5, k}), x2 = in({1, k}), x3 = in({1, k}),
             x4 = in({k, 4});
      Tensor m = (x0 > 0.1875) & (x1 < -0.5);
      Tensor t3 = where(m, x0, x2);
      Tensor t5 = where(x3 < -0.875, t3, x3);
      s.check("where on broadcast masks, then matmul" + at, matmul(t5, x4),
              tol);
      s.check("a materialized broadcast mask in the prologue" + at,
              matmul(where(mask({1, k}), x0, x1), x4), tol);
      s.check("a materialized full mask in the prologue" + at,
              matmul(where(mask({5, k}), x0, 0.5), x4), tol);
      Tensor y = matmul(x0, x4);
      s.check("a materialized mask in the epilogue" + at,
              where(mask({5, 4}), y, 0.0), tol);
      s.check("a broadcast mask in the epilogue" + at,
              where(mask({1, 4}), y, y * 2.0), tol);
      s.check("a comparison in the epilogue" + at, where(y > 0.0, y, 0.0) + 1.0,
              tol);
      // 40 columns: whole panels (their bytes loaded as one vector) and a
      // partial one (a masked load).
      Tensor wide = matmul(x0, in({k, 40}));
      s.check("a materialized mask on whole panels in the epilogue" + at,
              where(mask({5, 40}), wide, wide * -3.0), tol);
    }
    // Transposed A (its stored rows are walked two panels at a time).
    Tensor xt = in({24, 19});
    s.check("a mask in a transposed prologue",
            matmul(where(mask({24, 1}), xt, -xt).transpose(), in({24, 7})),
            tol);
  });
}

/// An SGD update, W - lr * (x^T @ dy), on weights that die at the update:
/// with K in one slice the kernel writes the new weights over the old
/// ones (the same storage, no second buffer of their size), and with K
/// over several slices, where C holds partial sums first, into a buffer of
/// its own; both agree with the update computed on Flex.
TEST(MatmulDiffTest, UpdateOverDyingWeights) {
  for (int64_t k : {int64_t(64), int64_t(600)}) {
    // W (375 KiB) is much larger than the packed-A workspace (96 KiB).
    const int64_t m = 96, n = 1000;
    Rng rng(24);
    std::vector<double> xv = randomValues(rng, k * m, DType::F32, -1, 1),
                        dyv = randomValues(rng, k * n, DType::F32, -1, 1),
                        wv = randomValues(rng, m * n, DType::F32, -1, 1);
    auto update = [&](const DispatchDevice &dev, const void **storage,
                      int64_t *peak) {
      auto up = [&](const std::vector<double> &v, Shape shape) {
        Tensor t = Tensor::fromVector<float>(
            std::vector<float>(v.begin(), v.end()), std::move(shape), dev);
        t.sync();
        return t;
      };
      Tensor x = up(xv, {k, m}), dy = up(dyv, {k, n}), w = up(wv, {m, n});
      *storage = w.try_into_backend<Cpu>().storage.get();
      MemoryStats before = memoryStats(dev);
      resetPeakMemory(dev);
      w = w - matmul(x.transpose(), dy) * 0.01;
      w.sync();
      *peak = memoryStats(dev).peakBytes - before.currentBytes;
      if (w.try_into_backend<Cpu>().storage.get() != *storage)
        *storage = nullptr;
      return w.toVector<float>();
    };
    const void *storage = nullptr;
    int64_t peak = 0;
    std::vector<float> got = update(DispatchDevice::cpu(), &storage, &peak);
    std::vector<float> want(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t r = 0; r < k; ++r)
          acc += xv[r * m + i] * dyv[r * n + j];
        want[i * n + j] = float(float(wv[i * n + j]) - 0.01 * acc);
      }
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5) << "K = " << k << ", element " << i;
    if (k <= 256) {
      EXPECT_NE(storage, nullptr) << "K = " << k << ": the update took a new "
                                  << "buffer instead of the dying weights'";
      EXPECT_LT(peak, m * n * 4) << "K = " << k;
    } else {
      EXPECT_EQ(storage, nullptr) << "K = " << k << ": partial sums over "
                                  << "several slices wrote over the weights";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, MatmulDiffTest,
                         ::testing::ValuesIn(allDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace
