//===- ApiFuzzer.cpp - Byte strings as programs, Cpu against Flex ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The bytes decode into a program of the public API: inputs of any rank
// (empty dims included) and of f32, f64, i32, i64 and bool; elementwise,
// comparison, reduction, softmax, matmul, layout, indexing and NN ops with
// attributes that may be wrong; materialization points, in-place updates,
// released handles; and, on autodiff devices, backward passes and rebound
// parameters. The program is recorded on Flex while it is decoded, then
// replayed on Cpu. Both sides must reject the same instructions with a
// kiln::Error (index errors only known at run time included) and agree on
// every value they compute.
//
// How far Cpu may drift from Flex is tracked per value. Inputs are small
// multiples of 1/4, so until a value outgrows its dtype's mantissa every
// exact op (add, mul, max, floor, sums in any order, matmul, layout, ...)
// gives the same number on both backends, and they are compared for
// equality. Transcendental ops, divisions and means add a bound of a few
// hundred ulps, passed on through each later op scaled by its Lipschitz
// constant. Discontinuous ops (comparisons, rounding, casts to integers,
// argmax, indices) only read exact values. Values that outgrow their
// mantissa, and gradients of inexact graphs, still run but are not
// compared. Gradients of exact graphs are compared to a relative 1e-5.
//
// Anything else than success or a kiln::Error, or a disagreement, prints
// the program and aborts.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"
#include "kiln/Support/CpuIsa.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/Random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln;

namespace {

constexpr int64_t kMaxNumel = 4096;
constexpr size_t kMaxInstrs = 48;
constexpr double kInf = std::numeric_limits<double>::infinity();
/// The rounding a transcendental op may add, in ulps of its result's bound.
constexpr double kOpUlps = 256;

using Dims = std::vector<int64_t>;

/// What the inputs exercised, printed at exit with KILN_FUZZ_STATS=1: a
/// check that the decoder reaches the API rather than only its errors.
struct Stats {
  long programs = 0, accepted = 0, rejected = 0, runtimeErrors = 0;
  long exact = 0, bounded = 0, unchecked = 0, gradients = 0;
} stats;

/// The input, read a byte at a time; zeros once it is used up.
class Bytes {
public:
  Bytes(const uint8_t *data, size_t size) : data(data), size(size) {}
  uint8_t byte() { return pos < size ? data[pos++] : 0; }
  /// In [0, n), n >= 1.
  int64_t below(int64_t n) {
    uint32_t w = byte() | (uint32_t(byte()) << 8);
    return n <= 1 ? 0 : static_cast<int64_t>(w % uint64_t(n));
  }
  bool chance(int percent) { return below(100) < percent; }
  bool done() const { return pos >= size; }

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

/// SplitMix64, for input values.
struct Mix {
  uint64_t s;
  uint64_t next() { return kiln::random::mix(s += kiln::random::kGolden); }
  int64_t between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % uint64_t(hi - lo + 1));
  }
};

/// What the decoder knows about a value besides its tensor.
struct Meta {
  double bound = 0;  ///< |value| <= bound
  int grid = 0;      ///< exact floats are multiples of 2^-grid
  double err = 0;    ///< bound on |cpu - flex|; 0: equal; inf: not compared
  double rel = 0;    ///< when > 0, compared to rel * max |flex value| instead
  bool pure = true;  ///< made by exact ops only (its gradients are compared)
  bool leaf = false; ///< an input made on an autodiff device (tracked)
  bool dead = false; ///< its handle was released or moved
  bool exact() const { return err == 0 && rel == 0; }
};

/// One side of the comparison: a device and the program's values on it.
struct Side {
  DispatchDevice device;
  std::vector<Tensor> values;
  const Tensor &v(int i) const { return values[i]; }
};

/// One instruction: how to record it on a side. It returns the values it
/// adds, and may release or rebind existing ones.
struct Instr {
  std::string text;
  std::function<std::vector<Tensor>(Side &)> run;
  bool rejected = false; ///< Flex threw a kiln::Error
  bool stops = false;    ///< the error came from a materialization
};

int mantissa(DType d) {
  if (d == DType::F64)
    return 53;
  if (d == DType::F32)
    return 24;
  return 63;
}

double epsilon(DType d) { return d == DType::F64 ? 0x1p-52 : 0x1p-23; }

int64_t numel(const Dims &d) {
  int64_t n = 1;
  for (int64_t x : d)
    n *= x;
  return n;
}

std::string str(const Dims &d) { return Shape(d).str(); }

std::string str(const std::vector<int64_t> &v, const char *open) {
  std::string s = open;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (open[0] == '{' ? "}" : "]");
}

/// A value's host copy: floats as doubles, integers and bools as int64.
struct Host {
  std::vector<double> f;
  std::vector<int64_t> i;
};

Host read(const Tensor &t) {
  Host h;
  DType d = t.dtype();
  if (d == DType::F64)
    h.f = t.toVector<double>();
  else if (d == DType::F32) {
    for (float x : t.toVector<float>())
      h.f.push_back(x);
  } else if (d == DType::I64)
    h.i = t.toVector<int64_t>();
  else if (d == DType::I32) {
    for (int32_t x : t.toVector<int32_t>())
      h.i.push_back(x);
  } else if (d == DType::Bool) {
    for (bool x : t.toVector<bool>())
      h.i.push_back(x);
  } else {
    for (double x : t.cast(DType::F64).toVector<double>())
      h.f.push_back(x);
  }
  return h;
}

class Fuzz {
public:
  Fuzz(const uint8_t *data, size_t size) : in(data, size) {}

  void run();

private:
  Bytes in;
  Side flex{DispatchDevice::flex(), {}};
  Side cpu{DispatchDevice::cpu(), {}};
  std::vector<Meta> meta;
  std::vector<Instr> program;
  bool autodiff = false;
  bool stopped = false;

  [[noreturn]] void fail(const std::string &why) const {
    std::fprintf(stderr, "api fuzzer: %s\nprogram (%s):\n", why.c_str(),
                 flex.device.str().c_str());
    for (size_t i = 0; i < program.size(); ++i)
      std::fprintf(stderr, "  %2zu: %s%s\n", i, program[i].text.c_str(),
                   program[i].rejected ? "   (rejected)" : "");
    std::abort();
  }

  //===--- Decoding -------------------------------------------------------===//

  int count() const { return static_cast<int>(meta.size()); }
  const Tensor &t(int i) const { return flex.values[i]; }
  Dims dims(int i) const { return t(i).shape().dims(); }
  DType dtype(int i) const { return t(i).dtype(); }
  std::string name(int i) const { return "v" + std::to_string(i); }

  /// A live value that `ok` accepts, starting the search at a drawn index;
  /// -1 when there is none.
  int pick(const std::function<bool(int)> &ok) {
    int n = count();
    if (n == 0)
      return -1;
    int start = static_cast<int>(in.below(n));
    for (int k = 0; k < n; ++k) {
      int i = (start + k) % n;
      if (!meta[i].dead && ok(i))
        return i;
    }
    return -1;
  }
  int pickAny() {
    return pick([](int) { return true; });
  }
  int pickExact() {
    return pick([&](int i) { return meta[i].exact(); });
  }
  int pickFloat() {
    return pick([&](int i) { return dtype(i).isFloat(); });
  }

  /// Records `run` on Flex now; keeps it when it is accepted or rejected
  /// with a kiln::Error, with `m` as the meta of each value it adds. Values
  /// over kMaxNumel drop the instruction. Returns the first new index.
  int emit(std::string text, std::function<std::vector<Tensor>(Side &)> run,
           std::vector<Meta> m, bool materializes = false) {
    Instr instr{std::move(text), std::move(run)};
    std::vector<Tensor> made;
    try {
      made = instr.run(flex);
    } catch (const Error &) {
      instr.rejected = true;
      instr.stops = materializes;
      ++stats.rejected;
      stats.runtimeErrors += materializes;
      stopped = materializes;
      program.push_back(std::move(instr));
      return -1;
    }
    for (const Tensor &x : made)
      if (x.numel() > kMaxNumel)
        return -1;
    int first = count();
    for (const Tensor &x : made)
      instr.text += "  : " + x.dtype().str() + x.shape().str();
    for (size_t k = 0; k < made.size(); ++k) {
      flex.values.push_back(made[k]);
      Meta mk = m.empty() ? Meta{} : m[std::min(k, m.size() - 1)];
      settle(mk, made[k].dtype());
      meta.push_back(mk);
    }
    program.push_back(std::move(instr));
    ++stats.accepted;
    return first;
  }

  /// Exact floats that outgrow the mantissa are no longer compared.
  static void settle(Meta &m, DType d) {
    if (!d.isFloat() || !m.exact())
      return;
    if (m.bound * std::ldexp(1.0, m.grid) > std::ldexp(1.0, mantissa(d))) {
      m.err = kInf;
      m.pure = false;
    }
  }

  /// The meta of an op that reads `args` and may err by `own` (absolute).
  Meta combine(std::initializer_list<int> args, double bound, double lipschitz,
               double own) const {
    Meta m;
    m.bound = bound;
    double e = 0;
    for (int a : args) {
      e = std::max(e, meta[a].err);
      m.grid = std::max(m.grid, meta[a].grid);
      m.pure = m.pure && meta[a].pure;
      if (meta[a].rel > 0)
        e = kInf;
    }
    m.err = lipschitz * e * static_cast<double>(args.size()) + own;
    if (own > 0)
      m.pure = false;
    return m;
  }

  /// Rounding of one op on `d` at `bound`.
  static double ulps(DType d, double bound, double n = kOpUlps) {
    return d.isFloat() ? n * epsilon(d) * std::max(bound, 1.0) : 0;
  }

  void decodeInstr();
  void leaf();
  void unaryExact();
  void unaryMath();
  void binary();
  void divide();
  void compare();
  void logic();
  void select();
  void castTo();
  void reduce();
  void softmaxFamily();
  void matmulOp();
  void layout();
  void joinSplit();
  void indexing();
  void nn();
  void materialize();
  void mutate();
  void gradient();

  /// A shape that broadcasts with `d`: trailing dims kept or set to 1.
  Dims broadcastPartner(const Dims &d) {
    Dims out;
    size_t drop = in.below(static_cast<int64_t>(d.size()) + 1);
    for (size_t i = drop; i < d.size(); ++i)
      out.push_back(in.chance(30) ? 1 : d[i]);
    return out;
  }
  Dims drawDims() {
    static const int64_t choices[] = {1, 2, 3, 4, 5, 1, 2, 7, 8, 16, 33, 0};
    int rank = static_cast<int>(in.below(5));
    Dims d;
    for (int i = 0; i < rank; ++i)
      d.push_back(choices[in.below(in.chance(90) ? 11 : 12)]);
    // The largest dim goes first, so that this ends once the input runs
    // out (below() is then always 0).
    while (numel(d) > kMaxNumel)
      *std::max_element(d.begin(), d.end()) = 1;
    return d;
  }
  DType drawDType() {
    static const DType choices[] = {DType::F32, DType::F32, DType::F64,
                                    DType::I32, DType::I64, DType::Bool};
    return choices[in.below(6)];
  }
  /// A fresh input; `values` in [lo, hi] (quarters for floats).
  int input(const Dims &d, DType dtype, int64_t lo, int64_t hi);
  /// An index tensor for an axis of size n: mostly in range, sometimes not.
  int indexInput(const Dims &d, int64_t n);

  //===--- Checking -------------------------------------------------------===//

  void replay();
  void compareAll();
};

/// `values` as a tensor of `dtype` on `device`, made from host data as an
/// input or a parameter is.
Tensor hostTensor(const std::vector<double> &values, const Dims &d, DType dtype,
                  const DispatchDevice &device) {
  auto make = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> typed(values.begin(), values.end());
    return Tensor::fromData(dtype, typed.data(), typed.size(), Shape(d),
                            device);
  };
  if (dtype == DType::F64)
    return make(double());
  if (dtype == DType::F32)
    return make(float());
  if (dtype == DType::I64)
    return make(int64_t());
  if (dtype == DType::I32)
    return make(int32_t());
  std::vector<bool> bits(values.begin(), values.end());
  return Tensor::fromVector(bits, Shape(d), device);
}

int Fuzz::input(const Dims &d, DType dtype, int64_t lo, int64_t hi) {
  Mix mix{in.byte() | (uint64_t(in.byte()) << 8)};
  int64_t n = numel(d);
  std::vector<double> values(n);
  bool quarters = dtype.isFloat() && in.chance(60);
  for (double &x : values) {
    if (dtype.isBool())
      x = static_cast<double>(mix.next() & 1);
    else if (quarters)
      x = static_cast<double>(mix.between(lo * 4, hi * 4)) / 4;
    else
      x = static_cast<double>(mix.between(lo, hi));
  }
  Meta m;
  m.bound = dtype.isBool() ? 1 : std::max(std::fabs(lo), std::fabs(hi));
  m.grid = quarters ? 2 : 0;
  m.leaf = autodiff && dtype.isFloat();
  std::string text = name(count()) + " = input " + dtype.str() + str(d);
  return emit(text,
              [values, d, dtype](Side &s) -> std::vector<Tensor> {
                return {hostTensor(values, d, dtype, s.device)};
              },
              {m});
}

int Fuzz::indexInput(const Dims &d, int64_t n) {
  // Mostly in [0, n); sometimes one step outside, which the recorder must
  // reject at once since these indices are known when the op is recorded.
  bool bad = in.chance(8);
  int i =
      input(d, DType::I64, bad ? -1 : 0, bad ? n : std::max<int64_t>(n - 1, 0));
  if (i >= 0)
    meta[i].leaf = false;
  return i;
}

void Fuzz::decodeInstr() {
  switch (in.below(20)) {
  case 0:
  case 1:
    return leaf();
  case 2:
    return unaryExact();
  case 3:
    return unaryMath();
  case 4:
  case 5:
    return binary();
  case 6:
    return divide();
  case 7:
    return compare();
  case 8:
    return in.chance(50) ? logic() : select();
  case 9:
    return castTo();
  case 10:
  case 11:
    return reduce();
  case 12:
    return softmaxFamily();
  case 13:
    return matmulOp();
  case 14:
    return layout();
  case 15:
    return joinSplit();
  case 16:
    return indexing();
  case 17:
    return nn();
  case 18:
    return materialize();
  default:
    return in.chance(50) ? mutate() : gradient();
  }
}

void Fuzz::leaf() {
  DType d = drawDType();
  if (d.isFloat() && in.chance(15)) {
    // A factory: the same numbers on every backend.
    Dims shape = drawDims();
    int which = static_cast<int>(in.below(4));
    uint64_t seed = in.byte();
    Meta m;
    m.bound = which == 2 ? 6 : 1;
    m.err = which >= 2 ? ulps(d, m.bound, 8) : 0;
    m.pure = which < 2;
    m.leaf = autodiff;
    static const char *const names[] = {"ones", "eye", "randn", "rand"};
    int64_t n = shape.empty() ? 1 : shape[0];
    emit(name(count()) + " = " + names[which] + " " + str(shape),
         [=](Side &s) -> std::vector<Tensor> {
           switch (which) {
           case 0:
             return {Tensor::ones(Shape(shape), d, s.device)};
           case 1:
             return {Tensor::eye(n, d, s.device)};
           case 2:
             // randn's tail is clamped so its bound holds.
             return {
                 clamp(Tensor::randn(Shape(shape), d, s.device, seed), -6, 6)};
           default:
             return {Tensor::rand(Shape(shape), d, s.device, seed)};
           }
         },
         {m});
    return;
  }
  input(drawDims(), d, d.isBool() ? 0 : -4, d.isBool() ? 1 : 4);
}

void Fuzz::unaryExact() {
  int x = in.chance(80) ? pickExact() : pickAny();
  if (x < 0)
    return;
  static const char *const names[] = {
      "neg", "abs", "relu", "floor", "ceil", "round", "sign", "detach", "not"};
  int op = static_cast<int>(in.below(9));
  bool discontinuous = op >= 3 && op <= 6;
  Meta m = meta[x];
  m.leaf = false;
  if (discontinuous && !meta[x].exact())
    m.err = kInf;
  if (op == 6)
    m.bound = 1;
  if (op >= 3 && op <= 6)
    m.grid = 0;
  if (op == 8)
    m.bound = 1;
  emit(name(count()) + " = " + names[op] + " " + name(x),
       [=](Side &s) -> std::vector<Tensor> {
         const Tensor &a = s.v(x);
         switch (op) {
         case 0:
           return {neg(a)};
         case 1:
           return {abs(a)};
         case 2:
           return {relu(a)};
         case 3:
           return {floor(a)};
         case 4:
           return {ceil(a)};
         case 5:
           return {round(a)};
         case 6:
           return {sign(a)};
         case 7:
           return {a.detach()};
         default:
           return {logicalNot(a)};
         }
       },
       {m});
}

void Fuzz::unaryMath() {
  int x = pickFloat();
  if (x < 0)
    return;
  const Meta a = meta[x];
  DType d = dtype(x);
  int op = static_cast<int>(in.below(10));
  static const char *const names[] = {
      "exp(clamp(., -3, 3))", "tanh",         "sigmoid", "sin",  "cos",
      "log(abs(.) + 1)",      "sqrt(abs(.))", "erf",     "gelu", "silu"};
  // Bound and Lipschitz constant of each op over the input's range.
  double bound = 1, lip = 1.2;
  switch (op) {
  case 0:
    bound = std::exp(std::min(a.bound, 3.0));
    lip = bound;
    break;
  case 5:
    bound = std::log(a.bound + 1);
    lip = 1;
    break;
  case 6:
    bound = std::sqrt(a.bound);
    // sqrt is not Lipschitz at 0: only exact inputs, correctly rounded.
    lip = a.exact() ? 0 : kInf;
    break;
  case 8:
  case 9:
    bound = a.bound + 1;
    break;
  }
  Meta m = combine({x}, bound, lip, ulps(d, bound));
  emit(name(count()) + " = " + names[op] + " " + name(x),
       [=](Side &s) -> std::vector<Tensor> {
         const Tensor &v = s.v(x);
         switch (op) {
         case 0:
           return {exp(clamp(v, -3, 3))};
         case 1:
           return {tanh(v)};
         case 2:
           return {sigmoid(v)};
         case 3:
           return {sin(v)};
         case 4:
           return {cos(v)};
         case 5:
           return {log(abs(v) + 1.0)};
         case 6:
           return {sqrt(abs(v))};
         case 7:
           return {erf(v)};
         case 8:
           return {gelu(v)};
         default:
           return {silu(v)};
         }
       },
       {m});
}

/// A second operand for `x`: a live value of a broadcastable shape, a new
/// input of one, or (rarely) anything, which the API must reject when the
/// shapes do not broadcast.
static bool broadcastable(const Dims &a, const Dims &b) {
  for (size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
    int64_t p = a[a.size() - i], q = b[b.size() - i];
    if (p != q && p != 1 && q != 1)
      return false;
  }
  return true;
}

void Fuzz::binary() {
  int x = pickAny();
  if (x < 0)
    return;
  int y;
  if (in.chance(5))
    y = pickAny();
  else if (in.chance(50))
    y = pick([&](int i) {
      return broadcastable(dims(i), dims(x)) && dtype(i) == dtype(x);
    });
  else
    y = input(broadcastPartner(dims(x)), dtype(x), dtype(x).isBool() ? 0 : -4,
              dtype(x).isBool() ? 1 : 4);
  if (y < 0)
    return;
  int op = static_cast<int>(in.below(6));
  static const char *const names[] = {"add", "sub", "mul",
                                      "max", "min", "add scalar 0.5"};
  const Meta a = meta[x], b = meta[y];
  Meta m;
  if (op == 2) {
    m = combine({x, y}, a.bound * b.bound, std::max(a.bound, b.bound), 0);
    m.grid = a.grid + b.grid;
  } else if (op == 0 || op == 1) {
    m = combine({x, y}, a.bound + b.bound, 1, 0);
  } else if (op == 5) {
    m = combine({x}, a.bound + 0.5, 1, 0);
    m.grid = std::max(a.grid, 1);
  } else {
    m = combine({x, y}, std::max(a.bound, b.bound), 1, 0);
  }
  DType d = dtype(x);
  if (m.err > 0 && m.err < kInf)
    m.err += ulps(d, m.bound, 4);
  if (d.isInteger() || d.isBool()) {
    m.err = 0; // integer arithmetic wraps the same way everywhere
    m.bound = std::min(m.bound, 9.2e18);
  }
  emit(name(count()) + " = " + names[op] + " " + name(x) + ", " + name(y),
       [=](Side &s) -> std::vector<Tensor> {
         const Tensor &p = s.v(x), &q = s.v(y);
         switch (op) {
         case 0:
           return {p + q};
         case 1:
           return {p - q};
         case 2:
           return {p * q};
         case 3:
           return {maximum(p, q)};
         case 4:
           return {minimum(p, q)};
         default:
           return {p + 0.5};
         }
       },
       {m});
}

void Fuzz::divide() {
  int x = pickAny();
  if (x < 0)
    return;
  int y = pick([&](int i) {
    return broadcastable(dims(i), dims(x)) && dtype(i) == dtype(x);
  });
  if (y < 0)
    return;
  bool isRem = in.chance(40);
  DType d = dtype(x);
  const Meta a = meta[x], b = meta[y];
  Meta m;
  if (d.isInteger()) {
    // Exact, division by zero included (it gives 0), INT_MIN / -1 too.
    m.bound = a.bound;
  } else if (isRem) {
    // fmod is exact; the divisor is kept away from zero.
    m = combine({x, y}, b.bound + 1, kInf, 0);
    if (a.exact() && b.exact())
      m.err = 0;
    m.grid = std::max(a.grid, b.grid);
  } else {
    m = combine({x, y}, a.bound, std::max(1.0, a.bound), ulps(d, a.bound, 4));
  }
  bool guard = d.isFloat();
  emit(name(count()) + " = " + (isRem ? "rem " : "div ") + name(x) + ", " +
           (guard ? "abs(" + name(y) + ") + 1" : name(y)),
       [=](Side &s) -> std::vector<Tensor> {
         Tensor q = guard ? abs(s.v(y)) + 1.0 : s.v(y);
         return {isRem ? s.v(x) % q : s.v(x) / q};
       },
       {m});
}

void Fuzz::compare() {
  int x = pickExact();
  if (x < 0)
    return;
  int y = pick([&](int i) {
    return meta[i].exact() && broadcastable(dims(i), dims(x)) &&
           dtype(i) == dtype(x);
  });
  if (y < 0)
    return;
  int op = static_cast<int>(in.below(6));
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  Meta m;
  m.bound = 1;
  emit(name(count()) + " = " + names[op] + " " + name(x) + ", " + name(y),
       [=](Side &s) -> std::vector<Tensor> {
         const Tensor &p = s.v(x), &q = s.v(y);
         switch (op) {
         case 0:
           return {p == q};
         case 1:
           return {p != q};
         case 2:
           return {p < q};
         case 3:
           return {p <= q};
         case 4:
           return {p > q};
         default:
           return {p >= q};
         }
       },
       {m});
}

void Fuzz::logic() {
  int x = pick([&](int i) { return dtype(i).isBool(); });
  if (x < 0)
    return;
  int y = pick([&](int i) {
    return dtype(i).isBool() && broadcastable(dims(i), dims(x));
  });
  if (y < 0)
    return;
  bool isAnd = in.chance(50);
  Meta m;
  m.bound = 1;
  m.err = std::max(meta[x].err, meta[y].err);
  emit(name(count()) + " = " + (isAnd ? "and " : "or ") + name(x) + ", " +
           name(y),
       [=](Side &s) -> std::vector<Tensor> {
         return {isAnd ? s.v(x) & s.v(y) : s.v(x) | s.v(y)};
       },
       {m});
}

void Fuzz::select() {
  int c = pick([&](int i) { return dtype(i).isBool(); });
  if (c < 0)
    return;
  int x = pick([&](int i) { return broadcastable(dims(i), dims(c)); });
  if (x < 0)
    return;
  bool scalar = in.chance(30);
  int y = scalar ? x : pick([&](int i) {
    return dtype(i) == dtype(x) && broadcastable(dims(i), dims(x)) &&
           broadcastable(dims(i), dims(c));
  });
  if (y < 0)
    return;
  // The larger of the branches' drifts; a drifting condition is not
  // compared.
  Meta m = combine({x, y}, std::max(meta[x].bound, meta[y].bound), 0.5, 0);
  if (!meta[c].exact())
    m.err = kInf;
  emit(name(count()) + " = where " + name(c) + ", " + name(x) + ", " +
           (scalar ? std::string("-1.5") : name(y)),
       [=](Side &s) -> std::vector<Tensor> {
         if (scalar)
           return {where(s.v(c), s.v(x), -1.5)};
         return {where(s.v(c), s.v(x), s.v(y))};
       },
       {m});
}

void Fuzz::castTo() {
  int x = in.chance(90) ? pickExact() : pickAny();
  if (x < 0)
    return;
  DType to = drawDType();
  DType from = dtype(x);
  Meta m = meta[x];
  m.leaf = false;
  if (to.isBool())
    m.bound = 1;
  if (to.isInteger() || to.isBool()) {
    m.grid = 0;
    // Truncation is discontinuous, and out of range it is undefined.
    if (!meta[x].exact() || (from.isFloat() && m.bound >= 2147483647.0))
      m.err = kInf;
    if (m.err == kInf)
      m.pure = false;
  } else if (!from.isFloat()) {
    m.grid = 0;
  }
  emit(name(count()) + " = cast " + name(x) + " to " + to.str(),
       [=](Side &s) -> std::vector<Tensor> { return {s.v(x).cast(to)}; }, {m});
}

/// Axes to reduce: some distinct axes of rank r, or one out of range.
static std::vector<int64_t> drawAxes(Bytes &in, int64_t r) {
  std::vector<int64_t> axes;
  if (in.chance(4))
    return {r + static_cast<int64_t>(in.below(2))};
  for (int64_t a = 0; a < r; ++a)
    if (in.chance(40))
      axes.push_back(in.chance(20) ? a - r : a);
  return axes;
}

void Fuzz::reduce() {
  int x = pickAny();
  if (x < 0)
    return;
  Dims d = dims(x);
  int64_t r = static_cast<int64_t>(d.size());
  std::vector<int64_t> axes = drawAxes(in, r);
  bool keep = in.chance(40);
  int op = static_cast<int>(in.below(10));
  static const char *const names[] = {"sum",    "mean",  "prod", "max",
                                      "min",    "any",   "all",  "argmax",
                                      "argmin", "cumsum"};
  int64_t axis =
      r == 0 ? 0
             : static_cast<int64_t>(in.below(r + 1)) - (in.chance(10) ? r : 0);
  // Elements folded into each result.
  int64_t n = 1;
  if (op <= 6) {
    if (axes.empty())
      n = numel(d);
    for (int64_t a : axes)
      if (a >= -r && a < r)
        n *= d[a < 0 ? a + r : a];
  } else if (axis >= -r && axis < r) {
    n = d[axis < 0 ? axis + r : axis];
  }
  const Meta a = meta[x];
  DType dt = dtype(x);
  double fn = static_cast<double>(std::max<int64_t>(n, 1));
  Meta m = a;
  m.leaf = false;
  switch (op) {
  case 0:
  case 9:
    m = combine({x}, a.bound * fn, fn,
                a.exact() ? 0 : ulps(dt, a.bound * fn, 4 * fn));
    break;
  case 1:
    m = combine({x}, a.bound, 1, ulps(dt, a.bound, 8 + 4 * fn));
    break;
  case 2:
    m = combine({x}, std::pow(std::max(a.bound, 1.0), fn), 1, 0);
    m.grid = a.grid * static_cast<int>(std::min<int64_t>(n, 1000));
    if (!a.exact())
      m.err = kInf;
    break;
  case 5:
  case 6:
    m.bound = 1;
    break;
  case 7:
  case 8:
    m.bound = fn;
    m.grid = 0;
    if (!a.exact())
      m.err = kInf;
    break;
  }
  if (dt.isInteger() || dt.isBool()) {
    if (op != 1)
      m.err = 0;
    m.bound = std::min(m.bound, 9.2e18);
  }
  std::string what = op <= 6 ? str(axes, "{") : std::to_string(axis);
  emit(name(count()) + " = " + names[op] + " " + name(x) + " " + what +
           (keep ? " keepdim" : ""),
       [=](Side &s) -> std::vector<Tensor> {
         const Tensor &v = s.v(x);
         switch (op) {
         case 0:
           return {sum(v, axes, keep)};
         case 1:
           return {mean(v, axes, keep)};
         case 2:
           return {prod(v, axes, keep)};
         case 3:
           return {max(v, axes, keep)};
         case 4:
           return {min(v, axes, keep)};
         case 5:
           return {any(v, axes, keep)};
         case 6:
           return {all(v, axes, keep)};
         case 7:
           return {argmax(v, axis, keep)};
         case 8:
           return {argmin(v, axis, keep)};
         default:
           return {cumsum(v, axis)};
         }
       },
       {m});
}

void Fuzz::softmaxFamily() {
  int x = pickFloat();
  if (x < 0)
    return;
  int64_t r = static_cast<int64_t>(dims(x).size());
  int64_t axis = static_cast<int64_t>(in.below(r + 2)) - 1;
  int op = static_cast<int>(in.below(3));
  static const char *const names[] = {"softmax", "log_softmax", "logsumexp"};
  const Meta a = meta[x];
  DType d = dtype(x);
  double n = 1;
  if (axis >= -r && axis < r)
    n = static_cast<double>(
        std::max<int64_t>(dims(x)[axis < 0 ? axis + r : axis], 1));
  double bound = op == 0 ? 1 : a.bound + std::log(n) + 1;
  Meta m = combine({x}, bound, 2, ulps(d, bound + n));
  emit(name(count()) + " = " + names[op] + " " + name(x) + " " +
           std::to_string(axis),
       [=](Side &s) -> std::vector<Tensor> {
         const Tensor &v = s.v(x);
         if (op == 0)
           return {softmax(v, axis)};
         if (op == 1)
           return {logSoftmax(v, axis)};
         return {logsumexp(v, {axis}, false)};
       },
       {m});
}

void Fuzz::matmulOp() {
  int x = pick([&](int i) { return dims(i).size() >= 1; });
  if (x < 0)
    return;
  Dims a = dims(x);
  int y;
  if (in.chance(10)) {
    y = pickAny();
  } else {
    // [..., K] x [K, N] or a batched [..., K, N] of the same batch.
    Dims b;
    int64_t k = a.back();
    int64_t nn = in.chance(20) ? 1 : static_cast<int64_t>(in.below(9)) + 1;
    if (a.size() >= 3 && in.chance(50))
      b = Dims(a.begin(), a.end() - 2);
    b.push_back(k);
    b.push_back(nn);
    y = input(b, dtype(x), -4, 4);
  }
  if (y < 0)
    return;
  const Meta p = meta[x], q = meta[y];
  double k = static_cast<double>(std::max<int64_t>(a.back(), 1));
  DType d = dtype(x);
  double bound = k * p.bound * q.bound;
  Meta m = combine({x, y}, bound, k * std::max(p.bound, q.bound),
                   p.exact() && q.exact() ? 0 : ulps(d, bound, 4 * k));
  m.grid = p.grid + q.grid;
  if (d.isInteger())
    m.err = 0;
  emit(name(count()) + " = matmul " + name(x) + ", " + name(y),
       [=](Side &s) -> std::vector<Tensor> { return {matmul(s.v(x), s.v(y))}; },
       {m});
}

void Fuzz::layout() {
  int x = pickAny();
  if (x < 0)
    return;
  Dims d = dims(x);
  int64_t r = static_cast<int64_t>(d.size());
  Meta m = meta[x];
  m.leaf = false;
  int op = static_cast<int>(in.below(10));
  std::string text = name(count()) + " = ";
  std::function<std::vector<Tensor>(Side &)> run;
  switch (op) {
  case 0: {
    // A reshape to a split or merge of the dims, or a wrong count.
    Dims to;
    if (in.chance(50)) {
      to.push_back(numel(d));
    } else {
      for (int64_t v : d) {
        if (v % 2 == 0 && v > 0 && in.chance(50)) {
          to.push_back(2);
          to.push_back(v / 2);
        } else {
          to.push_back(v);
        }
      }
    }
    if (in.chance(5))
      to.push_back(3);
    if (!to.empty() && in.chance(15))
      to[in.below(static_cast<int64_t>(to.size()))] = -1;
    text += "reshape " + name(x) + " " + str(to);
    run = [=](Side &s) -> std::vector<Tensor> {
      return {reshape(s.v(x), Shape(to))};
    };
    break;
  }
  case 1: {
    std::vector<int64_t> perm(r);
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = r - 1; i > 0; --i)
      std::swap(perm[i], perm[in.below(i + 1)]);
    if (r > 0 && in.chance(5))
      perm[0] = perm.back();
    text += "permute " + name(x) + " " + str(perm, "{");
    run = [=](Side &s) -> std::vector<Tensor> {
      return {permute(s.v(x), perm)};
    };
    break;
  }
  case 2: {
    Dims to = d;
    for (int64_t &v : to)
      if (v == 1 && in.chance(60))
        v = static_cast<int64_t>(in.below(6)) + 1;
    if (in.chance(30))
      to.insert(to.begin(), static_cast<int64_t>(in.below(4)) + 1);
    text += "expand " + name(x) + " " + str(to);
    run = [=](Side &s) -> std::vector<Tensor> {
      return {expand(s.v(x), Shape(to))};
    };
    break;
  }
  case 3: {
    std::vector<int64_t> starts, ends, steps;
    for (int64_t v : d) {
      int64_t a = in.below(v + 1);
      int64_t b = a + in.below(v - a + 1);
      if (in.chance(3))
        b = v + 2;
      starts.push_back(a);
      ends.push_back(b);
      steps.push_back(in.chance(30) ? 2 : 1);
    }
    text += "slice " + name(x) + " " + str(starts, "{") + " " + str(ends, "{") +
            " " + str(steps, "{");
    run = [=](Side &s) -> std::vector<Tensor> {
      return {slice(s.v(x), starts, ends, steps)};
    };
    break;
  }
  case 4: {
    std::vector<int64_t> axes;
    for (int64_t a = 0; a < r; ++a)
      if ((d[a] == 1 && in.chance(60)) || in.chance(3))
        axes.push_back(a);
    text += "squeeze " + name(x) + " " + str(axes, "{");
    run = [=](Side &s) -> std::vector<Tensor> {
      return {squeeze(s.v(x), axes)};
    };
    break;
  }
  case 5: {
    std::vector<int64_t> axes{static_cast<int64_t>(in.below(r + 2))};
    text += "unsqueeze " + name(x) + " " + str(axes, "{");
    run = [=](Side &s) -> std::vector<Tensor> {
      return {unsqueeze(s.v(x), axes)};
    };
    break;
  }
  case 6: {
    std::vector<int64_t> axes = drawAxes(in, r);
    text += "flip " + name(x) + " " + str(axes, "{");
    run = [=](Side &s) -> std::vector<Tensor> { return {flip(s.v(x), axes)}; };
    break;
  }
  case 7: {
    std::vector<int64_t> reps;
    for (int64_t i = 0; i < r + (in.chance(20) ? 1 : 0); ++i)
      reps.push_back(static_cast<int64_t>(in.below(3)) +
                     (in.chance(5) ? 0 : 1));
    text += "repeat " + name(x) + " " + str(reps, "{");
    run = [=](Side &s) -> std::vector<Tensor> {
      return {repeat(s.v(x), reps)};
    };
    break;
  }
  case 8: {
    std::vector<int64_t> lo, hi;
    for (int64_t i = 0; i < r; ++i) {
      lo.push_back(in.below(3) - (in.chance(3) ? 1 : 0));
      hi.push_back(in.below(3));
    }
    m.bound = std::max(m.bound, 2.0);
    text += "pad " + name(x) + " " + str(lo, "{") + " " + str(hi, "{") + " 2.0";
    run = [=](Side &s) -> std::vector<Tensor> {
      return {pad(s.v(x), lo, hi, 2.0)};
    };
    break;
  }
  default: {
    int64_t a = r ? in.below(r) : 0, b = r ? in.below(r) : 0;
    text += "transpose " + name(x) + " " + std::to_string(a) + ", " +
            std::to_string(b);
    run = [=](Side &s) -> std::vector<Tensor> {
      return {transpose(s.v(x), a, b)};
    };
    break;
  }
  }
  emit(text, run, {m});
}

void Fuzz::joinSplit() {
  int x = pick([&](int i) { return !dims(i).empty(); });
  if (x < 0)
    return;
  Dims d = dims(x);
  int64_t r = static_cast<int64_t>(d.size());
  int64_t axis = in.below(r);
  if (in.chance(50)) {
    // concat with a value (or input) that matches off the axis.
    int y = pick([&](int i) {
      Dims e = dims(i);
      if (e.size() != d.size() || dtype(i) != dtype(x))
        return false;
      for (int64_t k = 0; k < r; ++k)
        if (k != axis && e[k] != d[k])
          return false;
      return true;
    });
    if (y < 0 || in.chance(30)) {
      Dims e = d;
      e[axis] = in.below(4);
      y = input(e, dtype(x), -4, 4);
    }
    if (y < 0)
      return;
    Meta m = combine({x, y}, std::max(meta[x].bound, meta[y].bound), 1, 0);
    emit(name(count()) + " = concat " + name(x) + ", " + name(y) + " axis " +
             std::to_string(axis),
         [=](Side &s) -> std::vector<Tensor> {
           return {concat({s.v(x), s.v(y)}, axis)};
         },
         {m});
    return;
  }
  std::vector<int64_t> sizes;
  int64_t left = d[axis];
  while (left > 0 && sizes.size() < 3) {
    int64_t k = 1 + in.below(left);
    sizes.push_back(k);
    left -= k;
  }
  if (left > 0 || in.chance(5))
    sizes.push_back(left + (in.chance(5) ? 1 : 0));
  Meta m = meta[x];
  m.leaf = false;
  emit(name(count()) + ".. = split " + name(x) + " " + str(sizes, "{") +
           " axis " + std::to_string(axis),
       [=](Side &s) -> std::vector<Tensor> {
         return split(s.v(x), sizes, axis);
       },
       {m});
}

void Fuzz::indexing() {
  int op = static_cast<int>(in.below(7));
  if (op == 6) {
    // Indices computed in the graph, known only at run time: in range, or
    // (sometimes) not, which the materialization must report.
    int x = pick([&](int i) { return !dims(i).empty() && dims(i)[0] > 0; });
    int v = pick([&](int i) {
      return meta[i].exact() && (dtype(i).isInteger() || dtype(i).isFloat()) &&
             meta[i].bound < 1e9 && dims(i).size() <= 1;
    });
    if (x < 0 || v < 0)
      return;
    int64_t n = dims(x)[0];
    bool wrap = in.chance(85);
    Meta m = meta[x];
    m.leaf = false;
    emit(name(count()) + " = index_select " + name(x) + " 0, " +
             (wrap ? "abs(cast " + name(v) + ") % " + std::to_string(n)
                   : "abs(cast " + name(v) + ")"),
         [=](Side &s) -> std::vector<Tensor> {
           Tensor idx = abs(s.v(v).cast(DType::I64));
           if (wrap)
             idx = idx % static_cast<double>(n);
           return {indexSelect(s.v(x), 0, idx.reshape(Shape({-1})))};
         },
         {m});
    return;
  }
  int x = pick([&](int i) { return !dims(i).empty(); });
  if (x < 0)
    return;
  Dims d = dims(x);
  int64_t r = static_cast<int64_t>(d.size());
  int64_t axis = in.below(r);
  Meta m = meta[x];
  m.leaf = false;
  switch (op) {
  case 0:
  case 1: {
    // gather: indices of x's rank, no larger off the axis.
    Dims id = d;
    for (int64_t k = 0; k < r; ++k)
      id[k] = k == axis ? 1 + in.below(4) : (d[k] ? 1 + in.below(d[k]) : 0);
    int idx = indexInput(id, d[axis]);
    if (idx < 0)
      return;
    if (op == 0) {
      emit(name(count()) + " = gather " + name(x) + " " + std::to_string(axis) +
               ", " + name(idx),
           [=](Side &s) -> std::vector<Tensor> {
             return {gather(s.v(x), axis, s.v(idx))};
           },
           {m});
      return;
    }
    // scatter_add of updates shaped like the indices.
    int u = input(id, dtype(x), -4, 4);
    if (u < 0)
      return;
    double adds = static_cast<double>(numel(id));
    Meta mu = combine({x, u}, meta[x].bound + adds * meta[u].bound, adds,
                      meta[x].exact() && meta[u].exact()
                          ? 0
                          : ulps(dtype(x), meta[x].bound + adds * 4, 4 * adds));
    emit(name(count()) + " = scatter_add " + name(x) + " " +
             std::to_string(axis) + ", " + name(idx) + ", " + name(u),
         [=](Side &s) -> std::vector<Tensor> {
           return {scatterAdd(s.v(x), axis, s.v(idx), s.v(u))};
         },
         {mu});
    return;
  }
  case 2: {
    int idx = indexInput({1 + in.below(6)}, d[axis]);
    if (idx < 0)
      return;
    emit(name(count()) + " = index_select " + name(x) + " " +
             std::to_string(axis) + ", " + name(idx),
         [=](Side &s) -> std::vector<Tensor> {
           return {indexSelect(s.v(x), axis, s.v(idx))};
         },
         {m});
    return;
  }
  case 3: {
    int idx = indexInput(drawDims(), d[0]);
    if (idx < 0)
      return;
    emit(name(count()) + " = embedding " + name(x) + ", " + name(idx),
         [=](Side &s) -> std::vector<Tensor> {
           return {embedding(s.v(x), s.v(idx))};
         },
         {m});
    return;
  }
  case 4: {
    int64_t classes = 1 + in.below(6);
    int idx = indexInput(d, classes);
    if (idx < 0)
      return;
    Meta mo;
    mo.bound = 1;
    emit(name(count()) + " = one_hot " + name(idx) + " " +
             std::to_string(classes),
         [=](Side &s) -> std::vector<Tensor> {
           return {oneHot(s.v(idx), classes)};
         },
         {mo});
    return;
  }
  default: {
    int mask = pick(
        [&](int i) { return dtype(i).isBool() && broadcastable(dims(i), d); });
    if (mask < 0)
      return;
    m.bound = std::max(m.bound, 3.0);
    if (!meta[mask].exact())
      m.err = kInf;
    emit(name(count()) + " = mask_fill " + name(x) + ", " + name(mask) +
             ", 3.0",
         [=](Side &s) -> std::vector<Tensor> {
           return {maskFill(s.v(x), s.v(mask), 3.0)};
         },
         {m});
    return;
  }
  }
}

void Fuzz::nn() {
  int x = pick([&](int i) { return dtype(i).isFloat() && !dims(i).empty(); });
  if (x < 0)
    return;
  Dims d = dims(x);
  const Meta a = meta[x];
  DType dt = dtype(x);
  int op = static_cast<int>(in.below(3));
  if (op == 0 && d.size() == 2) {
    int64_t classes = d[1];
    int labels = indexInput({d[0]}, classes);
    if (labels < 0)
      return;
    double bound = 2 * a.bound + std::log(std::max<double>(classes, 1)) + 1;
    Meta m = combine({x}, bound, 4, ulps(dt, bound + classes));
    emit(name(count()) + " = cross_entropy " + name(x) + ", " + name(labels),
         [=](Side &s) -> std::vector<Tensor> {
           return {crossEntropy(s.v(x), s.v(labels))};
         },
         {m});
    return;
  }
  if (op == 1) {
    // layer_norm divides by the spread of a row, which may be near zero:
    // it runs but is not compared.
    Meta m;
    m.err = kInf;
    m.pure = false;
    m.bound = kInf;
    bool affine = in.chance(50);
    int w = affine ? input({d.back()}, dt, -2, 2) : -1;
    emit(name(count()) + " = layer_norm " + name(x) +
             (affine ? ", " + name(w) + ", " + name(w) : ""),
         [=](Side &s) -> std::vector<Tensor> {
           if (w >= 0)
             return {layerNorm(s.v(x), s.v(w), s.v(w))};
           return {layerNorm(s.v(x), std::nullopt, std::nullopt)};
         },
         {m});
    return;
  }
  // A 2-D pooling or convolution of a rank-4 value.
  if (d.size() != 4)
    return;
  int64_t k = 1 + in.below(3);
  int kind = static_cast<int>(in.below(3));
  if (kind == 0) {
    int64_t outc = 1 + in.below(3);
    int w = input({outc, d[1], k, k}, dt, -2, 2);
    if (w < 0)
      return;
    double terms = static_cast<double>(d[1] * k * k);
    double bound = terms * a.bound * 2;
    Meta m = combine({x, w}, bound, terms * std::max(a.bound, 2.0),
                     a.exact() ? 0 : ulps(dt, bound, 4 * terms));
    m.grid = a.grid + meta[w].grid;
    emit(name(count()) + " = conv2d " + name(x) + ", " + name(w) + " k" +
             std::to_string(k),
         [=](Side &s) -> std::vector<Tensor> {
           return {conv2d(s.v(x), s.v(w))};
         },
         {m});
    return;
  }
  Meta m = a;
  m.leaf = false;
  if (kind == 2)
    m = combine({x}, a.bound, 1, ulps(dt, a.bound, 8 + 4 * k * k));
  emit(name(count()) + (kind == 1 ? " = max_pool2d " : " = avg_pool2d ") +
           name(x) + " k" + std::to_string(k),
       [=](Side &s) -> std::vector<Tensor> {
         if (kind == 1)
           return {maxPool2d(s.v(x), {k, k})};
         return {avgPool2d(s.v(x), {k, k})};
       },
       {m});
}

void Fuzz::materialize() {
  int x = pickAny();
  if (x < 0)
    return;
  int op = static_cast<int>(in.below(5));
  if (op == 4) {
    // Release the handle: a pending chain is dropped unmaterialized.
    meta[x].dead = true;
    emit("release " + name(x),
         [=](Side &s) -> std::vector<Tensor> {
           s.values[x] = Tensor();
           return {};
         },
         {});
    return;
  }
  int y = pickAny();
  static const char *const names[] = {"sync", "device sync", "sync pair",
                                      "read"};
  emit(
      std::string(names[op]) + " " + name(x) + (op == 2 ? ", " + name(y) : ""),
      [=](Side &s) -> std::vector<Tensor> {
        switch (op) {
        case 0:
          s.v(x).sync();
          break;
        case 1:
          s.device.sync();
          break;
        case 2:
          kiln::sync({s.v(x), s.v(y)});
          break;
        default:
          (void)read(s.v(x));
          break;
        }
        return {};
      },
      {}, /*materializes=*/true);
}

void Fuzz::mutate() {
  int x = pickAny();
  if (x < 0)
    return;
  int y = pick([&](int i) {
    return i != x && dtype(i) == dtype(x) && broadcastable(dims(i), dims(x));
  });
  if (y < 0)
    return;
  int op = static_cast<int>(in.below(4));
  static const char *const names[] = {"add_", "sub_", "mul_", "assign"};
  const Meta a = meta[x], b = meta[y];
  Meta m;
  if (op == 2) {
    m = combine({x, y}, a.bound * b.bound, std::max(a.bound, b.bound), 0);
    m.grid = a.grid + b.grid;
  } else if (op == 3) {
    // The optimizer's update, x - y / 4.
    m = combine({x, y}, a.bound + b.bound / 4, 1, 0);
    m.grid = std::max(a.grid, b.grid + 2);
  } else {
    m = combine({x, y}, a.bound + b.bound, 1, 0);
  }
  if (dtype(x).isInteger())
    m.err = 0;
  // The handle moves into the result: x itself is gone.
  meta[x].dead = true;
  emit(name(count()) + " = " + names[op] + " " + name(x) + ", " + name(y),
       [=](Side &s) -> std::vector<Tensor> {
         Tensor t = std::move(s.values[x]);
         s.values[x] = Tensor();
         switch (op) {
         case 0:
           t.addInPlace(s.v(y));
           break;
         case 1:
           t.subInPlace(s.v(y));
           break;
         case 2:
           t.mulInPlace(s.v(y));
           break;
         default:
           t.assign(t - s.v(y) / 4.0);
           break;
         }
         return {t};
       },
       {m});
}

void Fuzz::gradient() {
  if (!autodiff)
    return;
  int x = pick([&](int i) { return dtype(i).isFloat(); });
  if (x < 0)
    return;
  // The leaves whose gradients are read.
  std::vector<int> leaves;
  for (int i = 0; i < count(); ++i)
    if (meta[i].leaf && !meta[i].dead)
      leaves.push_back(i);
  bool square = in.chance(30);
  // Gradients of an exact graph are sums of products of exact values.
  Meta m;
  m.bound = kInf;
  m.pure = false;
  if (meta[x].pure && !square)
    m.rel = 1e-5;
  else
    m.err = kInf;
  std::vector<Meta> metas(leaves.size(), m);
  std::string text = "grads of " + std::string(square ? "sum(sq " : "sum(") +
                     name(x) + ") for";
  for (int l : leaves)
    text += " " + name(l);
  // A leaf the loss does not reach gives a zero.
  emit(
      text,
      [=](Side &s) -> std::vector<Tensor> {
        Tensor loss = square ? sum(s.v(x) * s.v(x)) : sum(s.v(x));
        Gradients g = backward(loss);
        std::vector<Tensor> out;
        for (int l : leaves)
          out.push_back(g.has(s.v(l)) ? g.get(s.v(l))
                                      : Tensor::scalar(0, DType::F32,
                                                       s.device.backend()));
        return out;
      },
      metas);
}

void Fuzz::replay() {
  for (size_t k = 0; k < program.size(); ++k) {
    Instr &instr = program[k];
    std::vector<Tensor> made;
    bool rejected = false;
    std::string why;
    try {
      made = instr.run(cpu);
    } catch (const Error &e) {
      rejected = true;
      why = e.what();
    }
    if (rejected != instr.rejected)
      fail("instruction " + std::to_string(k) + " is " +
           (rejected ? "rejected on Cpu (" + why + ")" : "accepted on Cpu") +
           " but " + (instr.rejected ? "rejected" : "accepted") + " on Flex");
    for (Tensor &x : made)
      cpu.values.push_back(std::move(x));
  }
}

void Fuzz::compareAll() {
  std::vector<int> outs;
  for (int i = 0; i < count(); ++i) {
    if (meta[i].dead)
      continue;
    if (meta[i].err < kInf)
      outs.push_back(i);
    else
      ++stats.unchecked;
  }
  std::vector<Tensor> f, c;
  for (int i : outs) {
    f.push_back(flex.v(i));
    c.push_back(cpu.v(i));
  }
  std::string fe, ce;
  try {
    kiln::sync(f);
  } catch (const Error &e) {
    fe = e.what();
  }
  try {
    kiln::sync(c);
  } catch (const Error &e) {
    ce = e.what();
  }
  if (fe.empty() != ce.empty())
    fail("the final sync fails on " +
         std::string(fe.empty() ? "Cpu: " : "Flex: ") + (fe.empty() ? ce : fe));
  if (!fe.empty()) {
    ++stats.runtimeErrors;
    return;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    int i = outs[k];
    ++(meta[i].rel > 0   ? stats.gradients
       : meta[i].err > 0 ? stats.bounded
                         : stats.exact);
    if (f[k].shape() != c[k].shape() || f[k].dtype() != c[k].dtype())
      fail(name(i) + ": Flex gives " + f[k].dtype().str() + f[k].shape().str() +
           ", Cpu " + c[k].dtype().str() + c[k].shape().str());
    Host a = read(f[k]), b = read(c[k]);
    if (a.i != b.i)
      fail(name(i) + ": integer values differ");
    double scale = 0;
    for (double v : a.f)
      if (std::isfinite(v))
        scale = std::max(scale, std::fabs(v));
    double tol = meta[i].rel > 0 ? meta[i].rel * (1 + scale) : meta[i].err;
    for (size_t e = 0; e < a.f.size(); ++e) {
      double p = a.f[e], q = b.f[e];
      if (std::isnan(p) && std::isnan(q))
        continue;
      if (p == q || std::fabs(p - q) <= tol)
        continue;
      std::ostringstream os;
      os.precision(17);
      os << name(i) << "[" << e << "]: Flex " << p << ", Cpu " << q
         << ", allowed " << tol;
      fail(os.str());
    }
  }
}

void Fuzz::run() {
  ++stats.programs;
  uint8_t mode = in.byte();
  if (mode % 3 != 0) {
    static const CheckpointingStrategy strategies[] = {
        CheckpointingStrategy::Balanced, CheckpointingStrategy::Disabled,
        CheckpointingStrategy::Budget(64 << 10)};
    CheckpointingStrategy st = strategies[(mode / 3) % 3];
    autodiff = true;
    flex.device = DispatchDevice::autodiff(DispatchDevice::flex(), st);
    cpu.device = DispatchDevice::autodiff(DispatchDevice::cpu(), st);
  }
  while (!in.done() && !stopped && program.size() < kMaxInstrs)
    decodeInstr();
  replay();
  compareAll();
}
} // namespace

/// The exit status of a run whose KILN_CPU_ISA cannot run on this host
/// (ctest's SKIP_RETURN_CODE; utils/sanitize.sh reads it the same way).
constexpr int kSkipStatus = 77;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Every graph is new: the disk cache would only fill up.
  ::setenv("KILN_CACHE_DIR", "", 1);
  if (std::string why = cpuIsaUnsupported(env::cpuIsa()); !why.empty()) {
    std::printf("api fuzzer: skipped: KILN_CPU_ISA=%s: %s\n",
                cpuIsaName(env::cpuIsa()), why.c_str());
    std::fflush(stdout);
    std::_Exit(kSkipStatus);
  }
  if (const char *s = std::getenv("KILN_FUZZ_STATS"); s && *s == '1')
    std::atexit([] {
      std::printf("api fuzzer: %ld programs, %ld instructions accepted and "
                  "%ld rejected (%ld at run time); values compared: %ld "
                  "exactly, %ld within a bound, %ld gradients; %ld not "
                  "compared\n",
                  stats.programs, stats.accepted, stats.rejected,
                  stats.runtimeErrors, stats.exact, stats.bounded,
                  stats.gradients, stats.unchecked);
    });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fuzz(data, size).run();
  return 0;
}
