//===- KilnToLinalgTest.cpp - Numbers computed by the linalg lowering -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The lit tests show what --convert-kiln-to-linalg emits; these show that it
// computes the right numbers. Each test lowers a small kiln function all the
// way to LLVM with the pipeline of test/Conversion/KilnToLinalg, JITs it and
// compares the result with a plain C++ reference written from the op's
// definition (Flex's semantics, Random.h for the generators).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Support/Random.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

using namespace mlir;

namespace {

/// The lowering of the lit tests' second RUN line.
constexpr const char *kPipeline =
    "convert-kiln-to-linalg,canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,"
    "lower-affine,convert-math-to-llvm,convert-math-to-libm,arith-expand,"
    "convert-arith-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,"
    "convert-func-to-llvm,convert-index-to-llvm,reconcile-unrealized-casts";

/// An input buffer and its memref descriptor.
template <typename T, int N> struct Input {
  std::vector<T> values;
  StridedMemRefType<T, N> desc;

  Input(std::vector<T> v, std::array<int64_t, N> shape) : values(std::move(v)) {
    desc.basePtr = desc.data = values.data();
    desc.offset = 0;
    int64_t stride = 1;
    for (int d = N - 1; d >= 0; --d) {
      desc.sizes[d] = shape[d];
      desc.strides[d] = stride;
      stride *= shape[d];
    }
  }
};

/// A result descriptor filled by the callee. Its buffer is a fresh
/// allocation, freed here, unless the callee returned an input's buffer.
template <typename T, int N> struct Output {
  StridedMemRefType<T, N> desc{};
  bool owned = true;

  std::vector<int64_t> shape() const {
    return std::vector<int64_t>(desc.sizes, desc.sizes + N);
  }
  /// The elements in row-major order.
  std::vector<T> values() const {
    int64_t n = 1;
    for (int d = 0; d < N; ++d)
      n *= desc.sizes[d];
    std::vector<T> out;
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = desc.offset, rem = k;
      for (int d = N - 1; d >= 0; --d) {
        off += (rem % desc.sizes[d]) * desc.strides[d];
        rem /= desc.sizes[d];
      }
      out.push_back(desc.data[off]);
    }
    return out;
  }
  ~Output() {
    if (owned)
      std::free(desc.basePtr);
  }
};

class KilnToLinalgTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    registerAllPasses();
    mlir::kiln::registerKilnConversionPasses();
  }

  KilnToLinalgTest() {
    DialectRegistry registry;
    registry.insert<mlir::kiln::KilnDialect>();
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllToLLVMIRTranslations(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Lowers `source` (which defines @main) and JITs it.
  std::unique_ptr<ExecutionEngine> compile(llvm::StringRef source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module) {
      ADD_FAILURE() << "the test source does not parse";
      return nullptr;
    }
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == "func.func")
        op->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&context));
    });
    PassManager pm(&context);
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (failed(parsePassPipeline(kPipeline, pm, os))) {
      ADD_FAILURE() << "bad pipeline: " << errors;
      return nullptr;
    }
    if (failed(pm.run(*module))) {
      ADD_FAILURE() << "the lowering failed";
      return nullptr;
    }
    // memref.copy between strided views is a call to memrefCopy.
    llvm::StringRef libs[] = {KILN_C_RUNNER_UTILS};
    ExecutionEngineOptions options;
    options.sharedLibPaths = libs;
    auto engine = ExecutionEngine::create(*module, options);
    if (!engine) {
      ADD_FAILURE() << "JIT: " << llvm::toString(engine.takeError());
      return nullptr;
    }
    return std::move(*engine);
  }

  /// Calls @main: the C interface takes the result descriptor first.
  template <typename T, int N, typename... Ins>
  void run(ExecutionEngine &engine, Output<T, N> &out, Ins &...ins) {
    void *pointers[] = {&out.desc, static_cast<void *>(&ins.desc)...};
    llvm::SmallVector<void *> packed;
    for (void *&p : pointers)
      packed.push_back(&p);
    llvm::Error error = engine.invokePacked("_mlir_ciface_main", packed);
    ASSERT_FALSE(error) << llvm::toString(std::move(error));
    void *inputs[] = {nullptr, static_cast<void *>(ins.values.data())...};
    out.owned =
        !llvm::is_contained(inputs, static_cast<void *>(out.desc.basePtr));
  }

  MLIRContext context;
};

/// |got - want| <= ulps * eps * max(1, |want|), NaN matching NaN.
template <typename T>
void expectNear(const std::vector<T> &got, const std::vector<T> &want,
                double ulps = 4) {
  ASSERT_EQ(got.size(), want.size());
  double eps = std::numeric_limits<T>::epsilon();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
      continue;
    }
    double tol = ulps * eps * std::max(1.0, std::fabs((double)want[i]));
    EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
  }
}

std::vector<float> iota(int n, float start = 0, float step = 1) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i)
    v.push_back(start + step * i);
  return v;
}

TEST_F(KilnToLinalgTest, ElementwiseBroadcast) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
      %h = kiln.constant dense<0.5> : tensor<f32>
      %s = kiln.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %e = kiln.exp %s : tensor<2x3xf32>
      %r = kiln.mul %e, %h : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> x(iota(6, -1.0f, 0.25f), {2, 3});
  Input<float, 1> y({0.5f, -2.0f, 1.0f}, {3});
  Output<float, 2> out;
  run(*engine, out, x, y);
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      want.push_back(std::exp(x.values[i * 3 + j] + y.values[j]) * 0.5f);
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{2, 3}));
  expectNear(out.values(), want);
}

TEST_F(KilnToLinalgTest, SumOverDynamicRows) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<?x5xf32>) -> tensor<?xf32> {
      %s = kiln.sum %x [1] : tensor<?x5xf32> -> tensor<?xf32>
      return %s : tensor<?xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> x(iota(15, 0.5f, 1.5f), {3, 5});
  Output<float, 1> out;
  run(*engine, out, x);
  std::vector<float> want(3, 0.0f);
  for (int i = 0; i < 15; ++i)
    want[i / 5] += x.values[i];
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{3}));
  expectNear(out.values(), want);
}

TEST_F(KilnToLinalgTest, ArgmaxTakesFirstMaximumAndNaN) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<4x4xf32>) -> tensor<4xi64> {
      %a = kiln.argmax %x axis = 1 : tensor<4x4xf32> -> tensor<4xi64>
      return %a : tensor<4xi64>
    })mlir");
  ASSERT_TRUE(engine);
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  Input<float, 2> x({1, 3, 3, 2,             // first of two maxima
                     2, nan, 5, nan,         // the first NaN wins
                     -inf, -inf, -inf, -inf, // all equal: index 0
                     -1, -2, -3, 0},
                    {4, 4});
  Output<int64_t, 1> out;
  run(*engine, out, x);
  EXPECT_EQ(out.values(), (std::vector<int64_t>{1, 1, 0, 3}));
}

TEST_F(KilnToLinalgTest, BroadcastingMatmul) {
  auto engine = compile(R"mlir(
    func.func @main(%a: tensor<2x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x2x4xf32> {
      %c = kiln.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x4xf32>) -> tensor<2x2x4xf32>
      return %c : tensor<2x2x4xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 3> a(iota(12, -3.0f, 0.5f), {2, 2, 3});
  Input<float, 2> b(iota(12, 1.0f, -0.25f), {3, 4});
  Output<float, 3> out;
  run(*engine, out, a, b);
  std::vector<float> want;
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float s = 0;
        for (int k = 0; k < 3; ++k)
          s += a.values[t * 6 + i * 3 + k] * b.values[k * 4 + j];
        want.push_back(s);
      }
  expectNear(out.values(), want, 16);
}

TEST_F(KilnToLinalgTest, ShapeOps) {
  // concat(slice(permute(x)), flip(...)): [2, 3] -> [3, 2] -> rows 0, 2 ->
  // those rows and their mirror image.
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
      %p = kiln.permute %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      %s = kiln.slice %p [0, 0] [3, 2] [2, 1] : tensor<3x2xf32> -> tensor<2x2xf32>
      %f = kiln.flip %s [1] : tensor<2x2xf32>
      %c = kiln.concat %s, %f axis = 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
      return %c : tensor<4x2xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> x({1, 2, 3, 4, 5, 6}, {2, 3});
  Output<float, 2> out;
  run(*engine, out, x);
  EXPECT_EQ(out.values(), (std::vector<float>{1, 4, 3, 6, 4, 1, 6, 3}));
}

TEST_F(KilnToLinalgTest, GatherClampsIndices) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<2x5xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
      %g = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
      return %g : tensor<2x3xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> x(iota(10, 10.0f), {2, 5});
  Input<int64_t, 2> i({0, 4, 7, -1, 2, 2}, {2, 3});
  Output<float, 2> out;
  run(*engine, out, x, i);
  EXPECT_EQ(out.values(), (std::vector<float>{10, 14, 14, 15, 17, 17}));
}

TEST_F(KilnToLinalgTest, GroupedConv2dWithBias) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<1x2x5x5xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
      %y = kiln.conv2d %x, %w, %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : (tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
      return %y : tensor<1x4x3x3xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 4> x(iota(50, -2.0f, 0.125f), {1, 2, 5, 5});
  Input<float, 4> w(iota(36, 0.5f, -0.0625f), {4, 1, 3, 3});
  Input<float, 1> b({0.25f, -0.5f, 1.0f, 0.0f}, {4});
  Output<float, 4> out;
  run(*engine, out, x, w, b);
  std::vector<float> want;
  for (int o = 0; o < 4; ++o) {
    int c = o / 2; // two output channels per group, one input channel each
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 3; ++ox) {
        float s = 0;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            int iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
            if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5)
              continue;
            s += x.values[c * 25 + iy * 5 + ix] * w.values[o * 9 + ky * 3 + kx];
          }
        want.push_back(s + b.values[o]);
      }
  }
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{1, 4, 3, 3}));
  expectNear(out.values(), want, 16);
}

TEST_F(KilnToLinalgTest, MaxPoolPadsWithMinusInfinity) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
      %y = kiln.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
      return %y : tensor<1x1x2x2xf32>
    })mlir");
  ASSERT_TRUE(engine);
  // Negative values: a zero padding would win, -inf padding does not.
  Input<float, 4> x(iota(16, -20.0f, 1.0f), {1, 1, 4, 4});
  Output<float, 4> out;
  run(*engine, out, x);
  // Windows cover rows/cols [-1, 1] and [1, 3].
  EXPECT_EQ(out.values(), (std::vector<float>{-15, -13, -7, -5}));
}

TEST_F(KilnToLinalgTest, AvgPoolCountsInBoundsElements) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
      %y = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
      return %y : tensor<1x1x2x2xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 4> x(iota(16, 1.0f), {1, 1, 4, 4});
  Output<float, 4> out;
  run(*engine, out, x);
  // Window (0, 0) holds rows/cols 0..1 only: 4 elements, not 9.
  EXPECT_EQ(out.values(),
            (std::vector<float>{
                (1 + 2 + 5 + 6) / 4.0f, (2 + 3 + 4 + 6 + 7 + 8) / 6.0f,
                (5 + 6 + 9 + 10 + 13 + 14) / 6.0f,
                (6 + 7 + 8 + 10 + 11 + 12 + 14 + 15 + 16) / 9.0f}));
}

TEST_F(KilnToLinalgTest, MaxPoolBackwardRoutesToFirstMaximum) {
  auto engine = compile(R"mlir(
    func.func @main(%g: tensor<1x1x2x2xf32>, %x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
      %d = kiln.max_pool2d_backward %g, %x kernel [2, 2] stride [1, 1] padding [0, 0] : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
      return %d : tensor<1x1x3x3xf32>
    })mlir");
  ASSERT_TRUE(engine);
  // Overlapping windows; of two equal maxima the first wins.
  Input<float, 4> x({1, 5, 5, //
                     2, 3, 0, //
                     9, 9, 1},
                    {1, 1, 3, 3});
  Input<float, 4> g({10, 20, 30, 40}, {1, 1, 2, 2});
  Output<float, 4> out;
  run(*engine, out, g, x);
  // Windows (0, 0) and (0, 1) both pick x[0, 1]; the lower two pick the
  // first and second 9.
  EXPECT_EQ(out.values(), (std::vector<float>{0, 30, 0, 0, 0, 0, 30, 40, 0}));
}

TEST_F(KilnToLinalgTest, Conv2dBackward) {
  auto engine = compile(R"mlir(
    func.func @main(%g: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
      %dx = kiln.conv2d_backward_input %g, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<1x2x5x5xf32>
      %dw = kiln.conv2d_backward_weight %g, %x stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : (tensor<1x4x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<4x1x3x3xf32>
      // Both in one result: dx + sum(dw) keeps the test to one output.
      %s = kiln.sum %dw [0, 1, 2, 3] : tensor<4x1x3x3xf32> -> tensor<f32>
      %r = kiln.add %dx, %s : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5x5xf32>
      return %r : tensor<1x2x5x5xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 4> g(iota(36, -1.0f, 0.0625f), {1, 4, 3, 3});
  Input<float, 4> w(iota(36, 0.5f, -0.03125f), {4, 1, 3, 3});
  Input<float, 4> x(iota(50, 2.0f, -0.125f), {1, 2, 5, 5});
  Output<float, 4> out;
  run(*engine, out, g, w, x);
  // The forward conv: y[o, oy, ox] += x[o / 2, 2 oy - 1 + ky, 2 ox - 1 + kx]
  // * w[o, ky, kx]; its two gradients follow the same index map.
  std::vector<double> dx(50, 0.0), dw(36, 0.0);
  for (int o = 0; o < 4; ++o)
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 3; ++ox)
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            int iy = 2 * oy - 1 + ky, ix = 2 * ox - 1 + kx;
            if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5)
              continue;
            int xi = (o / 2) * 25 + iy * 5 + ix, wi = o * 9 + ky * 3 + kx;
            double gy = g.values[o * 9 + oy * 3 + ox];
            dx[xi] += gy * w.values[wi];
            dw[wi] += gy * x.values[xi];
          }
  double dwSum = 0;
  for (double v : dw)
    dwSum += v;
  std::vector<float> want;
  for (double v : dx)
    want.push_back(static_cast<float>(v + dwSum));
  expectNear(out.values(), want, 64);
}

TEST_F(KilnToLinalgTest, ScatterAddSkipsOutOfRange) {
  auto engine = compile(R"mlir(
    func.func @main(%u: tensor<2x3xf32>, %x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<4x3xf32> {
      %s = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<4x3xf32>
      return %s : tensor<4x3xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> u({1, 2, 3, 10, 20, 30}, {2, 3});
  Input<float, 2> x(std::vector<float>(12, 0.5f), {4, 3});
  Input<int64_t, 2> i({3, 3, -1, 3, 4, 0}, {2, 3});
  Output<float, 2> out;
  run(*engine, out, u, x, i);
  // Column 0 gets 1 and 10 at row 3; (1, 1) is out of range; (0, 2) is -1.
  EXPECT_EQ(out.values(), (std::vector<float>{0.5, 0.5, 30.5, //
                                              0.5, 0.5, 0.5,  //
                                              0.5, 0.5, 0.5,  //
                                              11.5, 2.5, 0.5}));
}

TEST_F(KilnToLinalgTest, CumsumScansInOrder) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %c = kiln.cumsum %x axis = 1 : tensor<2x4xf32>
      return %c : tensor<2x4xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> x({1e8f, 1, 1, -1e8f, 0.1f, 0.2f, 0.3f, 0.4f}, {2, 4});
  Output<float, 2> out;
  run(*engine, out, x);
  // Flex keeps the running sum in f64 and rounds each output.
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    double acc = 0;
    for (int j = 0; j < 4; ++j) {
      acc += x.values[r * 4 + j];
      want.push_back(static_cast<float>(acc));
    }
  }
  EXPECT_EQ(out.values(), want);
}

TEST_F(KilnToLinalgTest, RandomMatchesRandomH) {
  auto engine = compile(R"mlir(
    func.func @main() -> tensor<3x5xf32> {
      %r = kiln.rand seed = 42, -1.000000e+00, 3.000000e+00 : tensor<3x5xf32>
      return %r : tensor<3x5xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Output<float, 2> out;
  run(*engine, out);
  std::vector<float> want;
  for (int i = 0; i < 15; ++i) {
    float v = static_cast<float>(-1.0 + 4.0 * ::kiln::random::uniform(42, i));
    // A sample that rounds up onto high is stored below it.
    want.push_back(v < 3.0f ? v : std::nextafter(3.0f, 0.0f));
  }
  EXPECT_EQ(out.values(), want); // bit for bit
}

TEST_F(KilnToLinalgTest, RandnMatchesRandomH) {
  auto engine = compile(R"mlir(
    func.func @main(%n: index) -> tensor<?xf64> {
      %r = kiln.randn seed = 9, 1.000000e+00, 2.000000e+00 [%n] : tensor<?xf64>
      return %r : tensor<?xf64>
    })mlir");
  ASSERT_TRUE(engine);
  Output<double, 1> out;
  // The C interface takes an index by value; its packed slot points to it.
  int64_t n = 7;
  void *result = &out.desc;
  llvm::SmallVector<void *> packed = {&result, &n};
  llvm::Error error = engine->invokePacked("_mlir_ciface_main", packed);
  ASSERT_FALSE(error) << llvm::toString(std::move(error));
  std::vector<double> want;
  for (int i = 0; i < n; ++i)
    want.push_back(1.0 + 2.0 * ::kiln::random::normal(9, i));
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{7}));
  expectNear(out.values(), want, 2);
}

/// Flex's symmetric quantization of one block, dequantized again.
std::vector<float> quantRoundTrip(const std::vector<float> &x, int64_t block,
                                  double maxLevel) {
  std::vector<float> out;
  for (size_t b = 0; b < x.size(); b += block) {
    double m = 0;
    for (size_t k = b; k < b + block; ++k)
      m = std::max(m, std::fabs((double)x[k]));
    float scale = static_cast<float>(m / maxLevel);
    if (!(scale > 0) || !std::isfinite(scale))
      scale = 1;
    for (size_t k = b; k < b + block; ++k) {
      double q = std::nearbyint((double)x[k] / scale);
      q = std::clamp(q, -maxLevel, maxLevel);
      out.push_back(scale * static_cast<float>(q));
    }
  }
  return out;
}

TEST_F(KilnToLinalgTest, Q8BlockRoundTrip) {
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
      %q = kiln.quantize %x : tensor<2x8xf32> -> tensor<2x8xi8, #kiln.quant<q8, symmetric, block = 4, scale = f32>>
      %d = kiln.dequantize %q : tensor<2x8xi8, #kiln.quant<q8, symmetric, block = 4, scale = f32>> -> tensor<2x8xf32>
      return %d : tensor<2x8xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 2> x({0.1f, -2.5f, 3.0f, 0.0f, 0, 0, 0, 0, // an all-zero block
                     1e-3f, 7.0f, -7.0f, 2.0f, 100, -50, 25, 0.5f},
                    {2, 8});
  Output<float, 2> out;
  run(*engine, out, x);
  expectNear(out.values(), quantRoundTrip(x.values, 4, 127));
}

TEST_F(KilnToLinalgTest, Q4PackedRoundTrip) {
  // An odd count leaves the last byte's high nibble empty.
  auto engine = compile(R"mlir(
    func.func @main(%x: tensor<7xf32>) -> tensor<7xf32> {
      %q = kiln.quantize %x : tensor<7xf32> -> tensor<7xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>
      %d = kiln.dequantize %q : tensor<7xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>> -> tensor<7xf32>
      return %d : tensor<7xf32>
    })mlir");
  ASSERT_TRUE(engine);
  Input<float, 1> x({-7.0f, 6.5f, 0.4f, -3.0f, 1.0f, 5.5f, -0.6f}, {7});
  Output<float, 1> out;
  run(*engine, out, x);
  expectNear(out.values(), quantRoundTrip(x.values, 7, 7));
}

} // namespace
