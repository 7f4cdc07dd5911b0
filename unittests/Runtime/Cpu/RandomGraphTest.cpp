//===- RandomGraphTest.cpp - Random graphs, Cpu against Flex --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A seeded generator writes small programs (5 to 30 ops over rank 0-4
// tensors with dims 1-17, 64 and 129) that mix elementwise ops with every
// broadcasting form, reductions over leading and trailing axes with and
// without keepdim, the softmax family, matmul, layout ops, casts,
// comparisons, where and indexing. Each program runs on Flex and on Cpu and
// every sink (and some intermediate values) is compared.
//
// The generator keeps every value well conditioned. It tracks, per value,
// bounds on the values and a bound on how far Cpu may drift from Flex: each
// op passes its inputs' drift on, scaled by its derivative over the bounds,
// and adds its own error from the tolerance table at the result's
// magnitude. Ops that give the same bits on both backends (IEEE-rounded
// arithmetic, comparisons, layout, ...) add nothing to exact inputs, and the
// discontinuous ones (floor, comparisons, casts to integers, argmax) only
// take exact inputs. Domains are conditioned with exact ops first (log
// reads abs(x) + 0.5, exp a clamp, divisors are kept away from zero).
//
// KILN_RANDOM_GRAPH=<n> runs graph n alone and prints its program.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>

using namespace kiln;
using namespace kiln::test;

namespace {

constexpr uint64_t kSeed = 0x6b696c6e;   // "kiln"
constexpr int kShards = 10;
constexpr int kGraphsPerShard = 52;
constexpr int kGraphsPerSync = 13;
constexpr int64_t kMaxNumel = 1 << 14;
constexpr double kMaxMagnitude = 1e4;

using Dims = std::vector<int64_t>;

std::string str(const Dims &d) { return Shape(d).str(); }

/// One instruction: its text and how to record it on a side.
struct Instr {
  std::string text;
  std::vector<int> args;
  std::function<Tensor(Side &, const std::vector<Tensor> &)> fn;
};

/// What the generator knows about a value.
struct Value {
  Tensor meta; ///< recorded on Flex, never run: shape and dtype
  double lo = 0, hi = 0;
  double err = 0;  ///< bound on |cpu - flex|; 0 when the bits must match
  double rtol = 0; ///< the worst rtol of the table among the ops behind it
  bool leaf = false;
  int users = 0;
  Dims dims() const { return meta.shape().dims(); }
  DType dtype() const { return meta.dtype(); }
  double mag() const { return std::max(std::fabs(lo), std::fabs(hi)); }
  bool exact() const { return err == 0; }
};

struct Program {
  int index = 0;
  std::vector<Instr> instrs;
  std::vector<Value> values;
  std::vector<int> outputs;
  int ops = 0; ///< non-leaf instructions

  std::string listing() const {
    std::ostringstream os;
    os << "graph " << index << ":\n";
    for (size_t i = 0; i < instrs.size(); ++i) {
      const Value &v = values[i];
      os << "  " << instrs[i].text << "  : " << v.dtype().str()
         << v.meta.shape().str() << " in [" << v.lo << ", " << v.hi
         << "] err " << v.err << "\n";
    }
    os << "  outputs:";
    for (int o : outputs)
      os << " v" << o;
    return os.str();
  }
};

bool broadcastable(const Dims &a, const Dims &b) {
  for (size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
    int64_t x = a[a.size() - i], y = b[b.size() - i];
    if (x != y && x != 1 && y != 1)
      return false;
  }
  return true;
}

Dims broadcastDims(Dims a, Dims b) {
  if (a.size() < b.size())
    std::swap(a, b);
  size_t lead = a.size() - b.size();
  for (size_t i = 0; i < b.size(); ++i)
    if (a[lead + i] == 1)
      a[lead + i] = b[i];
  return a;
}

int64_t numel(const Dims &d) {
  return std::accumulate(d.begin(), d.end(), int64_t(1), std::multiplies<>());
}

/// The range an integer dtype holds.
std::pair<double, double> intRange(DType d) {
  switch (d.kind()) {
  case DTypeKind::I8:
    return {-128, 127};
  case DTypeKind::U8:
    return {0, 255};
  case DTypeKind::I16:
    return {-32768, 32767};
  case DTypeKind::I32:
    return {-2147483648.0, 2147483647.0};
  default:
    return {-9.2e18, 9.2e18};
  }
}

class Generator {
public:
  explicit Generator(int index) : rng(kSeed ^ (uint64_t(index) * 0x9e3779b97f4a7c15ull)) {
    p.index = index;
  }

  Program generate();

private:
  using Fn = std::function<Tensor(Side &, const std::vector<Tensor> &)>;

  //===--- Recording ------------------------------------------------------===//

  /// Records an instruction on the metadata side; -1 when the API rejects
  /// it (a generator bug, reported) or the result is too large.
  int emit(const std::string &what, std::vector<int> args, Fn fn, double lo,
           double hi, double err, double rtol) {
    std::vector<Tensor> in;
    for (int a : args)
      in.push_back(p.values[a].meta);
    Tensor t;
    try {
      t = fn(meta, in);
    } catch (const Error &e) {
      ADD_FAILURE() << "graph " << p.index << ": the generator wrote an op "
                    << "the API rejects: " << what << ": " << e.what();
      return -1;
    }
    if (t.numel() > kMaxNumel)
      return -1;
    int id = static_cast<int>(p.values.size());
    std::string text = "v" + std::to_string(id) + " = " + what;
    for (int a : args) {
      ++p.values[a].users;
    }
    Value v;
    v.meta = t;
    v.lo = lo;
    v.hi = hi;
    v.err = err;
    v.rtol = rtol;
    for (int a : args)
      v.rtol = std::max(v.rtol, p.values[a].rtol);
    v.leaf = args.empty();
    p.values.push_back(v);
    p.instrs.push_back({text, std::move(args), std::move(fn)});
    if (!p.values.back().leaf)
      ++p.ops;
    return id;
  }

  /// A fresh input of `dims` with values in [lo, hi].
  int leaf(const Dims &dims, DType dtype, double lo, double hi) {
    std::vector<double> values =
        randomValues(rng, numel(dims), dtype, lo, hi);
    // Quarter steps in some inputs: exact halves reach round and floor.
    if (dtype.isFloat() && rng.chance(0.3))
      for (double &v : values)
        v = std::round(v * 4) / 4;
    if (dtype.isBool()) {
      lo = 0;
      hi = 1;
    }
    return emit("input " + str(dims),
                {},
                [values, dims, dtype](Side &s, const std::vector<Tensor> &) {
                  return s.input(values, Shape(dims), dtype);
                },
                lo, hi, 0, 0);
  }

  int freshLike(const Dims &dims, DType dtype) {
    if (dtype.isBool())
      return leaf(dims, dtype, 0, 1);
    if (dtype == DType::U8)
      return leaf(dims, dtype, 0, 9);
    if (dtype.isInteger())
      return leaf(dims, dtype, -6, 6);
    double s = rng.pick(std::vector<double>{1, 2, 3});
    return leaf(dims, dtype, -s, s);
  }

  /// The error of an op's result: the inputs' errors times the op's
  /// derivative bounds, plus the op's own error at the result's magnitude.
  /// An op that rounds once and identically on both backends only adds a
  /// rounding where its inputs already differ.
  double drift(const char *op, DType dtype, bool sameBits,
               std::initializer_list<std::pair<double, double>> scaled,
               double mag) {
    double e = 0;
    for (auto [factor, err] : scaled)
      e += factor * err;
    if (sameBits)
      return e > 0 ? e + 2 * epsilonOf(dtype) * std::max(1.0, mag) : 0.0;
    return e + tolerance(op, dtype).atol * std::max(1.0, mag);
  }
  double rtolOf(const char *op, DType dtype) {
    return tolerance(op, dtype).rtol;
  }

  //===--- Conditioning ---------------------------------------------------===//

  /// abs(v) + c: values >= c, with exact ops (u8 needs no abs).
  int positive(int v, double c = 0.5) {
    const Value &x = p.values[v];
    if (x.lo >= c)
      return v;
    DType d = x.dtype();
    int a = v;
    if (x.lo < 0)
      a = emit("abs(v" + std::to_string(v) + ")", {v},
               [](Side &, auto &in) { return abs(in[0]); }, 0, x.mag(), x.err,
               0);
    if (a < 0)
      return -1;
    const Value &y = p.values[a];
    return emit("v" + std::to_string(a) + " + " + std::to_string(c), {a},
                [c](Side &, auto &in) { return in[0] + c; }, y.lo + c,
                y.hi + c, drift("kiln.add", d, true, {{1, y.err}}, y.hi + c),
                0);
  }

  /// Scales v by a power of two (exact) until its magnitude is at most 4.
  int tame(int v, double limit = 4) {
    const Value &x = p.values[v];
    if (x.mag() <= limit || !x.dtype().isFloat())
      return v;
    double s = std::ldexp(1.0, -static_cast<int>(std::ceil(
                                    std::log2(x.mag() / limit))));
    return emit("v" + std::to_string(v) + " * " + std::to_string(s), {v},
                [s](Side &, auto &in) { return in[0] * s; }, x.lo * s,
                x.hi * s, x.err * s, 0);
  }

  //===--- Op families ----------------------------------------------------===//

  int unaryFloat(int v);
  int unaryInt(int v);
  int binary(int v);
  int compareWhere(int v);
  int reduce(int v);
  int axisOp(int v);
  int matmulOp(int v);
  int layout(int v);
  int castOp(int v);
  int indexing(int v);
  int boolOp(int v);

  /// A partner for a binary op with v: an existing value of v's dtype that
  /// broadcasts with it, or a fresh input of a broadcasting shape.
  int partner(int v);
  Dims partnerDims(const Dims &d);
  int64_t pickDim() {
    if (rng.chance(0.12))
      return rng.pick(std::vector<int64_t>{64, 129});
    if (rng.chance(0.25))
      return 1;
    return rng.between(1, 17);
  }

  /// The value to work on: mostly the newest, so that chains grow deep.
  int pickValue() {
    int n = static_cast<int>(p.values.size());
    double r = rng.uniform(0, 1);
    if (r < 0.55)
      return n - 1;
    if (r < 0.85)
      return std::max(0, n - 1 - static_cast<int>(rng.below(5)));
    return static_cast<int>(rng.below(n));
  }

  Rng rng;
  Program p;
  Side meta{DispatchDevice::flex()};
};

std::string vn(int v) { return "v" + std::to_string(v); }

Program Generator::generate() {
  double r = rng.uniform(0, 1);
  DType dtype = r < 0.5    ? DType::F32
                : r < 0.62 ? DType::F64
                : r < 0.74 ? DType::F16
                : r < 0.84 ? DType::BF16
                           : rng.pick(std::vector<DType>{DType::I64, DType::I32,
                                                         DType::I16, DType::I8,
                                                         DType::U8});
  int rank = static_cast<int>(rng.pick(std::vector<int64_t>{0, 1, 1, 2, 2, 2,
                                                            3, 3, 3, 4, 4}));
  Dims base;
  for (int i = 0; i < rank; ++i)
    base.push_back(pickDim());
  while (numel(base) > kMaxNumel / 4)
    *std::max_element(base.begin(), base.end()) /= 2;
  freshLike(base, dtype);
  if (rng.chance(0.5))
    freshLike(partnerDims(base), dtype);

  int target = static_cast<int>(rng.between(5, 27));
  int attempts = 0;
  while (p.ops < target && attempts++ < 400) {
    int v = pickValue();
    const Value &x = p.values[v];
    DType d = x.dtype();
    double c = rng.uniform(0, 1);
    int made = -1;
    if (d.isBool()) {
      made = c < 0.6 ? boolOp(v) : c < 0.8 ? layout(v) : castOp(v);
    } else if (d.isFloat()) {
      made = c < 0.22   ? unaryFloat(v)
             : c < 0.45 ? binary(v)
             : c < 0.52 ? compareWhere(v)
             : c < 0.63 ? reduce(v)
             : c < 0.69 ? axisOp(v)
             : c < 0.76 ? matmulOp(v)
             : c < 0.90 ? layout(v)
             : c < 0.95 ? castOp(v)
                        : indexing(v);
    } else {
      made = c < 0.15   ? unaryInt(v)
             : c < 0.40 ? binary(v)
             : c < 0.48 ? compareWhere(v)
             : c < 0.60 ? reduce(v)
             : c < 0.65 ? axisOp(v)
             : c < 0.71 ? matmulOp(v)
             : c < 0.87 ? layout(v)
             : c < 0.94 ? castOp(v)
                        : indexing(v);
    }
    (void)made;
  }
  // Sinks, and some intermediate values (a value that is both stored and
  // read splits kernels differently).
  for (size_t i = 0; i < p.values.size(); ++i) {
    const Value &v = p.values[i];
    if (!v.leaf && (v.users == 0 || rng.chance(0.12)))
      p.outputs.push_back(static_cast<int>(i));
  }
  return std::move(p);
}

Dims Generator::partnerDims(const Dims &d) {
  double c = rng.uniform(0, 1);
  Dims out = d;
  if (c < 0.3)
    return out; // the same shape
  if (c < 0.55) {
    for (int64_t &x : out)
      if (rng.chance(0.5))
        x = 1;
    return out; // size-1 dims
  }
  if (c < 0.7) {
    if (!out.empty())
      out.erase(out.begin(), out.begin() + rng.between(1, out.size()));
    return out; // trailing dims only
  }
  if (c < 0.8)
    return {}; // rank 0
  // Larger: new leading dims, and size-1 dims grown.
  for (int64_t &x : out)
    if (x == 1 && rng.chance(0.5))
      x = rng.between(2, 6);
  if (out.size() < 4 && rng.chance(0.6))
    out.insert(out.begin(), rng.between(2, 3));
  if (numel(broadcastDims(out, d)) > kMaxNumel)
    return d;
  return out;
}

int Generator::partner(int v) {
  const Value &x = p.values[v];
  std::vector<int> candidates;
  for (size_t i = 0; i < p.values.size(); ++i)
    if ((int)i != v && p.values[i].dtype() == x.dtype() &&
        broadcastable(p.values[i].dims(), x.dims()) &&
        numel(broadcastDims(p.values[i].dims(), x.dims())) <= kMaxNumel)
      candidates.push_back(static_cast<int>(i));
  if (!candidates.empty() && rng.chance(0.5))
    return rng.pick(candidates);
  if (rng.chance(0.08))
    return v; // x op x
  return freshLike(partnerDims(x.dims()), x.dtype());
}

int Generator::unaryFloat(int v) {
  Value x = p.values[v];
  DType d = x.dtype();
  double m = x.mag();
  int k = static_cast<int>(rng.below(19));
  auto un = [&](const char *op, const char *name, double lo, double hi,
                double slope, bool sameBits,
                Tensor (*fn)(const Tensor &), int in) {
    const Value &y = p.values[in];
    return emit(std::string(name) + "(" + vn(in) + ")", {in},
                [fn](Side &, auto &a) { return fn(a[0]); }, lo, hi,
                drift(op, d, sameBits, {{slope, y.err}},
                      std::max({std::fabs(lo), std::fabs(hi)})),
                sameBits ? 0 : rtolOf(op, d));
  };
  switch (k) {
  case 0:
    return un("kiln.neg", "neg", -x.hi, -x.lo, 1, true, kiln::neg, v);
  case 1:
    return un("kiln.abs", "abs", x.lo >= 0 ? x.lo : 0, m, 1, true, kiln::abs,
              v);
  case 2:
    return un("kiln.relu", "relu", std::max(x.lo, 0.0), std::max(x.hi, 0.0), 1,
              true, kiln::relu, v);
  case 3: {
    // exp of at most 4: clamp first (exact).
    int in = v;
    if (x.hi > 4 || x.lo < -30) {
      in = emit("clamp(" + vn(v) + ", -6, 4)", {v},
                [](Side &, auto &a) { return clamp(a[0], -6, 4); },
                std::max(x.lo, -6.0), std::min(x.hi, 4.0), x.err, 0);
      if (in < 0)
        return -1;
    }
    const Value &y = p.values[in];
    return un("kiln.exp", "exp", std::exp(y.lo), std::exp(y.hi),
              std::exp(y.hi), false, kiln::exp, in);
  }
  case 4: {
    int in = positive(v);
    if (in < 0)
      return -1;
    const Value &y = p.values[in];
    return un("kiln.log", "log", std::log(y.lo), std::log(y.hi), 1 / y.lo,
              false, kiln::log, in);
  }
  case 5: {
    int in = positive(v, 0);
    if (in < 0)
      return -1;
    const Value &y = p.values[in];
    return un("kiln.log1p", "log1p", std::log1p(y.lo), std::log1p(y.hi), 1,
              false, kiln::log1p, in);
  }
  case 6: {
    // sqrt rounds correctly on both backends; near zero only exact
    // inputs keep a bounded derivative.
    int in = x.exact() ? positive(v, 0) : positive(v, 0.25);
    if (in < 0)
      return -1;
    const Value &y = p.values[in];
    double slope = y.lo > 0 ? 0.5 / std::sqrt(y.lo) : 0;
    return un("kiln.sqrt", "sqrt", std::sqrt(y.lo), std::sqrt(y.hi), slope,
              true, kiln::sqrt, in);
  }
  case 7: {
    int in = positive(v, 0.25);
    if (in < 0)
      return -1;
    const Value &y = p.values[in];
    return un("kiln.rsqrt", "rsqrt", 1 / std::sqrt(y.hi), 1 / std::sqrt(y.lo),
              0.5 * std::pow(y.lo, -1.5), false, kiln::rsqrt, in);
  }
  case 8: {
    int in = positive(v, 0.25);
    if (in < 0)
      return -1;
    const Value &y = p.values[in];
    return un("kiln.recip", "recip", 1 / y.hi, 1 / y.lo, 1 / (y.lo * y.lo),
              false, kiln::recip, in);
  }
  case 9:
  case 10: {
    int in = tame(v, 16);
    if (in < 0)
      return -1;
    return k == 9 ? un("kiln.sin", "sin", -1, 1, 1, false, kiln::sin, in)
                  : un("kiln.cos", "cos", -1, 1, 1, false, kiln::cos, in);
  }
  case 11:
    return un("kiln.tanh", "tanh", std::tanh(x.lo), std::tanh(x.hi), 1, false,
              kiln::tanh, v);
  case 12:
    return un("kiln.sigmoid", "sigmoid", 1 / (1 + std::exp(-x.lo)),
              1 / (1 + std::exp(-x.hi)), 0.25, false, kiln::sigmoid, v);
  case 13:
    return un("kiln.erf", "erf", std::erf(x.lo), std::erf(x.hi), 1.13, false,
              kiln::erf, v);
  case 14: {
    bool approx = rng.chance(0.5);
    const Value &y = p.values[v];
    double lo = y.lo < 0 ? -0.2 : 0, hi = std::max(y.hi, 0.0);
    return emit(std::string(approx ? "gelu_tanh(" : "gelu(") + vn(v) + ")",
                {v},
                [approx](Side &, auto &a) { return gelu(a[0], approx); }, lo,
                hi, drift("kiln.gelu", d, false, {{1.13, y.err}}, y.mag()),
                rtolOf("kiln.gelu", d));
  }
  case 15:
    return un("kiln.silu", "silu", x.lo < 0 ? -0.3 : 0, std::max(x.hi, 0.0),
              1.1, false, kiln::silu, v);
  case 16: {
    if (!x.exact())
      return un("kiln.tanh", "tanh", std::tanh(x.lo), std::tanh(x.hi), 1,
                false, kiln::tanh, v);
    int f = static_cast<int>(rng.below(4));
    const char *names[] = {"floor", "ceil", "round", "sign"};
    const char *ops[] = {"kiln.floor", "kiln.ceil", "kiln.round", "kiln.sign"};
    Tensor (*fns[])(const Tensor &) = {kiln::floor, kiln::ceil, kiln::round,
                                       kiln::sign};
    double lo = f == 3 ? -1 : std::floor(x.lo), hi = f == 3 ? 1 : std::ceil(x.hi);
    return un(ops[f], names[f], lo, hi, 0, true, fns[f], v);
  }
  case 17: {
    double a = std::round(rng.uniform(x.lo - 1, x.hi) * 4) / 4;
    double b = a + std::round(rng.uniform(0.25, m + 1) * 4) / 4;
    return emit("clamp(" + vn(v) + ", " + std::to_string(a) + ", " +
                    std::to_string(b) + ")",
                {v}, [a, b](Side &, auto &in) { return clamp(in[0], a, b); },
                std::max(x.lo, a), std::min(x.hi, b),
                drift("kiln.clamp", d, true, {{1, x.err}}, m), 0);
  }
  default:
    return emit("is_nan(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return isNan(a[0]); }, 0, 0, 0, 0);
  }
}

int Generator::unaryInt(int v) {
  Value x = p.values[v];
  DType d = x.dtype();
  auto [rlo, rhi] = intRange(d);
  bool isSigned = d != DType::U8;
  int k = static_cast<int>(rng.below(isSigned ? 5 : 1));
  if (k == 0 || !isSigned) {
    double a = std::round(rng.uniform(x.lo - 1, x.hi));
    double b = a + rng.between(0, 8);
    a = std::max(a, rlo); // u8: not below 0
    b = std::max(b, a);
    return emit("clamp(" + vn(v) + ", " + std::to_string(a) + ", " +
                    std::to_string(b) + ")",
                {v}, [a, b](Side &, auto &in) { return clamp(in[0], a, b); },
                std::max(x.lo, a), std::min(x.hi, b), 0, 0);
  }
  if (x.lo <= rlo)
    return -1; // -min overflows
  switch (k) {
  case 1:
    return emit("neg(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return neg(a[0]); }, -x.hi, -x.lo, 0, 0);
  case 2:
    return emit("abs(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return abs(a[0]); },
                x.lo >= 0 ? x.lo : 0, x.mag(), 0, 0);
  case 3:
    return emit("relu(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return relu(a[0]); },
                std::max(x.lo, 0.0), std::max(x.hi, 0.0), 0, 0);
  default:
    return emit("sign(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return sign(a[0]); }, -1, 1, 0, 0);
  }
}

int Generator::binary(int v) {
  DType d = p.values[v].dtype();
  bool isInt = d.isInteger();
  int k = static_cast<int>(rng.below(isInt ? 7 : 9));
  // Scalars take the dtype of the tensor they meet.
  bool scalar = k <= 3 && rng.chance(0.2);
  int w = -1;
  double s = 0;
  if (scalar)
    s = isInt ? static_cast<double>(rng.between(1, 3))
              : rng.pick(std::vector<double>{0.5, 0.75, 1.5, 2, -1.25});
  else
    w = partner(v);
  if (!scalar && w < 0)
    return -1;
  Value x = p.values[v];
  Value y = scalar ? Value{x.meta, s, s, 0, 0, true, 0} : p.values[w];
  std::pair<double, double> range =
      isInt ? intRange(d) : std::pair<double, double>{-kMaxMagnitude,
                                                      kMaxMagnitude};
  auto fits = [&](double lo, double hi) {
    return lo >= range.first && hi <= range.second;
  };
  auto emitBinary = [&](const std::string &name, const char *op, bool sameBits,
                        double lo, double hi, double sx, double sy,
                        std::function<Tensor(const Tensor &, const Tensor &)> fn,
                        std::function<Tensor(const Tensor &, double)> sfn,
                        int lhs, int rhs) {
    if (!fits(lo, hi))
      return -1;
    const Value &a = p.values[lhs];
    double ey = scalar ? 0 : p.values[rhs].err;
    double mag = std::max(std::fabs(lo), std::fabs(hi));
    double err = drift(op, d, sameBits, {{sx, a.err}, {sy, ey}}, mag);
    double rtol = sameBits ? 0 : rtolOf(op, d);
    if (scalar)
      return emit(name + "(" + vn(lhs) + ", " + std::to_string(s) + ")",
                  {lhs}, [sfn, s](Side &, auto &in) { return sfn(in[0], s); },
                  lo, hi, err, rtol);
    return emit(name + "(" + vn(lhs) + ", " + vn(rhs) + ")", {lhs, rhs},
                [fn](Side &, auto &in) { return fn(in[0], in[1]); }, lo, hi,
                err, rtol);
  };
  auto corners = [](double a, double b, double c, double e) {
    double v[] = {a * c, a * e, b * c, b * e};
    return std::pair<double, double>{*std::min_element(v, v + 4),
                                     *std::max_element(v, v + 4)};
  };
  switch (k) {
  case 0:
    return emitBinary("add", "kiln.add", true, x.lo + y.lo, x.hi + y.hi, 1, 1,
                      [](auto &a, auto &b) { return a + b; },
                      [](auto &a, double b) { return a + b; }, v, w);
  case 1:
    return emitBinary("sub", "kiln.sub", true, x.lo - y.hi, x.hi - y.lo, 1, 1,
                      [](auto &a, auto &b) { return a - b; },
                      [](auto &a, double b) { return a - b; }, v, w);
  case 2: {
    auto [lo, hi] = corners(x.lo, x.hi, y.lo, y.hi);
    return emitBinary("mul", "kiln.mul", true, lo, hi, y.mag(), x.mag(),
                      [](auto &a, auto &b) { return a * b; },
                      [](auto &a, double b) { return a * b; }, v, w);
  }
  case 3: {
    // Divisors keep away from zero: |y| >= 0.5 (integers: >= 1).
    if (!scalar) {
      if (isInt && d != DType::U8 && y.lo <= intRange(d).first)
        return -1;
      w = isInt ? positive(w, 1) : positive(w, 0.5);
      if (w < 0)
        return -1;
      y = p.values[w];
    }
    double ylo = scalar ? std::fabs(s) : y.lo;
    auto [lo, hi] = corners(x.lo, x.hi, 1 / (scalar ? s : y.hi),
                            1 / (scalar ? s : y.lo));
    if (isInt) {
      lo = std::floor(std::min(lo, 0.0)) - 1;
      hi = std::ceil(std::max(hi, 0.0)) + 1;
    }
    return emitBinary("div", "kiln.div", true, lo, hi, 1 / ylo,
                      x.mag() / (ylo * ylo),
                      [](auto &a, auto &b) { return a / b; },
                      [](auto &a, double b) { return a / b; }, v, w);
  }
  case 4:
    return emitBinary("maximum", "kiln.max", true, std::max(x.lo, y.lo),
                      std::max(x.hi, y.hi), 1, 1,
                      [](auto &a, auto &b) { return maximum(a, b); }, nullptr,
                      v, w);
  case 5:
    return emitBinary("minimum", "kiln.min", true, std::min(x.lo, y.lo),
                      std::min(x.hi, y.hi), 1, 1,
                      [](auto &a, auto &b) { return minimum(a, b); }, nullptr,
                      v, w);
  case 6: {
    // rem jumps where x crosses a multiple of y: exact operands only.
    if (!x.exact() || !y.exact())
      return -1;
    if (isInt && d != DType::U8 && y.lo <= intRange(d).first)
      return -1;
    w = isInt ? positive(w, 1) : positive(w, 0.5);
    if (w < 0)
      return -1;
    y = p.values[w];
    return emitBinary("rem", "kiln.rem", true, -y.hi, y.hi, 0, 0,
                      [](auto &a, auto &b) { return a % b; }, nullptr, v, w);
  }
  case 7: {
    // pow of a base in [0.5, ..] and an exponent in [-2, 2].
    int base = positive(v, 0.5);
    if (base < 0)
      return -1;
    if (y.mag() > 2) {
      w = emit("clamp(" + vn(w) + ", -2, 2)", {w},
               [](Side &, auto &a) { return clamp(a[0], -2, 2); },
               std::max(y.lo, -2.0), std::min(y.hi, 2.0), y.err, 0);
      if (w < 0)
        return -1;
      y = p.values[w];
    }
    const Value &b = p.values[base];
    double cs[] = {std::pow(b.lo, y.lo), std::pow(b.lo, y.hi),
                   std::pow(b.hi, y.lo), std::pow(b.hi, y.hi)};
    double lo = *std::min_element(cs, cs + 4), hi = *std::max_element(cs, cs + 4);
    if (hi > 1e3)
      return -1;
    double dlog = std::max(std::fabs(std::log(b.lo)), std::fabs(std::log(b.hi)));
    double dx = y.mag() * hi / b.lo;
    return emitBinary("pow", "kiln.pow", false, lo, hi, dx, hi * dlog,
                      [](auto &a, auto &c) { return pow(a, c); }, nullptr,
                      base, w);
  }
  default: {
    int xs = positive(w, 0.5);
    if (xs < 0)
      return -1;
    return emitBinary("atan2", "kiln.atan2", false, -1.6, 1.6, 2, 2 * x.mag(),
                      [](auto &a, auto &c) { return atan2(a, c); }, nullptr, v,
                      xs);
  }
  }
}

int Generator::compareWhere(int v) {
  const Value &x = p.values[v];
  if (!x.exact())
    return -1;
  int w = partner(v);
  if (w < 0 || !p.values[w].exact())
    return -1;
  int k = static_cast<int>(rng.below(6));
  const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  std::function<Tensor(const Tensor &, const Tensor &)> fns[] = {
      [](auto &a, auto &b) { return a == b; },
      [](auto &a, auto &b) { return a != b; },
      [](auto &a, auto &b) { return a < b; },
      [](auto &a, auto &b) { return a <= b; },
      [](auto &a, auto &b) { return a > b; },
      [](auto &a, auto &b) { return a >= b; }};
  auto fn = fns[k];
  int cond = emit(std::string(names[k]) + "(" + vn(v) + ", " + vn(w) + ")",
                  {v, w}, [fn](Side &, auto &in) { return fn(in[0], in[1]); },
                  0, 1, 0, 0);
  if (cond < 0 || rng.chance(0.2))
    return cond;
  // where(cond, a, b) over values of one dtype.
  int a = rng.chance(0.5) ? v : partner(v);
  int b = partner(v);
  if (a < 0 || b < 0)
    return -1;
  const Value &va = p.values[a], &vb = p.values[b];
  if (!broadcastable(va.dims(), vb.dims()) ||
      !broadcastable(broadcastDims(va.dims(), vb.dims()),
                     p.values[cond].dims()))
    return -1;
  if (numel(broadcastDims(broadcastDims(va.dims(), vb.dims()),
                          p.values[cond].dims())) > kMaxNumel)
    return -1;
  double mag = std::max(va.mag(), vb.mag());
  // The scalar 0.5 only fits a float tensor.
  bool scalarB = rng.chance(0.2) && va.dtype().isFloat();
  if (scalarB)
    return emit("where(" + vn(cond) + ", " + vn(a) + ", 0.5)", {cond, a},
                [](Side &, auto &in) { return where(in[0], in[1], 0.5); },
                std::min(va.lo, 0.0), std::max(va.hi, 0.5), va.err, va.rtol);
  return emit("where(" + vn(cond) + ", " + vn(a) + ", " + vn(b) + ")",
              {cond, a, b},
              [](Side &, auto &in) { return where(in[0], in[1], in[2]); },
              std::min(va.lo, vb.lo), std::max(va.hi, vb.hi),
              drift("kiln.where", va.dtype(), true,
                    {{1, std::max(va.err, vb.err)}}, mag),
              0);
}

int Generator::boolOp(int v) {
  const Value &x = p.values[v];
  int k = static_cast<int>(rng.below(5));
  if (k == 0)
    return emit("not(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return !a[0]; }, 0, 1, 0, 0);
  if (k <= 2) {
    int w = partner(v);
    if (w < 0)
      return -1;
    bool isAnd = k == 1;
    return emit(std::string(isAnd ? "and(" : "or(") + vn(v) + ", " + vn(w) +
                    ")",
                {v, w},
                [isAnd](Side &, auto &a) {
                  return isAnd ? (a[0] & a[1]) : (a[0] | a[1]);
                },
                0, 1, 0, 0);
  }
  if (x.dims().empty())
    return -1;
  // any / all over random axes.
  Dims d = x.dims();
  std::vector<int64_t> axes;
  for (size_t i = 0; i < d.size(); ++i)
    if (rng.chance(0.5))
      axes.push_back(static_cast<int64_t>(i));
  bool keepdim = rng.chance(0.5);
  bool isAny = k == 3;
  return emit(std::string(isAny ? "any(" : "all(") + vn(v) + ", " +
                  str(axes) + (keepdim ? ", keepdim)" : ")"),
              {v},
              [axes, keepdim, isAny](Side &, auto &a) {
                return isAny ? any(a[0], axes, keepdim)
                             : all(a[0], axes, keepdim);
              },
              0, 1, 0, 0);
}

int Generator::reduce(int v) {
  Value x = p.values[v];
  Dims d = x.dims();
  if (d.empty())
    return -1;
  DType dt = x.dtype();
  bool isInt = dt.isInteger();
  // Trailing axes (row kernels) and leading or middle ones (columns).
  std::vector<int64_t> axes;
  double c = rng.uniform(0, 1);
  int64_t r = static_cast<int64_t>(d.size());
  if (c < 0.4) {
    int64_t n = rng.between(1, r);
    for (int64_t a = r - n; a < r; ++a)
      axes.push_back(a);
  } else if (c < 0.7) {
    int64_t n = rng.between(1, r);
    for (int64_t a = 0; a < n; ++a)
      axes.push_back(a);
  } else if (c < 0.9) {
    axes.push_back(rng.below(r));
  } else {
    for (int64_t a = 0; a < r; ++a)
      if (rng.chance(0.5))
        axes.push_back(a);
  }
  if (axes.empty())
    axes.push_back(r - 1);
  bool keepdim = rng.chance(0.5);
  int64_t n = 1;
  for (int64_t a : axes)
    n *= d[a];
  std::string tail = ", " + str(axes) + (keepdim ? ", keepdim)" : ")");
  int k = static_cast<int>(rng.below(isInt ? 5 : 6));
  auto [rlo, rhi] = isInt ? intRange(dt)
                          : std::pair<double, double>{-kMaxMagnitude,
                                                      kMaxMagnitude};
  switch (k) {
  case 0: {
    double lo = n * std::min(x.lo, 0.0), hi = n * std::max(x.hi, 0.0);
    if (lo < rlo || hi > rhi)
      return -1;
    double mag = n * x.mag();
    return emit("sum(" + vn(v) + tail, {v},
                [axes, keepdim](Side &, auto &a) {
                  return sum(a[0], axes, keepdim);
                },
                lo, hi, drift("kiln.sum", dt, isInt, {{double(n), x.err}}, mag),
                rtolOf("kiln.sum", dt));
  }
  case 1:
  case 2: {
    bool isMax = k == 1;
    return emit(std::string(isMax ? "max(" : "min(") + vn(v) + tail, {v},
                [axes, keepdim, isMax](Side &, auto &a) {
                  return isMax ? max(a[0], axes, keepdim)
                               : min(a[0], axes, keepdim);
                },
                x.lo, x.hi, x.err, x.rtol);
  }
  case 3: {
    // Products over at most 24 values of magnitude <= 1.25.
    if (n > 24)
      return -1;
    int in = v;
    if (isInt) {
      if (x.mag() > 2 || std::pow(x.mag(), n) > rhi)
        return -1;
    } else if (x.mag() > 1.25) {
      in = emit("tanh(" + vn(v) + ")", {v},
                [](Side &, auto &a) { return tanh(a[0]); }, std::tanh(x.lo),
                std::tanh(x.hi),
                drift("kiln.tanh", dt, false, {{1, x.err}}, 1),
                rtolOf("kiln.tanh", dt));
      if (in < 0)
        return -1;
    }
    const Value &y = p.values[in];
    double m = std::pow(y.mag(), n);
    double lo = y.lo >= 0 ? std::pow(y.lo, n) : -m;
    return emit("prod(" + vn(in) + tail, {in},
                [axes, keepdim](Side &, auto &a) {
                  return prod(a[0], axes, keepdim);
                },
                lo, m,
                drift("kiln.prod", dt, isInt,
                      {{n * std::pow(std::max(y.mag(), 1.0), n - 1), y.err}},
                      std::max(m, 1.0)),
                rtolOf("kiln.prod", dt));
  }
  case 4: {
    // argmax / argmin along one axis: exact inputs (ties pick the first).
    if (!x.exact())
      return -1;
    int64_t axis = rng.below(r);
    bool isMax = rng.chance(0.5);
    return emit(std::string(isMax ? "argmax(" : "argmin(") + vn(v) + ", " +
                    std::to_string(axis) + (keepdim ? ", keepdim)" : ")"),
                {v},
                [axis, keepdim, isMax](Side &, auto &a) {
                  return isMax ? argmax(a[0], axis, keepdim)
                               : argmin(a[0], axis, keepdim);
                },
                0, static_cast<double>(d[axis] - 1), 0, 0);
  }
  default: {
    bool lse = rng.chance(0.5);
    if (lse)
      return emit("logsumexp(" + vn(v) + tail, {v},
                  [axes, keepdim](Side &, auto &a) {
                    return logsumexp(a[0], axes, keepdim);
                  },
                  x.lo, x.hi + std::log(double(n)),
                  drift("kiln.logsumexp", dt, false, {{1, x.err}},
                        x.mag() + std::log(double(n))),
                  rtolOf("kiln.logsumexp", dt));
    return emit("mean(" + vn(v) + tail, {v},
                [axes, keepdim](Side &, auto &a) {
                  return mean(a[0], axes, keepdim);
                },
                x.lo, x.hi, drift("kiln.mean", dt, false, {{1, x.err}}, x.mag()),
                rtolOf("kiln.mean", dt));
  }
  }
}

int Generator::axisOp(int v) {
  Value x = p.values[v];
  Dims d = x.dims();
  if (d.empty())
    return -1;
  DType dt = x.dtype();
  int64_t r = static_cast<int64_t>(d.size());
  int64_t axis = rng.chance(0.6) ? r - 1 : rng.below(r);
  std::string tail = ", " + std::to_string(axis) + ")";
  int k = dt.isFloat() ? static_cast<int>(rng.below(4)) : 0;
  double n = static_cast<double>(d[axis]);
  switch (k) {
  case 0: {
    auto [rlo, rhi] = dt.isInteger() ? intRange(dt)
                                     : std::pair<double, double>{
                                           -kMaxMagnitude, kMaxMagnitude};
    double lo = n * std::min(x.lo, 0.0), hi = n * std::max(x.hi, 0.0);
    if (lo < rlo || hi > rhi)
      return -1;
    return emit("cumsum(" + vn(v) + tail, {v},
                [axis](Side &, auto &a) { return cumsum(a[0], axis); }, lo, hi,
                drift("kiln.cumsum", dt, dt.isInteger(), {{n, x.err}},
                      n * x.mag()),
                rtolOf("kiln.cumsum", dt));
  }
  case 1:
    return emit("softmax(" + vn(v) + tail, {v},
                [axis](Side &, auto &a) { return softmax(a[0], axis); }, 0, 1,
                drift("kiln.softmax", dt, false, {{1, x.err}}, 1),
                rtolOf("kiln.softmax", dt));
  case 2:
    return emit("log_softmax(" + vn(v) + tail, {v},
                [axis](Side &, auto &a) { return logSoftmax(a[0], axis); },
                x.lo - x.hi - std::log(n), 0,
                drift("kiln.log_softmax", dt, false, {{2, x.err}},
                      2 * x.mag() + std::log(n)),
                rtolOf("kiln.log_softmax", dt));
  default: {
    // layer_norm of a fresh input: rows with a spread of values.
    if (!x.leaf || d.back() < 4 || x.hi - x.lo < 1)
      return -1;
    bool affine = rng.chance(0.5);
    int w = -1, b = -1;
    if (affine) {
      w = leaf({d.back()}, dt, 0.5, 1.5);
      b = leaf({d.back()}, dt, -1, 1);
      if (w < 0 || b < 0)
        return -1;
    }
    double m = std::sqrt(double(d.back())) * (affine ? 1.5 : 1) +
               (affine ? 1 : 0);
    std::vector<int> args{v};
    if (affine) {
      args.push_back(w);
      args.push_back(b);
    }
    return emit("layer_norm(" + vn(v) +
                    (affine ? ", " + vn(w) + ", " + vn(b) : "") + ")",
                args,
                [affine](Side &, auto &a) {
                  return affine ? layerNorm(a[0], a[1], a[2])
                                : layerNorm(a[0], std::nullopt, std::nullopt);
                },
                -m, m, drift("kiln.layer_norm", dt, false, {}, m),
                rtolOf("kiln.layer_norm", dt));
  }
  }
}

int Generator::matmulOp(int v) {
  int in = tame(v, 2);
  if (in < 0)
    return -1;
  Value x = p.values[in];
  Dims d = x.dims();
  if (d.empty())
    return -1;
  DType dt = x.dtype();
  bool isInt = dt.isInteger();
  if (isInt && x.mag() > 4)
    return -1;
  bool asLhs = d.size() == 1 || rng.chance(0.6);
  int64_t n = pickDim();
  int other;
  Dims od;
  int64_t k;
  if (asLhs) {
    k = d.back();
    od = {k, n};
    if (d.size() >= 3 && rng.chance(0.4))
      od.insert(od.begin(), d[d.size() - 3]); // a batched rhs
    else if (rng.chance(0.15))
      od = {k};
  } else {
    k = d[d.size() - 2];
    od = {n, k};
    if (rng.chance(0.2)) // a batched lhs: its batch must broadcast with x's
      od.insert(od.begin(), d.size() >= 3 ? d[d.size() - 3] : rng.between(2, 3));
  }
  other = isInt ? leaf(od, dt, dt == DType::U8 ? 0 : -2, 2)
                : leaf(od, dt, -1, 1);
  if (other < 0)
    return -1;
  const Value &o = p.values[other];
  double mag = k * x.mag() * o.mag();
  if (isInt && mag > intRange(dt).second)
    return -1;
  int lhs = asLhs ? in : other, rhs = asLhs ? other : in;
  return emit("matmul(" + vn(lhs) + ", " + vn(rhs) + ")", {lhs, rhs},
              [](Side &, auto &a) { return matmul(a[0], a[1]); }, -mag, mag,
              drift("kiln.matmul", dt, isInt,
                    {{k * o.mag(), x.err}, {k * x.mag(), o.err}}, mag),
              rtolOf("kiln.matmul", dt));
}

int Generator::layout(int v) {
  Value x = p.values[v];
  Dims d = x.dims();
  int64_t r = static_cast<int64_t>(d.size());
  auto keep = [&](const std::string &what, Fn fn, std::vector<int> extra = {},
                  double lo = NAN, double hi = NAN) {
    std::vector<int> args{v};
    args.insert(args.end(), extra.begin(), extra.end());
    double elo = x.lo, ehi = x.hi, err = x.err;
    for (int e : extra) {
      elo = std::min(elo, p.values[e].lo);
      ehi = std::max(ehi, p.values[e].hi);
      err = std::max(err, p.values[e].err);
    }
    if (!std::isnan(lo)) {
      elo = std::min(elo, lo);
      ehi = std::max(ehi, hi);
    }
    return emit(what, args, std::move(fn), elo, ehi, err, 0);
  };
  int k = static_cast<int>(rng.below(14));
  switch (k) {
  case 0: { // reshape
    if (r == 0)
      return keep("reshape(" + vn(v) + ", [1])",
                  [](Side &, auto &a) { return reshape(a[0], {1}); });
    Dims to = d;
    double c = rng.uniform(0, 1);
    if (c < 0.25 || r == 1) {
      to = {numel(d)};
      if (r == 1) {
        int64_t m = d[0];
        for (int64_t f = 2; f < m; ++f)
          if (m % f == 0) {
            to = {f, m / f};
            break;
          }
        if (to.size() == 1)
          to = {1, m};
      }
    } else if (c < 0.6) {
      int64_t i = rng.below(r - 1);
      to.erase(to.begin() + i + 1);
      to[i] = d[i] * d[i + 1];
    } else {
      int64_t i = rng.below(r);
      int64_t m = d[i], f = 1;
      for (int64_t g = 2; g < m; ++g)
        if (m % g == 0) {
          f = g;
          break;
        }
      to[i] = m / f;
      to.insert(to.begin() + i, f);
    }
    if (to.size() > 4)
      return -1;
    return keep("reshape(" + vn(v) + ", " + str(to) + ")",
                [to](Side &, auto &a) { return reshape(a[0], Shape(to)); });
  }
  case 1: { // permute
    if (r < 2)
      return -1;
    std::vector<int64_t> perm(r);
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = r - 1; i > 0; --i)
      std::swap(perm[i], perm[rng.below(i + 1)]);
    return keep("permute(" + vn(v) + ", " + str(perm) + ")",
                [perm](Side &, auto &a) { return permute(a[0], perm); });
  }
  case 2: { // transpose
    if (r < 2)
      return -1;
    int64_t a0 = rng.below(r), a1 = rng.below(r);
    return keep("transpose(" + vn(v) + ", " + std::to_string(a0) + ", " +
                    std::to_string(a1) + ")",
                [a0, a1](Side &, auto &a) { return transpose(a[0], a0, a1); });
  }
  case 3: { // expand
    Dims to = d;
    for (int64_t &e : to)
      if (e == 1 && rng.chance(0.7))
        e = rng.between(2, 7);
    if (to == d || rng.chance(0.3))
      to.insert(to.begin(), rng.between(2, 3));
    if (numel(to) > kMaxNumel || to.size() > 4)
      return -1;
    return keep("expand(" + vn(v) + ", " + str(to) + ")",
                [to](Side &, auto &a) { return expand(a[0], Shape(to)); });
  }
  case 4: { // slice
    if (r == 0)
      return -1;
    std::vector<int64_t> st(r), en(r), sp(r);
    for (int64_t i = 0; i < r; ++i) {
      st[i] = d[i] > 1 && rng.chance(0.5) ? rng.below(d[i]) : 0;
      en[i] = rng.chance(0.5) ? d[i] : rng.between(st[i] + 1, d[i]);
      sp[i] = rng.chance(0.6) ? 1 : rng.between(2, 3);
    }
    return keep("slice(" + vn(v) + ", " + str(st) + ", " + str(en) + ", " +
                    str(sp) + ")",
                [st, en, sp](Side &, auto &a) { return slice(a[0], st, en, sp); });
  }
  case 5: { // flip
    if (r == 0)
      return -1;
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < r; ++i)
      if (rng.chance(0.5))
        axes.push_back(i);
    if (axes.empty())
      axes.push_back(r - 1);
    return keep("flip(" + vn(v) + ", " + str(axes) + ")",
                [axes](Side &, auto &a) { return flip(a[0], axes); });
  }
  case 6: { // squeeze / unsqueeze
    std::vector<int64_t> ones;
    for (int64_t i = 0; i < r; ++i)
      if (d[i] == 1)
        ones.push_back(i);
    if (!ones.empty() && rng.chance(0.6))
      return keep("squeeze(" + vn(v) + ", " + str(ones) + ")",
                  [ones](Side &, auto &a) { return squeeze(a[0], ones); });
    if (r >= 4)
      return -1;
    int64_t at = rng.below(r + 1);
    return keep("unsqueeze(" + vn(v) + ", [" + std::to_string(at) + "])",
                [at](Side &, auto &a) { return unsqueeze(a[0], {at}); });
  }
  case 7: { // concat
    if (r == 0)
      return -1;
    int64_t axis = rng.below(r);
    int w;
    if (rng.chance(0.3)) {
      w = v;
    } else {
      Dims od = d;
      od[axis] = rng.between(1, 5);
      w = freshLike(od, x.dtype());
      if (w < 0)
        return -1;
    }
    return keep("concat([" + vn(v) + ", " + vn(w) + "], " +
                    std::to_string(axis) + ")",
                [axis](Side &, auto &a) { return concat({a[0], a[1]}, axis); },
                {w});
  }
  case 8: { // split, one part
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < r; ++i)
      if (d[i] >= 2)
        axes.push_back(i);
    if (axes.empty())
      return -1;
    int64_t axis = rng.pick(axes);
    int64_t first = rng.between(1, d[axis] - 1);
    std::vector<int64_t> sizes{first, d[axis] - first};
    size_t part = rng.below(2);
    return keep("split(" + vn(v) + ", " + str(sizes) + ", " +
                    std::to_string(axis) + ")[" + std::to_string(part) + "]",
                [sizes, axis, part](Side &, auto &a) {
                  return split(a[0], sizes, axis)[part];
                });
  }
  case 9: { // repeat
    if (r == 0)
      return -1;
    std::vector<int64_t> reps(r);
    for (int64_t &e : reps)
      e = rng.chance(0.6) ? 1 : rng.between(2, 3);
    Dims to = d;
    for (int64_t i = 0; i < r; ++i)
      to[i] *= reps[i];
    if (numel(to) > kMaxNumel)
      return -1;
    return keep("repeat(" + vn(v) + ", " + str(reps) + ")",
                [reps](Side &, auto &a) { return repeat(a[0], reps); });
  }
  case 10: { // pad
    if (r == 0)
      return -1;
    std::vector<int64_t> lo(r), hi(r);
    for (int64_t i = 0; i < r; ++i) {
      lo[i] = rng.below(3);
      hi[i] = rng.below(3);
    }
    double value = x.dtype().isBool() ? 1 : x.dtype().isInteger() ? 1 : 0.5;
    return keep("pad(" + vn(v) + ", " + str(lo) + ", " + str(hi) + ", " +
                    std::to_string(value) + ")",
                [lo, hi, value](Side &, auto &a) {
                  return pad(a[0], lo, hi, value);
                },
                {}, value, value);
  }
  case 11: { // slice_assign of a fresh block
    if (r == 0)
      return -1;
    std::vector<int64_t> st(r), en(r), sp(r, 1);
    Dims block(r);
    for (int64_t i = 0; i < r; ++i) {
      st[i] = rng.below(d[i]);
      en[i] = rng.between(st[i] + 1, d[i]);
      if (rng.chance(0.3))
        sp[i] = 2;
      block[i] = (en[i] - st[i] + sp[i] - 1) / sp[i];
    }
    int w = freshLike(block, x.dtype());
    if (w < 0)
      return -1;
    return keep("slice_assign(" + vn(v) + ", " + vn(w) + ", " + str(st) +
                    ", " + str(en) + ", " + str(sp) + ")",
                [st, en, sp](Side &, auto &a) {
                  return sliceAssign(a[0], a[1], st, en, sp);
                },
                {w});
  }
  default: { // a view that feeds the next op
    if (r < 2)
      return -1;
    return keep("transpose(" + vn(v) + ", -1, -2)",
                [](Side &, auto &a) { return a[0].transpose(); });
  }
  }
}

int Generator::castOp(int v) {
  Value x = p.values[v];
  DType from = x.dtype();
  std::vector<DType> targets;
  for (DType t : allDTypes()) {
    if (t == from)
      continue;
    if (t.isFloat()) {
      if (x.mag() <= (t == DType::F16 ? 6e4 : 1e30))
        targets.push_back(t);
      continue;
    }
    // Truncation to integers and x != 0 jump: exact inputs only, in range.
    if (!x.exact())
      continue;
    if (t.isBool()) {
      targets.push_back(t);
      continue;
    }
    auto [lo, hi] = intRange(t);
    if (x.lo > lo && x.hi < hi)
      targets.push_back(t);
  }
  if (targets.empty())
    return -1;
  DType to = rng.pick(targets);
  double lo = x.lo, hi = x.hi, err = x.err;
  if (to.isInteger()) {
    lo = std::trunc(lo);
    hi = std::trunc(hi);
  }
  if (to.isBool()) {
    lo = 0;
    hi = 1;
  }
  if (to.isFloat())
    err = drift("kiln.cast", to, true, {{1, x.err}}, x.mag());
  return emit("cast(" + vn(v) + ", " + to.str() + ")", {v},
              [to](Side &, auto &a) { return cast(a[0], to); }, lo, hi, err,
              x.rtol);
}

int Generator::indexing(int v) {
  Value x = p.values[v];
  Dims d = x.dims();
  if (d.empty())
    return -1;
  int64_t r = static_cast<int64_t>(d.size());
  int64_t axis = rng.below(r);
  DType it = rng.chance(0.5) ? DType::I64 : DType::I32;
  int k = static_cast<int>(rng.below(3));
  if (k == 0) {
    int64_t n = rng.between(1, 6);
    int idx = leaf({n}, it, 0, static_cast<double>(d[axis] - 1));
    if (idx < 0)
      return -1;
    return emit("index_select(" + vn(v) + ", " + std::to_string(axis) + ", " +
                    vn(idx) + ")",
                {v, idx},
                [axis](Side &, auto &a) { return indexSelect(a[0], axis, a[1]); },
                x.lo, x.hi, x.err, x.rtol);
  }
  if (k == 1) {
    Dims id = d;
    id[axis] = rng.between(1, 6);
    for (int64_t i = 0; i < r; ++i)
      if (i != axis && rng.chance(0.3))
        id[i] = rng.between(1, d[i]);
    int idx = leaf(id, it, 0, static_cast<double>(d[axis] - 1));
    if (idx < 0)
      return -1;
    return emit("gather(" + vn(v) + ", " + std::to_string(axis) + ", " +
                    vn(idx) + ")",
                {v, idx},
                [axis](Side &, auto &a) { return gather(a[0], axis, a[1]); },
                x.lo, x.hi, x.err, x.rtol);
  }
  // mask_fill with a mask that broadcasts to x.
  Dims md = d;
  for (int64_t &e : md)
    if (rng.chance(0.4))
      e = 1;
  int mask = leaf(md, DType::Bool, 0, 1);
  if (mask < 0)
    return -1;
  double value = x.dtype().isInteger() ? 2 : -0.5;
  if (x.dtype().isBool())
    value = 1;
  return emit("mask_fill(" + vn(v) + ", " + vn(mask) + ", " +
                  std::to_string(value) + ")",
              {v, mask},
              [value](Side &, auto &a) { return maskFill(a[0], a[1], value); },
              std::min(x.lo, value), std::max(x.hi, value), x.err, x.rtol);
}

//===----------------------------------------------------------------------===//
// The test
//===----------------------------------------------------------------------===//

struct Totals {
  int64_t graphs = 0, ops = 0, outputs = 0, failures = 0;
};
Totals &totals() {
  static Totals t;
  return t;
}

class TotalsEnvironment : public ::testing::Environment {
  void TearDown() override {
    const Totals &t = totals();
    if (t.graphs)
      std::printf("[cpu-vs-flex] random graphs: %lld graphs, %lld ops, %lld "
                  "outputs compared, %lld differ\n",
                  (long long)t.graphs, (long long)t.ops, (long long)t.outputs,
                  (long long)t.failures);
  }
};
[[maybe_unused]] ::testing::Environment *const totalsEnvironment =
    ::testing::AddGlobalTestEnvironment(new TotalsEnvironment);

/// Runs `graphs` in one differential batch (one Cpu compile); prints the
/// program of every graph with an output that differs. With
/// `materializeEvery` = k > 0, every k-th op's value is also materialized
/// on each side as the program is recorded, so the rest of the program
/// compiles as graphs that start from materialized values (a compile per
/// such point).
void runGraphs(const std::vector<int> &indices, int materializeEvery = 0) {
  std::vector<Program> programs;
  for (int g : indices)
    programs.push_back(Generator(g).generate());
  std::vector<std::pair<size_t, int>> outputOf; // (program, value)
  DiffStats stats = compareOnDevices([&](Side &s) {
    outputOf.clear();
    for (size_t pi = 0; pi < programs.size(); ++pi) {
      const Program &p = programs[pi];
      std::vector<Tensor> values;
      int ops = 0;
      for (size_t i = 0; i < p.instrs.size(); ++i) {
        const Instr &in = p.instrs[i];
        std::vector<Tensor> args;
        for (int a : in.args)
          args.push_back(values[a]);
        values.push_back(in.fn(s, args));
        if (materializeEvery > 0 && !p.values[i].leaf &&
            ++ops % materializeEvery == 0)
          values.back().sync();
      }
      for (int o : p.outputs) {
        const Value &v = p.values[o];
        s.check("graph " + std::to_string(p.index) + " v" + std::to_string(o),
                values[o], Tolerance{v.err, v.rtol});
        outputOf.push_back({pi, o});
      }
    }
  });
  std::set<size_t> bad;
  for (size_t i : stats.failed)
    bad.insert(outputOf[i].first);
  for (size_t pi : bad)
    ADD_FAILURE() << programs[pi].listing();
  Totals &t = totals();
  t.graphs += programs.size();
  for (const Program &p : programs)
    t.ops += p.ops;
  t.outputs += stats.outputs;
  t.failures += stats.failures;
}

class RandomGraphTest : public ::testing::TestWithParam<int> {};

TEST_P(RandomGraphTest, CpuMatchesFlex) {
  KILN_SKIP_UNLESS_THE_CPU_ISA_RUNS();
  if (const char *one = std::getenv("KILN_RANDOM_GRAPH")) {
    int g = std::atoi(one);
    if (g / kGraphsPerShard != GetParam())
      GTEST_SKIP() << "KILN_RANDOM_GRAPH=" << g << " is in another shard";
    std::printf("%s\n", Generator(g).generate().listing().c_str());
    runGraphs({g});
    return;
  }
  int first = GetParam() * kGraphsPerShard;
  for (int b = 0; b < kGraphsPerShard; b += kGraphsPerSync) {
    std::vector<int> batch;
    for (int g = b; g < std::min(b + kGraphsPerSync, kGraphsPerShard); ++g)
      batch.push_back(first + g);
    runGraphs(batch);
  }
  std::printf("[cpu-vs-flex] shard %d: graphs %d-%d\n", GetParam(), first,
              first + kGraphsPerShard - 1);
}

INSTANTIATE_TEST_SUITE_P(Shards, RandomGraphTest, ::testing::Range(0, kShards));

/// Graphs of their own (past the shards' numbers), each materialized every
/// third op: the kernels that the cut points make, a matmul feeding a row
/// kernel of 4 elements among them.
class MidGraphRandomGraphTest : public ::testing::TestWithParam<int> {};

TEST_P(MidGraphRandomGraphTest, CpuMatchesFlexMaterializingEveryThirdOp) {
  KILN_SKIP_UNLESS_THE_CPU_ISA_RUNS();
  int first = (kShards + GetParam()) * kGraphsPerShard;
  std::vector<int> batch;
  for (int g = first; g < first + kGraphsPerSync; ++g)
    batch.push_back(g);
  runGraphs(batch, /*materializeEvery=*/3);
  std::printf("[cpu-vs-flex] mid-graph shard %d: graphs %d-%d\n", GetParam(),
              first, first + kGraphsPerSync - 1);
}

INSTANTIATE_TEST_SUITE_P(MidGraphShards, MidGraphRandomGraphTest,
                         ::testing::Range(0, 2));

} // namespace
