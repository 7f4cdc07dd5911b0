//===- ElementwiseDiffTest.cpp - Elementwise ops, Cpu against Flex --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every unary, binary, comparison, logic, where and cast op, for every dtype
// its ODS constraint accepts, over contiguous inputs whose rows have a
// vector tail, strided views (transposed, flipped, step-sliced), IEEE
// special values, and every broadcasting form: a rank-0 tensor, a scalar
// argument, size-1 dims on either side and leading dims. One batch (one Cpu
// compile) per test and dtype.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

using namespace kiln;
using namespace kiln::test;

namespace {

struct UnaryCase {
  const char *op;
  std::function<Tensor(const Tensor &)> fn;
  std::vector<DType> dtypes;
  double lo, hi; ///< the input range for floats
};

std::vector<UnaryCase> unaryCases() {
  auto F = floatDTypes(), S = signedDTypes(), N = numericDTypes();
  return {
      {"kiln.neg", [](const Tensor &x) { return -x; }, S, -10, 10},
      {"kiln.abs", [](const Tensor &x) { return abs(x); }, S, -10, 10},
      {"kiln.exp", [](const Tensor &x) { return exp(x); }, F, -10, 10},
      {"kiln.log", [](const Tensor &x) { return log(x); }, F, 0.01, 100},
      {"kiln.log1p", [](const Tensor &x) { return log1p(x); }, F, -0.9, 10},
      {"kiln.sqrt", [](const Tensor &x) { return sqrt(x); }, F, 0, 100},
      {"kiln.rsqrt", [](const Tensor &x) { return rsqrt(x); }, F, 0.01, 100},
      {"kiln.recip", [](const Tensor &x) { return recip(x); }, F, 0.1, 10},
      {"kiln.sin", [](const Tensor &x) { return sin(x); }, F, -10, 10},
      {"kiln.cos", [](const Tensor &x) { return cos(x); }, F, -10, 10},
      {"kiln.tan", [](const Tensor &x) { return tan(x); }, F, -1.4, 1.4},
      {"kiln.tanh", [](const Tensor &x) { return tanh(x); }, F, -5, 5},
      {"kiln.sigmoid", [](const Tensor &x) { return sigmoid(x); }, F, -10, 10},
      {"kiln.erf", [](const Tensor &x) { return erf(x); }, F, -3, 3},
      {"kiln.relu", [](const Tensor &x) { return relu(x); }, S, -10, 10},
      {"kiln.gelu", [](const Tensor &x) { return gelu(x); }, F, -5, 5},
      {"kiln.gelu", [](const Tensor &x) { return gelu(x, true); }, F, -5, 5},
      {"kiln.silu", [](const Tensor &x) { return silu(x); }, F, -8, 8},
      {"kiln.log_sigmoid", [](const Tensor &x) { return logSigmoid(x); }, F,
       -30, 30},
      {"kiln.hardswish", [](const Tensor &x) { return hardswish(x); }, F, -5,
       5},
      {"kiln.mish", [](const Tensor &x) { return mish(x); }, F, -8, 8},
      {"kiln.leaky_relu", [](const Tensor &x) { return leakyRelu(x); }, F, -5,
       5},
      {"kiln.elu", [](const Tensor &x) { return elu(x, 0.7); }, F, -5, 5},
      {"kiln.softplus", [](const Tensor &x) { return softplus(x, 1.5, 4); }, F,
       -30, 30},
      {"kiln.floor", [](const Tensor &x) { return floor(x); }, F, -10, 10},
      {"kiln.ceil", [](const Tensor &x) { return ceil(x); }, F, -10, 10},
      {"kiln.round", [](const Tensor &x) { return round(x); }, F, -10, 10},
      {"kiln.sign", [](const Tensor &x) { return sign(x); }, S, -3, 3},
      {"kiln.clamp", [](const Tensor &x) { return clamp(x, -2.5, 4); }, N, -8,
       8},
      {"kiln.is_nan", [](const Tensor &x) { return isNan(x); }, F, -1, 1},
  };
}

/// Values of `dtype` in [lo, hi] (integers: a range each dtype holds), with
/// exact halves and zeros mixed in so that rounding ties are exercised.
std::vector<double> unaryInputs(Rng &rng, int64_t n, DType dtype, double lo,
                                double hi) {
  if (dtype.isInteger())
    return randomValues(rng, n, dtype, dtype == DType::U8 ? 0 : -100, 100);
  std::vector<double> v = randomValues(rng, n, dtype, lo, hi);
  for (int64_t i = 0; i < n; i += 7)
    v[i] = std::clamp(std::round(v[i]) + 0.5, lo, hi);
  return v;
}

class ElementwiseDiffTest : public ::testing::TestWithParam<DType> {};

TEST_P(ElementwiseDiffTest, Unary) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(1);
    for (const UnaryCase &c : unaryCases()) {
      if (std::find(c.dtypes.begin(), c.dtypes.end(), dtype) == c.dtypes.end())
        continue;
      // Rows of 67: a vector body and a tail.
      Tensor x = s.input(unaryInputs(rng, 3 * 67, dtype, c.lo, c.hi), {3, 67},
                         dtype);
      s.check(c.op, dtype, std::string(c.op) + " [3, 67]", c.fn(x));
      // A transposed view and a step-2 slice feed the op.
      Tensor t = s.input(unaryInputs(rng, 5 * 9, dtype, c.lo, c.hi), {9, 5},
                         dtype);
      s.check(c.op, dtype, std::string(c.op) + " transposed", c.fn(t.transpose()));
      s.check(c.op, dtype, std::string(c.op) + " step slice",
              c.fn(t.slice({1, 0}, {9, 5}, {2, 2})));
      s.check(c.op, dtype, std::string(c.op) + " rank 0",
              c.fn(s.input({c.hi / 2}, {}, dtype)));
    }
  });
}

TEST_P(ElementwiseDiffTest, Binary) {
  DType dtype = GetParam();
  if (dtype.isBool())
    GTEST_SKIP() << "arithmetic takes numeric dtypes";
  struct BinaryCase {
    const char *op;
    std::function<Tensor(const Tensor &, const Tensor &)> fn;
    std::function<Tensor(const Tensor &, double)> scalar;
    bool floatOnly;
    bool nonzeroRhs;
  };
  std::vector<BinaryCase> cases = {
      {"kiln.add", [](auto &x, auto &y) { return x + y; },
       [](auto &x, double y) { return x + y; }, false, false},
      {"kiln.sub", [](auto &x, auto &y) { return x - y; },
       [](auto &x, double y) { return x - y; }, false, false},
      {"kiln.mul", [](auto &x, auto &y) { return x * y; },
       [](auto &x, double y) { return x * y; }, false, false},
      {"kiln.div", [](auto &x, auto &y) { return x / y; },
       [](auto &x, double y) { return x / y; }, false, true},
      {"kiln.rem", [](auto &x, auto &y) { return x % y; },
       [](auto &x, double y) { return x % y; }, false, true},
      {"kiln.max", [](auto &x, auto &y) { return maximum(x, y); }, nullptr,
       false, false},
      {"kiln.min", [](auto &x, auto &y) { return minimum(x, y); }, nullptr,
       false, false},
      {"kiln.pow", [](auto &x, auto &y) { return pow(abs(x) + 0.25, y); },
       [](auto &x, double y) { return pow(abs(x) + 0.25, y); }, true, false},
      {"kiln.atan2", [](auto &x, auto &y) { return atan2(x, y); }, nullptr,
       true, false},
  };
  bool isInt = dtype.isInteger();
  // Small magnitudes: products and sums stay in range for i8, except u8's
  // subtraction, which wraps on both backends alike.
  double lo = dtype == DType::U8 ? 0 : isInt ? -11 : -4;
  double hi = isInt ? 11 : 4;
  compareOnDevices([&](Side &s) {
    Rng rng(2);
    auto lhs = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, lo, hi), shape,
                     dtype);
    };
    // Divisors keep away from zero (integer division by zero traps).
    auto rhs = [&](Shape shape, bool nonzero) {
      std::vector<double> v = randomValues(rng, shape.numel(), dtype, lo, hi);
      if (nonzero)
        for (double &x : v) {
          double mag = isInt ? std::max<double>(1, std::fabs(x))
                             : std::max(0.5, std::fabs(x));
          x = dtype == DType::U8 || rng.chance(0.6)
                  ? mag
                  : -mag;
        }
      return s.input(v, shape, dtype);
    };
    for (const BinaryCase &c : cases) {
      if (c.floatOnly && !dtype.isFloat())
        continue;
      std::string op = c.op;
      s.check(op, dtype, op + " [4, 33]", c.fn(lhs({4, 33}), rhs({4, 33}, c.nonzeroRhs)));
      s.check(op, dtype, op + " rank-0 rhs", c.fn(lhs({2, 7}), rhs({}, c.nonzeroRhs)));
      s.check(op, dtype, op + " rank-0 lhs", c.fn(lhs({}), rhs({5}, c.nonzeroRhs)));
      s.check(op, dtype, op + " rank 0", c.fn(lhs({}), rhs({}, c.nonzeroRhs)));
      s.check(op, dtype, op + " [3,1,5] x [1,4,5]",
              c.fn(lhs({3, 1, 5}), rhs({1, 4, 5}, c.nonzeroRhs)));
      s.check(op, dtype, op + " [2,3,17] x [17]",
              c.fn(lhs({2, 3, 17}), rhs({17}, c.nonzeroRhs)));
      s.check(op, dtype, op + " [6] x [2,3,1]",
              c.fn(lhs({6}), rhs({2, 3, 1}, c.nonzeroRhs)));
      s.check(op, dtype, op + " [2,1,4,1] x [3,1,5]",
              c.fn(lhs({2, 1, 4, 1}), rhs({3, 1, 5}, c.nonzeroRhs)));
      // Views feed the op: a transpose against a flip, a step slice
      // against a broadcast column.
      s.check(op, dtype, op + " transposed x flipped",
              c.fn(lhs({9, 6}).transpose(), flip(rhs({6, 9}, c.nonzeroRhs), {0, 1})));
      s.check(op, dtype, op + " sliced x column",
              c.fn(lhs({8, 20}).slice({1, 3}, {8, 20}, {3, 2}),
                   rhs({3, 1}, c.nonzeroRhs)));
      if (c.scalar) {
        double y = c.nonzeroRhs ? (isInt ? 3 : 0.75) : (isInt ? 3 : 0.5);
        s.check(op, dtype, op + " scalar", c.scalar(lhs({5, 19}), y));
      }
    }
  });
}

TEST_P(ElementwiseDiffTest, CompareAndWhere) {
  DType dtype = GetParam();
  const char *ops[] = {"kiln.eq", "kiln.ne", "kiln.lt",
                       "kiln.le", "kiln.gt", "kiln.ge"};
  std::function<Tensor(const Tensor &, const Tensor &)> fns[] = {
      [](auto &x, auto &y) { return x == y; },
      [](auto &x, auto &y) { return x != y; },
      [](auto &x, auto &y) { return x < y; },
      [](auto &x, auto &y) { return x <= y; },
      [](auto &x, auto &y) { return x > y; },
      [](auto &x, auto &y) { return x >= y; }};
  compareOnDevices([&](Side &s) {
    Rng rng(3);
    // Few distinct values, so that ties are common.
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, 0, 3), shape,
                     dtype);
    };
    for (int i = 0; i < 6; ++i) {
      std::string op = ops[i];
      s.check(op, dtype, op + " [5, 37]", fns[i](in({5, 37}), in({5, 37})));
      s.check(op, dtype, op + " [4,1] x [1,9]", fns[i](in({4, 1}), in({1, 9})));
      s.check(op, dtype, op + " rank-0 rhs", fns[i](in({3, 5}), in({})));
      s.check(op, dtype, op + " transposed",
              fns[i](in({7, 4}).transpose(), in({4, 7})));
    }
    if (!dtype.isBool()) {
      s.check("kiln.lt", dtype, "kiln.lt scalar", in({4, 6}) < 1.0);
      s.check("kiln.eq", dtype, "kiln.eq scalar", in({4, 6}) == 2.0);
    }
    Tensor cond = s.input(randomValues(rng, 6 * 35, DType::Bool, 0, 1),
                          {6, 35}, DType::Bool);
    s.check("kiln.where", dtype, "kiln.where [6, 35]",
            where(cond, in({6, 35}), in({6, 35})));
    s.check("kiln.where", dtype, "kiln.where broadcast three ways",
            where(cond.slice({0, 0}, {6, 1}), in({1, 35}), in({})));
    s.check("kiln.where", dtype, "kiln.where flipped condition",
            where(flip(cond, {1}), in({6, 35}).transpose().transpose(),
                  in({35})));
    if (!dtype.isBool())
      s.check("kiln.where", dtype, "kiln.where scalar",
              where(cond, in({6, 35}), 2.0));
  });
}

TEST_P(ElementwiseDiffTest, CastToEveryDType) {
  DType from = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(4);
    // In range for every target, with fractions (truncation) and, for
    // floats, values that saturate narrow integers.
    std::vector<double> v =
        randomValues(rng, 3 * 41, from, from == DType::U8 ? 0 : -120, 120);
    if (from.isFloat()) {
      v[0] = 300;
      v[1] = -300;
      v[2] = 1e5;
      v[3] = -0.5;
      v[4] = 0.75;
    }
    Tensor x = s.input(v, {3, 41}, from);
    for (DType to : allDTypes()) {
      std::string label = "kiln.cast " + from.str() + " -> " + to.str();
      s.check("kiln.cast", from, label, cast(x, to));
      s.check("kiln.cast", from, label + " transposed",
              cast(x.transpose(), to));
    }
  });
}

TEST_P(ElementwiseDiffTest, SpecialValues) {
  DType dtype = GetParam();
  if (!dtype.isFloat())
    GTEST_SKIP() << "only floats have NaN, infinities and signed zeros";
  std::vector<double> v = {kNaN, kInf,  -kInf, 0.0, -0.0, 1e-30, -1e-30,
                           1e30, -1e30, 88.0, -88,  710,  -710,  0.5,
                           -0.5, 1.5,   2.5,   -2.5, 1,   -1,    3};
  compareOnDevices([&](Side &s) {
    Tensor x = s.input(v, {(int64_t)v.size()}, dtype);
    for (const UnaryCase &c : unaryCases()) {
      if (std::find(c.dtypes.begin(), c.dtypes.end(), dtype) == c.dtypes.end())
        continue;
      s.check(c.op, dtype, std::string(c.op) + " of special values", c.fn(x));
    }
    Tensor y = flip(x, {0});
    s.check("kiln.add", dtype, "kiln.add specials", x + y);
    s.check("kiln.mul", dtype, "kiln.mul specials", x * y);
    s.check("kiln.div", dtype, "kiln.div specials", x / y);
    s.check("kiln.max", dtype, "kiln.max specials", maximum(x, y));
    s.check("kiln.min", dtype, "kiln.min specials", minimum(x, y));
    s.check("kiln.pow", dtype, "kiln.pow specials", pow(x, y));
    s.check("kiln.atan2", dtype, "kiln.atan2 specials", atan2(x, y));
    s.check("kiln.rem", dtype, "kiln.rem specials", x % y);
    s.check("kiln.lt", dtype, "kiln.lt specials", x < y);
    s.check("kiln.eq", dtype, "kiln.eq specials", x == y);
    s.check("kiln.ne", dtype, "kiln.ne specials", x != y);
    for (DType to : {DType::I64, DType::I32, DType::I16, DType::I8, DType::U8,
                     DType::Bool, DType::F16, DType::BF16})
      s.check("kiln.cast", dtype, "kiln.cast specials to " + to.str(),
              cast(x, to));
  });
}

TEST(ElementwiseDiffTest, Logic) {
  compareOnDevices([&](Side &s) {
    Rng rng(5);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), DType::Bool, 0, 1),
                     shape, DType::Bool);
    };
    for (int i = 0; i < 2; ++i) {
      const char *op = i ? "kiln.or" : "kiln.and";
      auto fn = [&](const Tensor &x, const Tensor &y) {
        return i ? (x | y) : (x & y);
      };
      s.check(op, DType::Bool, std::string(op) + " [7, 45]",
              fn(in({7, 45}), in({7, 45})));
      s.check(op, DType::Bool, std::string(op) + " broadcast",
              fn(in({7, 1}), in({45})));
      s.check(op, DType::Bool, std::string(op) + " rank 0",
              fn(in({}), in({3, 4}).transpose()));
    }
    s.check("kiln.not", DType::Bool, "kiln.not", !in({5, 70}));
    s.check("kiln.not", DType::Bool, "kiln.not flipped", !flip(in({5, 7}), {1}));
  });
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ElementwiseDiffTest,
                         ::testing::ValuesIn(allDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace

// An elementwise kernel may write its output over an input that dies at
// the call, and read a bool mask: the Cpu backend vectorizes both (its
// loops' accesses are marked parallel, bools are loaded as bytes). The
// values must not change: rows of 37 and 130 (vector bodies and tails), a
// masked softmax's numerator over a dying intermediate, and a bool output.
TEST(ElementwiseInPlaceDiffTest, MaskedExpOverADyingInputAndBoolOutputs) {
  compareOnDevices([&](Side &s) {
    Rng rng(9);
    for (int64_t width : {37, 130}) {
      Shape shape{3, 5, width};
      Tensor x = s.input(randomValues(rng, shape.numel(), DType::F32, -2, 2),
                         shape, DType::F32);
      Tensor mask = s.input(randomValues(rng, 5 * width, DType::Bool, 0, 1),
                            {5, width}, DType::Bool);
      std::string at = " [3, 5, " + std::to_string(width) + "]";
      // x * 0.5 dies in the kernel that reads it after the row max.
      Tensor scores = where(mask, x * 0.5, -1e30);
      Tensor numerator = exp(scores - max(scores, {2}, true));
      s.check("masked exp" + at, numerator,
              chainTolerance({"kiln.mul", "kiln.where", "kiln.sub",
                              "kiln.exp"},
                             DType::F32));
      s.check("kiln.where", DType::Bool, "bool output" + at,
              where(mask, x > 0.5, x < -0.5));
    }
  });
}
