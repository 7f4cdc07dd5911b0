//===- ElementwiseTest.cpp - Elementwise ops against double references ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One table row per op: the API call, a scalar reference in double and the
// dtypes its ODS constraint accepts. Every row runs for every dtype, over
// contiguous and strided (transposed, flipped, step-sliced) inputs, and for
// f32 over a long input that takes the SIMD and multi-threaded paths.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include <cstring>

using namespace kiln;
using namespace kiln::test;

namespace {

double erfRef(double x) { return std::erf(x); }
double sigmoidRef(double x) { return 1 / (1 + std::exp(-x)); }
double geluRef(double x) {
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}
double geluTanhRef(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double signRef(double x) {
  return std::isnan(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0;
}

enum class Inputs { Any, Positive, AboveMinusOne, Bounded };

struct UnaryCase {
  const char *op; ///< the kiln op whose tolerance applies
  const char *name;
  std::function<Tensor(const Tensor &)> fn;
  std::function<double(double)> ref;
  std::vector<DType> dtypes;
  Inputs inputs = Inputs::Any;
};

std::vector<UnaryCase> unaryCases() {
  auto F = floatDTypes(), S = signedDTypes();
  return {
      {"kiln.neg", "neg", [](const Tensor &x) { return -x; },
       [](double x) { return -x; }, S},
      {"kiln.abs", "abs", [](const Tensor &x) { return abs(x); },
       [](double x) { return std::fabs(x); }, S},
      {"kiln.exp", "exp", [](const Tensor &x) { return exp(x); },
       [](double x) { return std::exp(x); }, F},
      {"kiln.log", "log", [](const Tensor &x) { return log(x); },
       [](double x) { return std::log(x); }, F, Inputs::Positive},
      {"kiln.log1p", "log1p", [](const Tensor &x) { return log1p(x); },
       [](double x) { return std::log1p(x); }, F, Inputs::AboveMinusOne},
      {"kiln.sqrt", "sqrt", [](const Tensor &x) { return sqrt(x); },
       [](double x) { return std::sqrt(x); }, F, Inputs::Positive},
      {"kiln.rsqrt", "rsqrt", [](const Tensor &x) { return rsqrt(x); },
       [](double x) { return 1 / std::sqrt(x); }, F, Inputs::Positive},
      {"kiln.recip", "recip", [](const Tensor &x) { return recip(x); },
       [](double x) { return 1 / x; }, F},
      {"kiln.sin", "sin", [](const Tensor &x) { return sin(x); },
       [](double x) { return std::sin(x); }, F},
      {"kiln.cos", "cos", [](const Tensor &x) { return cos(x); },
       [](double x) { return std::cos(x); }, F},
      {"kiln.tan", "tan", [](const Tensor &x) { return tan(x); },
       [](double x) { return std::tan(x); }, F},
      {"kiln.tanh", "tanh", [](const Tensor &x) { return tanh(x); },
       [](double x) { return std::tanh(x); }, F},
      {"kiln.sigmoid", "sigmoid", [](const Tensor &x) { return sigmoid(x); },
       sigmoidRef, F},
      {"kiln.erf", "erf", [](const Tensor &x) { return erf(x); }, erfRef, F},
      {"kiln.relu", "relu", [](const Tensor &x) { return relu(x); },
       [](double x) { return x < 0 ? 0 : x; }, S},
      {"kiln.gelu", "gelu", [](const Tensor &x) { return gelu(x); }, geluRef,
       F},
      {"kiln.gelu", "gelu_tanh", [](const Tensor &x) { return gelu(x, true); },
       geluTanhRef, F},
      {"kiln.silu", "silu", [](const Tensor &x) { return silu(x); },
       [](double x) { return x * sigmoidRef(x); }, F},
      {"kiln.log_sigmoid", "log_sigmoid",
       [](const Tensor &x) { return logSigmoid(x); },
       [](double x) { return -std::log1p(std::exp(-x)); }, F},
      {"kiln.hardswish", "hardswish",
       [](const Tensor &x) { return hardswish(x); },
       [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }, F},
      {"kiln.mish", "mish", [](const Tensor &x) { return mish(x); },
       [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }, F},
      {"kiln.leaky_relu", "leaky_relu",
       [](const Tensor &x) { return leakyRelu(x, 0.2); },
       [](double x) { return x > 0 ? x : 0.2 * x; }, F},
      {"kiln.elu", "elu", [](const Tensor &x) { return elu(x, 1.5); },
       [](double x) { return x > 0 ? x : 1.5 * std::expm1(x); }, F},
      {"kiln.softplus", "softplus",
       [](const Tensor &x) { return softplus(x, 2.0, 3.0); },
       [](double x) { return 2 * x > 3 ? x : std::log1p(std::exp(2 * x)) / 2; },
       F},
      {"kiln.floor", "floor", [](const Tensor &x) { return floor(x); },
       [](double x) { return std::floor(x); }, F},
      {"kiln.ceil", "ceil", [](const Tensor &x) { return ceil(x); },
       [](double x) { return std::ceil(x); }, F},
      {"kiln.round", "round", [](const Tensor &x) { return round(x); },
       [](double x) { return std::nearbyint(x); }, F},
      {"kiln.sign", "sign", [](const Tensor &x) { return sign(x); }, signRef,
       S},
      {"kiln.clamp", "clamp", [](const Tensor &x) { return clamp(x, -2, 3); },
       [](double x) {
         return std::isnan(x) ? x : std::min(3.0, std::max(-2.0, x));
       },
       numericDTypes()},
  };
}

/// Inputs of a unary op for `dtype`, including ties for round and, for
/// floats, the IEEE special values.
std::vector<double> unaryInputs(DType dtype, Inputs inputs) {
  if (dtype.kind() == DTypeKind::U8)
    return {0, 1, 2, 3, 5, 7, 100, 255};
  if (dtype.isInteger())
    return {-9, -3, -2, -1, 0, 1, 2, 3, 5, 9};
  switch (inputs) {
  case Inputs::Positive:
    return {0.1, 0.25, 0.5, 1, 1.5, 2, 3.5, 7, 12.5, 100, 0, kInf, kNaN};
  case Inputs::AboveMinusOne:
    return {-0.75, -0.5, -0.1, 0, 0.1, 0.5, 1, 2, 5, 10, -1, kInf, kNaN};
  default:
    return {-2.75, -1.5, -0.6, -0.25, 0,  0.2,  0.5,  1,    1.75,
            3.25,  2.5,  -0.5, 6.5,   -9, kNaN, kInf, -kInf};
  }
}

void PrintTo(const UnaryCase &c, std::ostream *os) { *os << c.name; }

class UnaryTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryTest, MatchesReference) {
  const UnaryCase &c = GetParam();
  for (size_t k = 0; k < c.dtypes.size(); ++k) {
    DType dtype = c.dtypes[k];
    std::vector<double> in = storedAll(dtype, unaryInputs(dtype, c.inputs));
    // Rows of the pool, so strided layouts see every value.
    std::vector<int64_t> shape{static_cast<int64_t>(in.size()), 3};
    std::vector<double> values;
    for (double v : in)
      for (int j = 0; j < 3; ++j)
        values.push_back(v);
    std::vector<double> want;
    for (double v : values)
      want.push_back(static_cast<double>(storedAs(dtype, c.ref(v))));
    // Every dtype runs contiguous and one strided layout; the strided ones
    // rotate over the dtypes (f32, whose contiguous path is SIMD, runs all).
    for (int layout = 0; layout < 4; ++layout) {
      if (layout != 0 && dtype != DType::F32 && layout != 1 + int(k % 3))
        continue;
      SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " " +
                   layoutName(layout));
      Tensor y = c.fn(viewOf(values, shape, dtype, layout));
      ASSERT_EQ(y.dtype(), dtype);
      ASSERT_EQ(y.shape(), Shape(shape));
      EXPECT_TRUE(allClose(valuesOf(y), want, tolerance(c.op, dtype)));
    }
    // Long enough for full SIMD blocks, a masked tail and several threads.
    if (dtype != DType::F32 && dtype != DType::I32)
      continue;
    SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " long");
    std::vector<double> longIn = cycle(in, 70001, 1);
    std::vector<double> longWant;
    for (double v : longIn)
      longWant.push_back(static_cast<double>(storedAs(dtype, c.ref(v))));
    Tensor y = c.fn(tensorOf(longIn, {70001}, dtype, DispatchDevice::flex()));
    EXPECT_TRUE(allClose(valuesOf(y), longWant, tolerance(c.op, dtype)));
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryTest, ::testing::ValuesIn(unaryCases()),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(ElementwiseTest, IsNanAndNot) {
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> in{1, kNaN, -kInf, 0, kNaN, 2.5};
    for (int layout : {0, 2}) {
      Tensor m = isNan(viewOf(in, {6}, dtype, layout));
      ASSERT_EQ(m.dtype(), DType::Bool);
      EXPECT_EQ(m.toVector<bool>(),
                (std::vector<bool>{false, true, false, false, true, false}));
    }
  }
  std::vector<double> b{1, 0, 0, 1, 1, 0};
  for (int layout = 0; layout < 4; ++layout) {
    Tensor n = !viewOf(b, {2, 3}, DType::Bool, layout);
    EXPECT_EQ(valuesOf(n), (std::vector<double>{0, 1, 1, 0, 0, 1}))
        << layoutName(layout);
  }
}

//===----------------------------------------------------------------------===//
// Binary ops and comparisons
//===----------------------------------------------------------------------===//

double floorDivRef(double a, double b) { return std::floor(a / b); }
/// Floored remainder: the sign of the divisor (Python's %).
double floorRemRef(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}
double maxRef(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
}
double minRef(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b);
}

struct BinaryCase {
  const char *op;
  const char *name;
  std::function<Tensor(const Tensor &, const Tensor &)> fn;
  /// Reference; `integer` says the dtype is an integer one.
  std::function<double(double, double, bool integer)> ref;
  std::vector<DType> dtypes;
  bool boolResult = false;
  bool nonZeroRhs = false;
  bool positiveLhs = false;
};

std::vector<BinaryCase> binaryCases() {
  auto F = floatDTypes(), N = numericDTypes(), A = allDTypes();
  std::vector<DType> B{DType::Bool};
  auto plain = [](double (*f)(double, double)) {
    return [f](double a, double b, bool) { return f(a, b); };
  };
  std::vector<BinaryCase> cases = {
      {"kiln.add", "add", [](auto &x, auto &y) { return x + y; },
       [](double a, double b, bool) { return a + b; }, N},
      {"kiln.sub", "sub", [](auto &x, auto &y) { return x - y; },
       [](double a, double b, bool) { return a - b; }, N},
      {"kiln.mul", "mul", [](auto &x, auto &y) { return x * y; },
       [](double a, double b, bool) { return a * b; }, N},
      {"kiln.div", "div", [](auto &x, auto &y) { return x / y; },
       [](double a, double b, bool i) { return i ? floorDivRef(a, b) : a / b; },
       N, false, true},
      {"kiln.rem", "rem", [](auto &x, auto &y) { return x % y; },
       [](double a, double b, bool) { return floorRemRef(a, b); }, N, false,
       true},
      {"kiln.pow", "pow", [](auto &x, auto &y) { return pow(x, y); },
       plain([](double a, double b) { return std::pow(a, b); }), F, false,
       false, true},
      {"kiln.max", "maximum", [](auto &x, auto &y) { return maximum(x, y); },
       plain(maxRef), N},
      {"kiln.min", "minimum", [](auto &x, auto &y) { return minimum(x, y); },
       plain(minRef), N},
      {"kiln.atan2", "atan2", [](auto &x, auto &y) { return atan2(x, y); },
       plain([](double a, double b) { return std::atan2(a, b); }), F},
      {"kiln.eq", "eq", [](auto &x, auto &y) { return x == y; },
       [](double a, double b, bool) { return double(a == b); }, A, true},
      {"kiln.ne", "ne", [](auto &x, auto &y) { return x != y; },
       [](double a, double b, bool) { return double(a != b); }, A, true},
      {"kiln.lt", "lt", [](auto &x, auto &y) { return x < y; },
       [](double a, double b, bool) { return double(a < b); }, A, true},
      {"kiln.le", "le", [](auto &x, auto &y) { return x <= y; },
       [](double a, double b, bool) { return double(a <= b); }, A, true},
      {"kiln.gt", "gt", [](auto &x, auto &y) { return x > y; },
       [](double a, double b, bool) { return double(a > b); }, A, true},
      {"kiln.ge", "ge", [](auto &x, auto &y) { return x >= y; },
       [](double a, double b, bool) { return double(a >= b); }, A, true},
      {"kiln.and", "and", [](auto &x, auto &y) { return x & y; },
       [](double a, double b, bool) { return double(a && b); }, B, true},
      {"kiln.or", "or", [](auto &x, auto &y) { return x | y; },
       [](double a, double b, bool) { return double(a || b); }, B, true},
  };
  return cases;
}

std::vector<double> binaryLhs(DType dtype, bool positive) {
  if (dtype.isBool())
    return {0, 1, 1, 0, 1, 0, 0};
  if (dtype.kind() == DTypeKind::U8)
    return {0, 1, 3, 7, 9, 12, 100, 200, 5};
  if (dtype.isInteger())
    return {-9, -7, -4, -1, 0, 1, 3, 6, 8, 11, -3};
  if (positive)
    return {0.25, 0.5, 1, 1.5, 2, 3, 4, 0, kInf, kNaN, 2.5};
  return {-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, kNaN, kInf, -kInf, 7, -1};
}

std::vector<double> binaryRhs(DType dtype, bool nonZero, bool smallExponent) {
  if (dtype.isBool())
    return {1, 0, 1, 1, 0};
  if (dtype.kind() == DTypeKind::U8)
    return {1, 2, 3, 5, 7, 9};
  if (dtype.isInteger())
    return {-4, -3, -2, -1, 1, 2, 3, 5, 4};
  if (smallExponent)
    return {-2, -1, -0.5, 0, 0.5, 1, 2, 2.5, 3};
  if (nonZero)
    return {-2.5, -1, -0.5, 0.25, 1, 1.5, 3, 4, kInf, -kInf, kNaN};
  return {-2.5, -1, -0.5, 0, 0.25, 1, 1.5, 3, 4, -2, kNaN, kInf};
}

void PrintTo(const BinaryCase &c, std::ostream *os) { *os << c.name; }

class BinaryTest : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryTest, MatchesReferenceWithBroadcasting) {
  const BinaryCase &c = GetParam();
  using Dims = std::vector<int64_t>;
  // (lhs shape, rhs shape): equal, trailing, size-1 both sides, rank 0 on
  // either side, a leading size-1 dim, and a rank-3 result.
  const std::pair<Dims, Dims> shapes[] = {
      {{4, 5}, {4, 5}},    {{4, 5}, {5}}, {{4, 1}, {1, 5}},
      {{4, 5}, {}},        {{}, {4, 5}},  {{1}, {4, 5}},
      {{3, 1, 5}, {2, 1}}, {{}, {}},      {{4, 5}, {1, 1}}};
  for (size_t k = 0; k < c.dtypes.size(); ++k) {
    DType dtype = c.dtypes[k];
    bool integer = dtype.isInteger();
    std::vector<double> lp = storedAll(dtype, binaryLhs(dtype, c.positiveLhs));
    std::vector<double> rp = storedAll(
        dtype, binaryRhs(dtype, c.nonZeroRhs, std::string(c.name) == "pow"));
    DType out = c.boolResult ? DType::Bool : dtype;
    for (size_t si = 0; si < std::size(shapes); ++si) {
      const auto &[ls, rs] = shapes[si];
      // One layout per shape, rotating with the dtype.
      for (int layout = (si + k) % 4, once = 0; !once; once = 1) {
        SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " " +
                     Shape(ls).str() + " with " + Shape(rs).str() + ", " +
                     layoutName(layout));
        std::vector<double> a = cycle(lp, numelOf(ls), layout);
        std::vector<double> b = cycle(rp, numelOf(rs), 2 * layout);
        Dims os = broadcastShape(ls, rs);
        std::vector<double> ab = broadcastValues(a, ls, os),
                            bb = broadcastValues(b, rs, os);
        std::vector<double> want;
        for (size_t i = 0; i < ab.size(); ++i)
          want.push_back(
              static_cast<double>(storedAs(out, c.ref(ab[i], bb[i], integer))));
        // The lhs takes the layout; the rhs a flip when it can.
        Tensor x = viewOf(a, ls, dtype, layout);
        Tensor y = viewOf(b, rs, dtype, layout == 0 ? 0 : 2);
        Tensor z = c.fn(x, y);
        ASSERT_EQ(z.dtype(), out);
        ASSERT_EQ(z.shape(), Shape(os));
        EXPECT_TRUE(allClose(valuesOf(z), want, tolerance(c.op, dtype)));
      }
    }
    // The f32 SIMD loops: long contiguous runs, scalar and vector operands.
    if (dtype != DType::F32 && dtype != DType::I16 && !dtype.isBool())
      continue;
    SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " long");
    std::vector<double> a = cycle(lp, 40003), b = cycle(rp, 40003, 1);
    Tensor x = tensorOf(a, {40003}, dtype, DispatchDevice::flex());
    Tensor y = tensorOf(b, {40003}, dtype, DispatchDevice::flex());
    Tensor s = tensorOf({rp[1]}, {}, dtype, DispatchDevice::flex());
    std::vector<double> want, wantScalar;
    for (size_t i = 0; i < a.size(); ++i) {
      want.push_back(
          static_cast<double>(storedAs(out, c.ref(a[i], b[i], integer))));
      wantScalar.push_back(
          static_cast<double>(storedAs(out, c.ref(a[i], rp[1], integer))));
    }
    EXPECT_TRUE(allClose(valuesOf(c.fn(x, y)), want, tolerance(c.op, dtype)));
    EXPECT_TRUE(
        allClose(valuesOf(c.fn(x, s)), wantScalar, tolerance(c.op, dtype)));
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryTest, ::testing::ValuesIn(binaryCases()),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

//===----------------------------------------------------------------------===//
// Semantics that tables hide
//===----------------------------------------------------------------------===//

TEST(ElementwiseTest, IntegerDivisionFloorsAndRemainderTakesDivisorSign) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : {DType::I64, DType::I32, DType::I16, DType::I8}) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor a = tensorOf({-7, 7, -7, 7, -6, 0}, {6}, dtype, flex);
    Tensor b = tensorOf({2, -2, -2, 2, 3, -5}, {6}, dtype, flex);
    EXPECT_EQ(valuesOf(a / b), (std::vector<double>{-4, -4, 3, 3, -2, 0}));
    EXPECT_EQ(valuesOf(a % b), (std::vector<double>{1, -1, -1, 1, 0, 0}));
    EXPECT_EQ(valuesOf(a % 3.0), (std::vector<double>{2, 1, 2, 1, 0, 0}));
  }
  // Floats follow the same floored rule for rem.
  Tensor x = tensorOf({-7.5, 7.5, -1}, {3}, DType::F32, flex);
  EXPECT_EQ(valuesOf(x % 2.0), (std::vector<double>{0.5, 1.5, 1}));
}

TEST(ElementwiseTest, IntegerArithmeticWraps) {
  DispatchDevice flex = DispatchDevice::flex();
  Tensor a = DispatchTensor::fromVector<int8_t>({127, -128, 100}, {3}, flex);
  Tensor b = DispatchTensor::fromVector<int8_t>({1, -1, 2}, {3}, flex);
  EXPECT_EQ((a + b).toVector<int8_t>(), (std::vector<int8_t>{-128, 127, 102}));
  EXPECT_EQ((a * b).toVector<int8_t>(), (std::vector<int8_t>{127, -128, -56}));
  Tensor u = DispatchTensor::fromVector<uint8_t>({0, 255, 3}, {3}, flex);
  Tensor v = DispatchTensor::fromVector<uint8_t>({1, 1, 5}, {3}, flex);
  EXPECT_EQ((u - v).toVector<uint8_t>(), (std::vector<uint8_t>{255, 254, 254}));
  EXPECT_EQ((u + v).toVector<uint8_t>(), (std::vector<uint8_t>{1, 0, 8}));
}

TEST(ElementwiseTest, MaxMinPropagateNaNFromEitherSide) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    // Long enough for the f32 vector loop and its tail.
    std::vector<double> a = cycle({1, kNaN, 3, -kInf, 2}, 37);
    std::vector<double> b = cycle({kNaN, 0, 4, 5, kInf, 1}, 37);
    Tensor x = tensorOf(a, {37}, dtype, flex),
           y = tensorOf(b, {37}, dtype, flex);
    std::vector<double> mx, mn;
    for (size_t i = 0; i < a.size(); ++i) {
      mx.push_back(maxRef(a[i], b[i]));
      mn.push_back(minRef(a[i], b[i]));
    }
    EXPECT_TRUE(allClose(valuesOf(maximum(x, y)), mx, {0, 0}));
    EXPECT_TRUE(allClose(valuesOf(minimum(y, x)), mn, {0, 0}));
    EXPECT_TRUE(allClose(valuesOf(maximum(flip(x, {0}), flip(y, {0}))),
                         std::vector<double>(mx.rbegin(), mx.rend()), {0, 0}));
  }
}

TEST(ElementwiseTest, WhereBroadcastsThreeWaysOnEveryDType) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> pool = sampleValues(dtype);
    std::vector<double> c{1, 0, 1}, a = cycle(pool, 4), b{pool[1]};
    // cond [3, 1], x [4] (flipped), y rank 0 -> [3, 4].
    Tensor cond = tensorOf(c, {3, 1}, DType::Bool, flex);
    Tensor x = viewOf(a, {4}, dtype, 2);
    Tensor y = tensorOf(b, {}, dtype, flex);
    Tensor z = where(cond, x, y);
    ASSERT_EQ(z.shape(), Shape({3, 4}));
    std::vector<double> want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        want.push_back(c[i] ? a[j] : b[0]);
    EXPECT_EQ(valuesOf(z), want);
  }
}

/// A where whose condition dies in the graph must not write its result
/// over an operand that a handle still holds.
TEST(ElementwiseTest, WhereKeepsOperandsHeldByHandles) {
  DispatchDevice flex = DispatchDevice::flex();
  Tensor x = tensorOf({-1, 2, -3, 4}, {4}, DType::F32, flex);
  Tensor y = tensorOf({10, 20, 30, 40}, {4}, DType::F32, flex);
  kiln::sync({x, y}); // leaves of the next graph, read again below
  Tensor z = where(x > 0.0, x, y);
  EXPECT_EQ(valuesOf(z), (std::vector<double>{10, 2, 30, 4}));
  EXPECT_EQ(valuesOf(x), (std::vector<double>{-1, 2, -3, 4}));
  EXPECT_EQ(valuesOf(y), (std::vector<double>{10, 20, 30, 40}));
}

TEST(ElementwiseTest, DetachKeepsTheValuesOfEveryDType) {
  DispatchDevice ad = DispatchDevice::autodiff(DispatchDevice::flex(),
                                               CheckpointingStrategy::Balanced);
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> v = storedAll(dtype, sampleValues(dtype));
    Tensor x = tensorOf(v, {static_cast<int64_t>(v.size())}, dtype, ad);
    Tensor y = viewOf(v, {static_cast<int64_t>(v.size())}, dtype, 2).detach();
    EXPECT_FALSE(y.checkpointing.has_value());
    EXPECT_EQ(valuesOf(y), v);
    EXPECT_EQ(valuesOf(x.detach()), v);
  }
}

TEST(ElementwiseTest, PowOfSpecialExponents) {
  // 2, 3, 0.5, -1 and -0.5 record products, roots and reciprocals: the
  // values are pow's, and the graph has no kiln.pow.
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> v{0.25, 1.5, 2.0, 7.0};
  Tensor x = tensorOf(v, {4}, DType::F32, flex);
  for (double e : {2.0, 3.0, 0.5, -1.0, -0.5, 2.5}) {
    std::vector<double> want;
    for (double a : v)
      want.push_back(std::pow(static_cast<float>(a), e));
    Tensor y = pow(x, e);
    EXPECT_TRUE(allClose(valuesOf(y), want, Tolerance{1e-6, 1e-6})) << e;
    bool generic =
        dumpGraph(pow(x * 1.0, e)).find("kiln.pow") != std::string::npos;
    EXPECT_EQ(generic, e == 2.5) << e;
  }
}

TEST(ElementwiseTest, ScalarsTakeTheTensorDType) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : numericDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor x = tensorOf({1, 2, 3}, {3}, dtype, flex);
    Tensor y = 2.0 * x + 1.0;
    EXPECT_EQ(y.dtype(), dtype);
    EXPECT_EQ(valuesOf(y), (std::vector<double>{3, 5, 7}));
    EXPECT_EQ(valuesOf(10.0 - x), (std::vector<double>{9, 8, 7}));
  }
  Tensor h = tensorOf({1, 2}, {2}, DType::F16, flex);
  EXPECT_EQ(valuesOf(1.0 / h), (std::vector<double>{1, 0.5}));
  EXPECT_EQ(valuesOf(pow(h, 2.0)), (std::vector<double>{1, 4}));
}


//===----------------------------------------------------------------------===//
// The f32 vector loops at the edges of their ranges
//===----------------------------------------------------------------------===//

/// pow's vector form computes b log a in f64; over the whole exponent range
/// of f32 results it must stay as close as the scalar powf.
TEST(ElementwiseTest, PowStaysAccurateOverTheWholeRange) {
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> a, b, want;
  // Bases from 1e-6 to 1e6, exponents up to +-24: results from the
  // subnormal range to overflow.
  for (int i = 0; i < 4001; ++i) {
    double base = std::pow(10.0, -6 + 12.0 * ((i * 7919) % 4001) / 4000.0);
    double exponent = -24 + 48.0 * ((i * 104729) % 4001) / 4000.0;
    a.push_back(static_cast<float>(base));
    b.push_back(static_cast<float>(exponent));
  }
  // Bases that take the scalar lanes: zero, negative, subnormal, inf, NaN.
  const double special[][2] = {{0, -1},   {0, 2},      {-0.0, -3},
                               {-2, 3},   {-2, 0.5},   {-8, -1},
                               {1e-40, 1}, {1e-40, -0.5}, {kInf, -1},
                               {kInf, 2}, {kNaN, 0},  {1, kNaN},
                               {2, kInf}, {0.5, kInf}, {-1, kInf}};
  for (const auto &p : special) {
    a.push_back(p[0]);
    b.push_back(p[1]);
  }
  for (size_t i = 0; i < a.size(); ++i)
    want.push_back(static_cast<double>(storedAs(
        DType::F32, std::pow(static_cast<float>(a[i]), static_cast<float>(b[i])))));
  int64_t n = static_cast<int64_t>(a.size());
  Tensor z = pow(tensorOf(a, {n}, DType::F32, flex),
                 tensorOf(b, {n}, DType::F32, flex));
  // Within 2 ulps of powf, which is itself within 1 of the true value.
  EXPECT_TRUE(allClose(valuesOf(z), want, {1e-44, 2.4e-7}));
}

/// Large exponents on bases near 1: b ln a reaches the whole range while
/// ln a is small, so its low part must stay small next to its high part
/// (bases just above sqrt(1/2), where the series' tail is largest, once
/// came out thousands of ulps off).
TEST(ElementwiseTest, PowStaysAccurateForLargeExponents) {
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> a, b, want;
  for (int i = 0; i < 4001; ++i) {
    float base = static_cast<float>(0.5 + 1.5 * ((i * 7919) % 4001) / 4000.0);
    if (i % 4 == 0) // crowd the top of the reduction's range
      base = static_cast<float>(0.70710678 + 0.001 * (i % 97) / 97.0);
    float exponent = static_cast<float>(-200 + 400.0 * ((i * 104729) % 4001) / 4000.0);
    a.push_back(base);
    b.push_back(exponent);
    want.push_back(static_cast<double>(storedAs(DType::F32, std::pow(base, exponent))));
  }
  int64_t n = static_cast<int64_t>(a.size());
  Tensor z = pow(tensorOf(a, {n}, DType::F32, flex),
                 tensorOf(b, {n}, DType::F32, flex));
  EXPECT_TRUE(allClose(valuesOf(z), want, {1e-44, 2.4e-7}));
}

/// cos(0) and sin(pi/2) are exactly 1; the vector sin and cos agree with
/// libm's up to the limit of their range reduction and past it.
TEST(ElementwiseTest, SinCosAtZeroAndLargeArguments) {
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> x = {0.0, -0.0, 1.5707963267948966, 1e4, -3e4, 32767.5,
                           32768.5, 1e5, -1e7, 1e30};
  std::vector<double> in = cycle(x, 37), s, c;
  for (double v : in) {
    s.push_back(std::sin(static_cast<double>(static_cast<float>(v))));
    c.push_back(std::cos(static_cast<double>(static_cast<float>(v))));
  }
  int64_t n = static_cast<int64_t>(in.size());
  Tensor t = tensorOf(in, {n}, DType::F32, flex);
  std::vector<double> gs = valuesOf(sin(t)), gc = valuesOf(cos(t));
  EXPECT_TRUE(allClose(gs, s, tolerance("kiln.sin", DType::F32)));
  EXPECT_TRUE(allClose(gc, c, tolerance("kiln.cos", DType::F32)));
  EXPECT_EQ(gc[0], 1.0);
  EXPECT_EQ(gc[1], 1.0);
  EXPECT_EQ(gs[2], 1.0);
}

/// rem's vector form is exact below a quotient of 2^22; beyond it and for
/// the special values the scalar lanes take over.
TEST(ElementwiseTest, RemIsExactForLargeQuotientsAndSpecialValues) {
  DispatchDevice flex = DispatchDevice::flex();
  const double pairs[][2] = {
      {7.5, 2},       {-7.5, 2},    {7.5, -2},    {-7.5, -2},   {6, 3},
      {-6, 3},        {6, -3},      {-0.0, 3},    {0.0, -3},    {1e10, 3},
      {-1e10, 3},     {4194303, 0.7}, {4194305, 0.3}, {1e30, 1e-30}, {1, 0},
      {kInf, 2},      {2, kInf},    {-2, kInf},   {kNaN, 1},    {1, kNaN},
      {0.3, 0.1},     {1e-40, 3e-41}, {123456.78, 0.001}, {5, 1e-45}};
  std::vector<double> a, b, want;
  for (int rep = 0; rep < 3; ++rep) // vector lanes in every position
    for (const auto &p : pairs) {
      a.push_back(p[0]);
      b.push_back(p[1]);
      float r = std::fmod(static_cast<float>(p[0]), static_cast<float>(p[1]));
      if (r != 0 && ((r < 0) != (p[1] < 0)))
        r += static_cast<float>(p[1]);
      want.push_back(r);
    }
  int64_t n = static_cast<int64_t>(a.size());
  Tensor z = tensorOf(a, {n}, DType::F32, flex) % tensorOf(b, {n}, DType::F32, flex);
  std::vector<double> got = valuesOf(z);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(std::to_string(a[i]) + " % " + std::to_string(b[i]));
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i]));
      continue;
    }
    EXPECT_EQ(got[i], want[i]); // exact, signed zeros included
    EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i]));
  }
}

TEST(ElementwiseTest, Atan2HandlesEveryQuadrantAndSpecialValue) {
  DispatchDevice flex = DispatchDevice::flex();
  const double vals[] = {0.0, -0.0, 1, -1, 1e-38, -3e-39, 1e38, -1e38,
                         kInf, -kInf, kNaN, 0.5, -2.5};
  std::vector<double> y, x, want;
  for (double a : vals)
    for (double b : vals) {
      y.push_back(a);
      x.push_back(b);
      want.push_back(std::atan2(static_cast<float>(a), static_cast<float>(b)));
    }
  int64_t n = static_cast<int64_t>(y.size());
  std::vector<double> got = valuesOf(atan2(tensorOf(y, {n}, DType::F32, flex),
                                           tensorOf(x, {n}, DType::F32, flex)));
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.atan2", DType::F32)));
  for (size_t i = 0; i < got.size(); ++i)
    if (want[i] == 0)
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << y[i] << " " << x[i];
}

/// exp near overflow and through the subnormal range, and the ops built on
/// it (sigmoid, silu, erf) at the far ends.
TEST(ElementwiseTest, ExpFamilyAtTheEndsOfTheRange) {
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> x = {88.72, 88.7228, 88.7229, 89, 100,   -87.3,
                           -87.4, -95,     -100,    -103.9, -104.5, -200,
                           1e-30, -1e-30,  0,       -0.0,  30,    -30};
  int64_t n = static_cast<int64_t>(x.size());
  Tensor t = tensorOf(x, {n}, DType::F32, flex);
  std::vector<double> e, sg, si, ef;
  for (double v : x) {
    float f = static_cast<float>(v);
    e.push_back(static_cast<double>(storedAs(DType::F32, std::exp((double)f))));
    sg.push_back(1 / (1 + std::exp(-(double)f)));
    si.push_back(f / (1 + std::exp(-(double)f)));
    ef.push_back(std::erf((double)f));
  }
  // Relative tolerance, and one subnormal ulp absolute.
  EXPECT_TRUE(allClose(valuesOf(exp(t)), e, {1.5e-45, 1.9e-6}));
  EXPECT_TRUE(allClose(valuesOf(sigmoid(t)), sg, tolerance("kiln.sigmoid", DType::F32)));
  EXPECT_TRUE(allClose(valuesOf(silu(t)), si, tolerance("kiln.silu", DType::F32)));
  EXPECT_TRUE(allClose(valuesOf(erf(t)), ef, tolerance("kiln.erf", DType::F32)));
}

/// Outputs larger than half the last-level cache take non-temporal stores,
/// with an unaligned head wherever a thread's share starts mid-vector.
TEST(ElementwiseTest, StreamedOutputsMatchTheCachedOnes) {
  DispatchDevice flex = DispatchDevice::flex();
  const int64_t n = (int64_t(1) << 23) + 13; // 32 MiB of f32 and a tail
  std::vector<double> pool = {-2.5, 0.5, 3, kNaN, -0.0, 1e-3, 7.25};
  std::vector<double> in = cycle(pool, n);
  Tensor x = tensorOf(in, {n}, DType::F32, flex);
  Tensor c = x > 0.0;
  struct Row {
    const char *name;
    Tensor got;
    std::function<double(double)> ref;
  };
  std::vector<Row> rows = {
      {"exp", exp(x), [](double v) { return (double)std::exp((float)v); }},
      {"add", x + x, [](double v) { return v + v; }},
      {"where", where(c, x, -x), [](double v) { return v > 0 ? v : -v; }},
      {"clamp", clamp(x, -1.0, 1.0),
       [](double v) { return std::isnan(v) ? v : std::min(1.0, std::max(-1.0, v)); }},
      {"cast", x.cast(DType::I32).cast(DType::F32),
       [](double v) { return std::isnan(v) ? 0.0 : std::trunc(v); }}};
  for (Row &r : rows) {
    SCOPED_TRACE(r.name);
    std::vector<double> got = valuesOf(r.got);
    ASSERT_EQ(static_cast<int64_t>(got.size()), n);
    // Spot-check a stride through the whole output and both ends.
    for (int64_t i = 0; i < n; i += i < 100 ? 1 : 9973) {
      double want = r.ref(in[i]);
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(got[i])) << i;
      else
        ASSERT_NEAR(got[i], want, 4e-7 * std::fabs(want)) << i;
    }
    EXPECT_NEAR(got[n - 1], r.ref(in[n - 1]), 4e-7 * std::fabs(r.ref(in[n - 1])));
  }
}

/// Long f32 inputs of the transcendental ops run in passes over blocks of
/// lanes, and a block with a special value in it in the one-pass form that
/// short inputs take. Either way an element's result is the same: on an
/// input whose blocks are mostly ordinary, with special values in a few,
/// each op matches itself on short slices bit for bit, and its reference.
TEST(ElementwiseTest, BlockedPassesMatchTheOnePassForm) {
  DispatchDevice flex = DispatchDevice::flex();
  const int64_t n = 4096 + 77;
  std::vector<double> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(-6 + 12.0 * ((i * 7919) % 4099) / 4098.0);
    y[i] = static_cast<float>(0.25 + 4.0 * ((i * 104729) % 4097) / 4096.0);
  }
  const double special[] = {kNaN, kInf, -kInf, 0, -0.0, 1e-40, -200, 200};
  for (size_t k = 0; k < std::size(special); ++k) {
    x[1000 + 3 * k] = special[k];
    y[2600 + 5 * k] = special[k];
  }
  struct Row {
    const char *name;
    const char *op;
    std::function<Tensor(const Tensor &, const Tensor &)> fn;
    std::function<double(double, double)> ref;
  };
  std::vector<Row> rows = {
      {"exp", "kiln.exp", [](auto &a, auto &) { return exp(a); },
       [](double a, double) { return std::exp(a); }},
      {"log", "kiln.log", [](auto &, auto &b) { return log(b); },
       [](double, double b) { return std::log(b); }},
      {"log1p", "kiln.log1p", [](auto &, auto &b) { return log1p(b); },
       [](double, double b) { return std::log1p(b); }},
      {"sigmoid", "kiln.sigmoid", [](auto &a, auto &) { return sigmoid(a); },
       [](double a, double) { return sigmoidRef(a); }},
      {"silu", "kiln.silu", [](auto &a, auto &) { return silu(a); },
       [](double a, double) { return a * sigmoidRef(a); }},
      {"gelu_tanh", "kiln.gelu", [](auto &a, auto &) { return gelu(a, true); },
       [](double a, double) { return geluTanhRef(a); }},
      {"pow", "kiln.pow", [](auto &a, auto &b) { return pow(b, a); },
       [](double a, double b) { return std::pow(b, a); }},
      {"rem", "kiln.rem", [](auto &a, auto &b) { return rem(a, b); },
       [](double a, double b) {
         double r = std::fmod(a, b);
         return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
       }},
      {"atan2", "kiln.atan2", [](auto &a, auto &b) { return atan2(a, b); },
       [](double a, double b) { return std::atan2(a, b); }},
  };
  Tensor tx = tensorOf(x, {n}, DType::F32, flex);
  Tensor ty = tensorOf(y, {n}, DType::F32, flex);
  for (const Row &r : rows) {
    SCOPED_TRACE(r.name);
    std::vector<double> whole = valuesOf(r.fn(tx, ty));
    ASSERT_EQ(static_cast<int64_t>(whole.size()), n);
    std::vector<double> want;
    for (int64_t i = 0; i < n; ++i)
      want.push_back(static_cast<double>(
          storedAs(DType::F32, r.ref(x[i], y[i]))));
    EXPECT_TRUE(allClose(whole, want, tolerance(r.op, DType::F32)));
    for (int64_t start = 0; start < n; start += 7) {
      int64_t len = std::min<int64_t>(7, n - start);
      std::vector<double> part =
          valuesOf(r.fn(tx.narrow(0, start, len), ty.narrow(0, start, len)));
      for (int64_t k = 0; k < len; ++k) {
        double w = whole[start + k], p = part[k];
        ASSERT_TRUE(std::isnan(w) ? std::isnan(p)
                                  : std::memcmp(&w, &p, sizeof w) == 0)
            << "element " << start + k << ": " << w << " in the whole, " << p
            << " alone";
      }
    }
  }
}

TEST(ElementwiseTest, HalfAndIntCastsRoundAndSaturate) {
  DispatchDevice flex = DispatchDevice::flex();
  // f16: ties to even, the largest finite, overflow, subnormals, NaN.
  std::vector<double> h = {1.0009765625, 1.00146484375, 1.000732421875,
                           65504,        65519.99,      65520,
                           -70000,       5.96e-8,       2.98e-8,
                           2.99e-8,      1e-10,         -0.0,
                           kInf,         kNaN,          0.1};
  std::vector<double> hWant = {1.0009765625, 1.001953125, 1.0009765625,
                               65504,        65504,       kInf,
                               -kInf,        5.960464477539063e-08, 0,
                               5.960464477539063e-08, 0,   -0.0,
                               kInf,         kNaN,        0.0999755859375};
  std::vector<double> hLong = cycle(h, 1001), hLongWant = cycle(hWant, 1001);
  EXPECT_TRUE(allClose(valuesOf(tensorOf(hLong, {1001}, DType::F32, flex).cast(DType::F16)),
                       hLongWant, {0, 0}));
  // And back, exactly.
  Tensor half = tensorOf(hLongWant, {1001}, DType::F16, flex);
  EXPECT_TRUE(allClose(valuesOf(half.cast(DType::F32)), hLongWant, {0, 0}));
  // i32: toward zero, saturating, NaN to 0.
  std::vector<double> i = {2.5, -2.5, 2147483520.0, 2147483648.0, -2147483648.0,
                           -3e9, kInf, -kInf, kNaN, -0.0, 0.999};
  std::vector<double> iWant = {2, -2, 2147483520.0, 2147483647.0, -2147483648.0,
                               -2147483648.0, 2147483647.0, -2147483648.0, 0, 0, 0};
  EXPECT_EQ(valuesOf(tensorOf(cycle(i, 103), {103}, DType::F32, flex).cast(DType::I32)),
            cycle(iWant, 103));
}


/// log1p near 0, where 1 + x rounds and the lost part must come back.
TEST(ElementwiseTest, Log1pIsAccurateNearZero) {
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> x = {1e-30, -1e-30, 1e-40, 3e-8,  -3e-8,  1e-7,
                           1e-6,  -1e-6,  1e-5,  3e-4,  -3e-4,  0.01,
                           -0.01, 0.0625, 1.5e-5, 7e-7, -5.9e-8, 2e-3};
  std::vector<double> in, want;
  for (double v : cycle(x, 71)) {
    float f = static_cast<float>(v);
    in.push_back(f);
    want.push_back(std::log1p(static_cast<double>(f)));
  }
  Tensor y = log1p(tensorOf(in, {71}, DType::F32, flex));
  EXPECT_TRUE(allClose(valuesOf(y), want, {1e-45, 4 * 1.2e-7}));
}

} // namespace
