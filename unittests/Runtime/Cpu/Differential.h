//===- Differential.h - Cpu against Flex through the public API -*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A differential check builds one graph twice, on Flex (the reference) and
// on Cpu, from the same host bits, materializes every output of a side with
// one kiln::sync and compares the two under the tolerance table of
// NumericTest.h. One sync per side means one Cpu compile covers every op of
// the batch, which is what keeps these tests fast: the JIT compiles each new
// graph, while Flex only interprets.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_CPU_DIFFERENTIAL_H
#define KILN_UNITTESTS_CPU_DIFFERENTIAL_H

#include "Reference.h"

#include "kiln/Support/CpuIsa.h"
#include "kiln/Support/Env.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

/// Skips the test when the process's KILN_CPU_ISA cannot run on this host
/// (the AVX-512 leg of the ISA ctests on an AVX2-only host), saying why.
#define KILN_SKIP_UNLESS_THE_CPU_ISA_RUNS()                                    \
  do {                                                                         \
    std::string why = ::kiln::cpuIsaUnsupported(::kiln::env::cpuIsa());        \
    if (!why.empty())                                                          \
      GTEST_SKIP() << "KILN_CPU_ISA="                                          \
                   << ::kiln::cpuIsaName(::kiln::env::cpuIsa()) << ": "        \
                   << why;                                                     \
  } while (false)

namespace kiln::test {

/// SplitMix64: the same numbers on every platform and standard library,
/// unlike the <random> distributions.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % n); }
  /// Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  bool chance(double p) { return uniform(0, 1) < p; }
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[below(v.size())];
  }

private:
  uint64_t state;
};

/// `n` values in [lo, hi] that `dtype` holds: integers for integer dtypes,
/// 0/1 for bool, and for floats the stored rounding of a uniform draw.
inline std::vector<double> randomValues(Rng &rng, int64_t n, DType dtype,
                                        double lo, double hi) {
  std::vector<double> v(n);
  for (double &x : v) {
    if (dtype.isBool())
      x = rng.chance(0.5);
    else if (dtype.isInteger())
      x = static_cast<double>(rng.between(static_cast<int64_t>(lo),
                                          static_cast<int64_t>(hi)));
    else
      x = static_cast<double>(storedAs(dtype, rng.uniform(lo, hi)));
  }
  return v;
}

/// The tolerance of a chain of ops on `dtype`: the worst op's, once for
/// each op of the chain, since each can add an error of that size (the
/// chains keep their values near 1 and their derivatives small).
inline Tolerance chainTolerance(std::initializer_list<const char *> ops,
                                DType dtype) {
  Tolerance worst{0, 0};
  for (const char *op : ops) {
    Tolerance t = tolerance(op, dtype);
    worst.atol = std::max(worst.atol, t.atol);
    worst.rtol = std::max(worst.rtol, t.rtol);
  }
  double n = static_cast<double>(ops.size());
  return {worst.atol * n, worst.rtol * n};
}

/// The (op, dtype) pairs that the op tests compared, printed at exit.
inline std::set<std::pair<std::string, std::string>> &coverage() {
  static std::set<std::pair<std::string, std::string>> pairs;
  return pairs;
}

/// One side of a differential check: the device its graph is built on and
/// the outputs it compares.
class Side {
public:
  struct Output {
    std::string label;
    Tensor value;
    Tolerance tol;
  };

  explicit Side(DispatchDevice device) : device_(std::move(device)) {}
  const DispatchDevice &device() const { return device_; }

  /// A materialized tensor with the bits of `values` stored as `dtype`,
  /// converted on the host so that neither backend computes its inputs.
  Tensor input(const std::vector<double> &values, Shape shape,
               DType dtype) const;

  /// Compares `t` under `op`'s tolerance for its dtype, and counts the pair
  /// (op, dtype) as covered.
  void check(const std::string &op, DType dtype, const std::string &label,
             const Tensor &t) {
    check(op, dtype, label, t, tolerance(op, t.dtype()));
  }
  /// The same with a tolerance of its own (exact, or a chain's).
  void check(const std::string &op, DType dtype, const std::string &label,
             const Tensor &t, Tolerance tol) {
    coverage().insert({op, dtype.str()});
    check(label, t, tol);
  }
  void check(const std::string &label, const Tensor &t, Tolerance tol) {
    outputs.push_back({label, t, tol});
  }

  std::vector<Output> outputs;

private:
  DispatchDevice device_;
};

inline Tensor Side::input(const std::vector<double> &values, Shape shape,
                          DType dtype) const {
  auto make = [&](auto proto) {
    using T = decltype(proto);
    std::vector<T> typed;
    typed.reserve(values.size());
    for (double v : values) {
      if constexpr (std::is_same_v<T, Half>)
        typed.push_back(Half::fromFloat(static_cast<float>(v)));
      else if constexpr (std::is_same_v<T, BFloat16>)
        typed.push_back(BFloat16::fromFloat(static_cast<float>(v)));
      else
        typed.push_back(static_cast<T>(v));
    }
    return DispatchTensor::fromVector<T>(typed, std::move(shape), device_);
  };
  switch (dtype.kind()) {
  case DTypeKind::F64:
    return make(double());
  case DTypeKind::F32:
    return make(float());
  case DTypeKind::F16:
    return make(Half());
  case DTypeKind::BF16:
    return make(BFloat16());
  case DTypeKind::I64:
    return make(int64_t());
  case DTypeKind::I32:
    return make(int32_t());
  case DTypeKind::I16:
    return make(int16_t());
  case DTypeKind::I8:
    return make(int8_t());
  case DTypeKind::U8:
    return make(uint8_t());
  case DTypeKind::Bool: {
    std::vector<bool> bits;
    for (double v : values)
      bits.push_back(v != 0);
    return DispatchTensor::fromVector(bits, std::move(shape), device_);
  }
  case DTypeKind::QFloat:
    break;
  }
  ADD_FAILURE() << "input: no host values for " << dtype.str();
  return {};
}

/// What a differential check compared.
struct DiffStats {
  int64_t outputs = 0;
  int64_t failures = 0;
  std::vector<size_t> failed; ///< indices of the outputs that differ
};

/// Builds the graph with `build` on Flex and on Cpu, materializes each side
/// with one sync and compares output by output. When the Cpu batch throws,
/// each output is materialized alone to name the ones that fail.
DiffStats compareOnDevices(const std::function<void(Side &)> &build);

} // namespace kiln::test

#endif // KILN_UNITTESTS_CPU_DIFFERENTIAL_H
