//===- GradCheck.h - Finite-difference checks of backward() -----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A gradient check differentiates loss = sum_k sum(w_k * f(x)_k), with fixed
// random weights w_k shaped like the outputs of f, by backward() and by
// central differences (L(x + h e_j) - L(x - h e_j)) / 2h, in f64 on Flex.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_AUTODIFF_GRADCHECK_H
#define KILN_UNITTESTS_AUTODIFF_GRADCHECK_H

#include "NumericTest.h"

#include <functional>
#include <random>

namespace kiln::test {

/// One operand of a checked function: f64 values (differentiated unless
/// `constant`), or i64 values (indices; never differentiated).
struct GradInput {
  std::vector<double> values;
  Shape shape;
  DType dtype = DType::F64;
  bool constant = false;
};

using GradFn = std::function<std::vector<DispatchTensor>(
    const std::vector<DispatchTensor> &)>;

/// Uniform values in [lo, hi).
inline std::vector<double> uniform(int64_t n, uint64_t seed, double lo,
                                   double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = u(rng);
  return v;
}

/// Values of either sign with |x| in [lo, hi): away from the kinks at 0.
inline std::vector<double> signedAway(int64_t n, uint64_t seed, double lo,
                                      double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = (rng() & 1 ? 1 : -1) * u(rng);
  return v;
}

/// 0.1 * a random permutation of 1..n, centred: distinct values at least
/// 0.1 apart, so no max/min/pool tie is within a finite-difference step.
inline std::vector<double> distinct(int64_t n, uint64_t seed) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = 0.1 * static_cast<double>(i + 1) - 0.05 * static_cast<double>(n);
  std::shuffle(v.begin(), v.end(), std::mt19937_64(seed));
  return v;
}

inline GradInput input(Shape shape, std::vector<double> values) {
  return GradInput{std::move(values), std::move(shape)};
}
inline GradInput randomInput(Shape shape, uint64_t seed, double lo = -1.0,
                             double hi = 1.0) {
  int64_t n = shape.numel();
  return GradInput{uniform(n, seed, lo, hi), std::move(shape)};
}
inline GradInput indices(Shape shape, std::vector<double> values) {
  return GradInput{std::move(values), std::move(shape), DType::I64, true};
}
inline GradInput constant(Shape shape, std::vector<double> values) {
  return GradInput{std::move(values), std::move(shape), DType::F64, true};
}

inline DispatchTensor makeTensor(const GradInput &in,
                                 const std::vector<double> &values,
                                 const DispatchDevice &device) {
  if (in.dtype == DType::I64) {
    std::vector<int64_t> ints(values.begin(), values.end());
    return DispatchTensor::fromVector<int64_t>(ints, in.shape,
                                               device.backend());
  }
  return DispatchTensor::fromVector<double>(
      values, in.shape, in.constant ? device.backend() : device);
}

/// Worst |ad - fd| / (atol + rtol |fd|) of one check, and what it covered.
struct GradCheckResult {
  double worstRatio = 0;
  size_t elements = 0;
};

/// The weights of the loss: one tensor per output of `f`, fixed by `seed`.
inline std::vector<DispatchTensor>
lossWeights(const std::vector<DispatchTensor> &outputs, uint64_t seed) {
  std::vector<DispatchTensor> w;
  for (size_t k = 0; k < outputs.size(); ++k) {
    Shape s = outputs[k].shape();
    w.push_back(DispatchTensor::fromVector<double>(
        uniform(s.numel(), seed + 7919 * k, -1.0, 1.0), s,
        DispatchDevice::flex()));
  }
  return w;
}

inline DispatchTensor weightedLoss(const std::vector<DispatchTensor> &outputs,
                                   const std::vector<DispatchTensor> &w) {
  DispatchTensor loss;
  for (size_t k = 0; k < outputs.size(); ++k) {
    DispatchTensor y = outputs[k];
    if (y.dtype() != DType::F64)
      y = cast(y, DType::F64);
    DispatchTensor term = sum(y * w[k]);
    loss = loss.defined() ? loss + term : term;
  }
  return loss;
}

/// Checks the gradient of every differentiated input of `f` with
/// `strategy`: backward() against central differences with step `h`.
inline ::testing::AssertionResult
gradCheck(const GradFn &f, const std::vector<GradInput> &inputs,
          CheckpointingStrategy strategy, Tolerance tol, double h,
          GradCheckResult *result = nullptr) {
  DispatchDevice flex = DispatchDevice::flex();
  auto evaluate = [&](const std::vector<std::vector<double>> &values,
                      const DispatchDevice &device) {
    std::vector<DispatchTensor> xs;
    for (size_t i = 0; i < inputs.size(); ++i)
      xs.push_back(makeTensor(inputs[i], values[i], device));
    return xs;
  };
  std::vector<std::vector<double>> base;
  for (const GradInput &in : inputs)
    base.push_back(in.values);

  std::vector<DispatchTensor> w = lossWeights(f(evaluate(base, flex)), 17);
  auto lossAt = [&](const std::vector<std::vector<double>> &values) {
    return weightedLoss(f(evaluate(values, flex)), w).item<double>();
  };

  // backward() on tracked copies of the inputs.
  DispatchDevice ad = DispatchDevice::autodiff(flex, strategy);
  std::vector<DispatchTensor> xs = evaluate(base, ad);
  Gradients grads = backward(weightedLoss(f(xs), w));
  sync(grads.all());

  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].constant) {
      if (inputs[i].dtype == DType::F64 && grads.has(xs[i]))
        return ::testing::AssertionFailure()
               << "input " << i << " is untracked but has a gradient";
      continue;
    }
    std::vector<double> got(base[i].size(), 0.0);
    if (grads.has(xs[i]))
      got = valuesOf(grads.get(xs[i]));
    if (got.size() != base[i].size())
      return ::testing::AssertionFailure()
             << "input " << i << ": gradient has " << got.size()
             << " elements, the input " << base[i].size();
    for (size_t j = 0; j < base[i].size(); ++j) {
      std::vector<std::vector<double>> v = base;
      v[i][j] = base[i][j] + h;
      double up = lossAt(v);
      v[i][j] = base[i][j] - h;
      double down = lossAt(v);
      double fd = (up - down) / (2 * h);
      double allowed = tol.atol + tol.rtol * std::fabs(fd);
      double err = std::fabs(got[j] - fd);
      if (!(err <= allowed))
        return ::testing::AssertionFailure()
               << "input " << i << " element " << j << ": backward "
               << got[j] << ", finite differences " << fd << " (|diff| "
               << err << " > " << allowed << ")";
      if (result) {
        result->worstRatio = std::max(result->worstRatio, err / allowed);
        ++result->elements;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_AUTODIFF_GRADCHECK_H
