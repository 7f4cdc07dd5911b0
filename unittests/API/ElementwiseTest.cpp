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

} // namespace
