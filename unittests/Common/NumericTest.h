//===- NumericTest.h - Numeric checks against references --------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Per-op tolerances live in one table (tolerance()), used by every numeric
// and differential test. A result is accepted when, element by element,
// |got - want| <= atol + rtol * |want| (NaN must match NaN, and infinities
// must match exactly).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_API_NUMERICTEST_H
#define KILN_UNITTESTS_API_NUMERICTEST_H

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kiln::test {

struct Tolerance {
  double atol;
  double rtol;
};

/// Precision of a dtype's storage: the unit roundoff, and a floor for ints.
inline double epsilonOf(DType dtype) {
  switch (dtype.kind()) {
  case DTypeKind::F64:
    return 2.3e-16;
  case DTypeKind::F32:
    return 1.2e-7;
  case DTypeKind::F16:
    return 9.8e-4;
  case DTypeKind::BF16:
    return 7.9e-3;
  default:
    return 0.0; // integers and bools compare exactly
  }
}

/// The tolerance of `op` ("kiln.exp", ...) on `dtype`. Ops that round once
/// get a few ulps; transcendentals computed with vector approximations,
/// reductions (which reassociate) and matmul/conv (long dot products) get
/// more.
inline Tolerance tolerance(const std::string &op, DType dtype) {
  double eps = epsilonOf(dtype);
  if (eps == 0.0)
    return {0.0, 0.0};
  double ulps = 4;
  if (op == "kiln.exp" || op == "kiln.log" || op == "kiln.log1p" ||
      op == "kiln.sin" || op == "kiln.cos" || op == "kiln.tan" ||
      op == "kiln.tanh" || op == "kiln.sigmoid" || op == "kiln.pow" ||
      op == "kiln.atan2" || op == "kiln.rsqrt" || op == "kiln.silu" ||
      op == "kiln.softmax" || op == "kiln.log_softmax" ||
      op == "kiln.logsumexp" || op == "kiln.log_sigmoid" || op == "kiln.mish" ||
      op == "kiln.softplus" || op == "kiln.elu" || op == "kiln.hardswish" ||
      op == "kiln.rope")
    ulps = 16;
  if (op == "kiln.erf" || op == "kiln.gelu")
    ulps = 32;
  if (op == "kiln.sum" || op == "kiln.mean" || op == "kiln.prod" ||
      op == "kiln.cumsum" || op == "kiln.layer_norm" ||
      op == "kiln.cross_entropy" || op == "kiln.batch_norm" ||
      op == "kiln.group_norm" || op == "kiln.rms_norm")
    ulps = 64;
  if (op == "kiln.matmul" || op == "kiln.conv2d" || op == "kiln.conv1d" ||
      op == "kiln.conv2d_backward_input" ||
      op == "kiln.conv2d_backward_weight" || op == "kiln.avg_pool2d" ||
      op == "kiln.conv_transpose2d" || op == "kiln.conv_transpose1d" ||
      op == "kiln.adaptive_avg_pool2d" || op == "kiln.interpolate" ||
      op == "kiln.dequantize")
    ulps = 256;
  // Half precision stores every intermediate rounded: allow a few more.
  if (dtype.kind() == DTypeKind::F16 || dtype.kind() == DTypeKind::BF16)
    ulps = std::max(ulps, 8.0);
  return {ulps * eps, ulps * eps};
}

/// Reads any non-quantized tensor as doubles (materializes it).
inline std::vector<double> valuesOf(const DispatchTensor &t) {
  std::vector<double> out;
  switch (t.dtype().kind()) {
  case DTypeKind::F64:
    for (double v : t.toVector<double>())
      out.push_back(v);
    break;
  case DTypeKind::F32:
    for (float v : t.toVector<float>())
      out.push_back(v);
    break;
  case DTypeKind::F16:
    for (Half v : t.toVector<Half>())
      out.push_back(v.toFloat());
    break;
  case DTypeKind::BF16:
    for (BFloat16 v : t.toVector<BFloat16>())
      out.push_back(v.toFloat());
    break;
  case DTypeKind::I64:
    for (int64_t v : t.toVector<int64_t>())
      out.push_back(static_cast<double>(v));
    break;
  case DTypeKind::I32:
    for (int32_t v : t.toVector<int32_t>())
      out.push_back(v);
    break;
  case DTypeKind::I16:
    for (int16_t v : t.toVector<int16_t>())
      out.push_back(v);
    break;
  case DTypeKind::I8:
    for (int8_t v : t.toVector<int8_t>())
      out.push_back(v);
    break;
  case DTypeKind::U8:
    for (uint8_t v : t.toVector<uint8_t>())
      out.push_back(v);
    break;
  case DTypeKind::Bool:
    for (bool v : t.toVector<bool>())
      out.push_back(v ? 1.0 : 0.0);
    break;
  case DTypeKind::QFloat:
    ADD_FAILURE() << "valuesOf: dequantize " << t.dtype().str() << " first";
    break;
  }
  return out;
}

/// Makes a tensor of `dtype` from doubles (rounded to the dtype).
inline DispatchTensor tensorOf(const std::vector<double> &values, Shape shape,
                               DType dtype, const DispatchDevice &device) {
  DispatchTensor f64 =
      DispatchTensor::fromVector<double>(values, std::move(shape), device);
  return dtype == DType::F64 ? f64 : cast(f64, dtype);
}

/// The values a dtype can hold exactly: `values` rounded through it.
inline std::vector<double> roundedTo(const std::vector<double> &values,
                                     DType dtype) {
  DispatchTensor t =
      tensorOf(values, {static_cast<int64_t>(values.size())}, dtype,
               DispatchDevice::flex());
  return valuesOf(t);
}

/// gtest assertion: `got` matches `want` within `tol`, element by element.
inline ::testing::AssertionResult allClose(const std::vector<double> &got,
                                           const std::vector<double> &want,
                                           Tolerance tol) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << "size " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) && std::isnan(g))
        continue;
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", want " << w;
    }
    if (std::isinf(w) || std::isinf(g)) {
      if (g == w)
        continue;
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", want " << w;
    }
    if (std::fabs(g - w) > tol.atol + tol.rtol * std::fabs(w))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", want " << w
             << " (|diff| " << std::fabs(g - w) << " > atol " << tol.atol
             << " + rtol " << tol.rtol << " * |want|)";
  }
  return ::testing::AssertionSuccess();
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_API_NUMERICTEST_H
