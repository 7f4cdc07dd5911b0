//===- FlexTestData.h - Inputs for kernel tests -----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Kernel tests compare against references written as plain loops in double.
// Their inputs are values that every dtype holds exactly, so that the only
// rounding a test sees is the kernel's own.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_API_FLEXTESTDATA_H
#define KILN_UNITTESTS_API_FLEXTESTDATA_H

#include "kiln/Kiln.h"

#include <cstdint>
#include <random>
#include <vector>

namespace kiln::test {

/// Every dtype, and the ones each op group accepts.
inline const std::vector<DType> &allDTypes() {
  static const std::vector<DType> all{
      DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
      DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};
  return all;
}
inline const std::vector<DType> &numericDTypes() {
  static const std::vector<DType> numeric(allDTypes().begin(),
                                          allDTypes().end() - 1);
  return numeric;
}
inline const std::vector<DType> &floatDTypes() {
  static const std::vector<DType> floats(allDTypes().begin(),
                                         allDTypes().begin() + 4);
  return floats;
}

/// n deterministic values that `dtype` holds exactly: multiples of 1/16 in
/// [-2, 2] for floats (8 significant bits at most, so bf16 too), small
/// integers for integers (non-negative for u8), 0/1 for bool.
inline std::vector<double> sampleValues(int64_t n, DType dtype, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<double> out(static_cast<size_t>(n));
  for (double &v : out) {
    if (dtype.isFloat())
      v = static_cast<int>(gen() % 65) / 16.0 - 2.0;
    else if (dtype == DType::U8)
      v = static_cast<int>(gen() % 9);
    else if (dtype == DType::Bool)
      v = static_cast<int>(gen() % 2);
    else
      v = static_cast<int>(gen() % 9) - 4;
  }
  return out;
}

/// n deterministic integers in [lo, hi].
inline std::vector<int64_t> sampleIndices(int64_t n, int64_t lo, int64_t hi,
                                          uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t &v : out)
    v = lo + static_cast<int64_t>(gen() % static_cast<uint32_t>(hi - lo + 1));
  return out;
}

inline int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Row-major multi-index of flat position `flat` in `shape`, and back.
inline std::vector<int64_t> unravel(int64_t flat,
                                    const std::vector<int64_t> &shape) {
  std::vector<int64_t> coord(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = flat % shape[d];
    flat /= shape[d];
  }
  return coord;
}
inline int64_t ravel(const std::vector<int64_t> &coord,
                     const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + coord[d];
  return flat;
}

/// `v` wrapped to an integer dtype the way two's-complement storage does;
/// floats are returned unchanged.
inline double wrapTo(double v, DType dtype) {
  auto i = static_cast<int64_t>(v);
  switch (dtype.kind()) {
  case DTypeKind::I32:
    return static_cast<int32_t>(i);
  case DTypeKind::I16:
    return static_cast<int16_t>(i);
  case DTypeKind::I8:
    return static_cast<int8_t>(i);
  case DTypeKind::U8:
    return static_cast<uint8_t>(i);
  case DTypeKind::I64:
    return static_cast<double>(i);
  default:
    return v;
  }
}

/// An index tensor of `dtype` (I64 or I32) holding `values`.
inline DispatchTensor indexTensor(const std::vector<int64_t> &values,
                                  Shape shape, DType dtype) {
  if (dtype == DType::I32) {
    std::vector<int32_t> narrow(values.begin(), values.end());
    return DispatchTensor::fromVector(narrow, std::move(shape),
                                      DispatchDevice::flex());
  }
  return DispatchTensor::fromVector(values, std::move(shape),
                                    DispatchDevice::flex());
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_API_FLEXTESTDATA_H
