//===- Reference.h - Scalar references for the API tests --------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the numeric tests compare against: plain loops in double (long double
// where an int64 must stay exact), the rounding of each dtype written out from
// the IEEE rules, and index arithmetic for broadcasting and views. Nothing
// here calls into Kiln except to build inputs.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_API_REFERENCE_H
#define KILN_UNITTESTS_API_REFERENCE_H

#include "NumericTest.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace kiln::test {

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// DType classes, as the ODS constraints name them
//===----------------------------------------------------------------------===//

inline std::vector<DType> floatDTypes() {
  return {DType::F64, DType::F32, DType::F16, DType::BF16};
}
/// Kiln_SignedTensor: floats and signed integers.
inline std::vector<DType> signedDTypes() {
  return {DType::F64, DType::F32, DType::F16, DType::BF16,
          DType::I64, DType::I32, DType::I16, DType::I8};
}
/// Kiln_NumericTensor: everything but bool.
inline std::vector<DType> numericDTypes() {
  std::vector<DType> v = signedDTypes();
  v.push_back(DType::U8);
  return v;
}
/// Kiln_Tensor: every plain dtype.
inline std::vector<DType> allDTypes() {
  std::vector<DType> v = numericDTypes();
  v.push_back(DType::Bool);
  return v;
}

/// Bits of an integer dtype (0 for others).
inline int intBits(DType d) {
  switch (d.kind()) {
  case DTypeKind::I64:
    return 64;
  case DTypeKind::I32:
    return 32;
  case DTypeKind::I16:
    return 16;
  case DTypeKind::I8:
  case DTypeKind::U8:
    return 8;
  default:
    return 0;
  }
}

//===----------------------------------------------------------------------===//
// Rounding to a dtype
//===----------------------------------------------------------------------===//

/// `x` rounded to nearest-even in a binary format with a `p`-bit significand,
/// normal exponents down to `emin` (frexp convention: 0.5 * 2^emin is the
/// smallest normal) and `maxFinite` as its largest value; gradual underflow.
inline long double roundToFormat(long double x, int p, int emin,
                                 long double maxFinite) {
  if (x == 0 || std::isnan(x) || std::isinf(x))
    return x;
  int e;
  std::frexp(x, &e);
  if (e < emin)
    e = emin;
  long double scale = std::ldexp(1.0L, p - e);
  long double r = std::nearbyint(x * scale) / scale;
  if (std::fabs(r) > maxFinite)
    return r < 0 ? -INFINITY : INFINITY;
  return r;
}

/// The value `x` becomes when stored as `dtype`: floats round to nearest
/// even, integers wrap modulo 2^bits (x must be an integer), bool is x != 0.
inline long double storedAs(DType dtype, long double x) {
  switch (dtype.kind()) {
  case DTypeKind::F64:
    return roundToFormat(x, 53, -1021, DBL_MAX);
  case DTypeKind::F32:
    return roundToFormat(x, 24, -125, FLT_MAX);
  case DTypeKind::F16:
    return roundToFormat(x, 11, -13, 65504.0L);
  case DTypeKind::BF16:
    return roundToFormat(x, 8, -125, std::ldexp(255.0L, 120));
  case DTypeKind::Bool:
    return x != 0 ? 1 : 0;
  default: {
    int bits = intBits(dtype);
    // Wrap through the unsigned 64-bit ring, then sign-extend.
    uint64_t u =
        x < 0 ? ~static_cast<uint64_t>(-(x + 1)) : static_cast<uint64_t>(x);
    if (bits < 64)
      u &= (uint64_t(1) << bits) - 1;
    if (dtype.kind() == DTypeKind::U8)
      return static_cast<long double>(u);
    uint64_t sign = uint64_t(1) << (bits - 1);
    if (u & sign)
      return -static_cast<long double>((~u & (sign - 1)) + 1);
    return static_cast<long double>(u);
  }
  }
}

inline std::vector<double> storedAll(DType dtype,
                                     const std::vector<double> &values) {
  std::vector<double> out;
  for (double v : values)
    out.push_back(static_cast<double>(storedAs(dtype, v)));
  return out;
}

//===----------------------------------------------------------------------===//
// Values and layouts
//===----------------------------------------------------------------------===//

/// `n` values taken round-robin from `pool`.
inline std::vector<double> cycle(const std::vector<double> &pool, int64_t n,
                                 int64_t shift = 0) {
  std::vector<double> out(n);
  for (int64_t i = 0; i < n; ++i)
    out[i] = pool[(i + shift) % pool.size()];
  return out;
}

/// Values that every dtype holds exactly, chosen per dtype class: small
/// signed values for signed dtypes, small non-negative ones for u8 and 0/1
/// for bool. Floats also get fractions.
inline std::vector<double> sampleValues(DType dtype) {
  if (dtype.isBool())
    return {0, 1, 1, 0, 1};
  if (dtype.kind() == DTypeKind::U8)
    return {0, 1, 2, 3, 5, 7, 9, 12, 100, 200};
  if (dtype.isInteger())
    return {-9, -7, -4, -1, 0, 1, 3, 6, 8, 11};
  return {-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, 5.5, -1.25};
}

/// Row-major strides of `shape`.
inline std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

inline int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// numpy broadcasting of two shapes (the test only uses compatible ones).
inline std::vector<int64_t> broadcastShape(std::vector<int64_t> a,
                                           std::vector<int64_t> b) {
  if (a.size() < b.size())
    std::swap(a, b);
  std::vector<int64_t> out = a;
  size_t lead = a.size() - b.size();
  for (size_t i = 0; i < b.size(); ++i)
    if (a[lead + i] == 1)
      out[lead + i] = b[i];
  return out;
}

/// `values` of `shape` read at every element of `out` by broadcasting.
inline std::vector<double> broadcastValues(const std::vector<double> &values,
                                           const std::vector<int64_t> &shape,
                                           const std::vector<int64_t> &out) {
  std::vector<int64_t> in = stridesOf(shape), os = stridesOf(out);
  size_t lead = out.size() - shape.size();
  std::vector<double> r(numelOf(out));
  for (int64_t k = 0; k < (int64_t)r.size(); ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t i = (k / os[lead + d]) % out[lead + d];
      off += (shape[d] == 1 ? 0 : i) * in[d];
    }
    r[k] = values[off];
  }
  return r;
}

/// A tensor of `shape` holding `values` (row-major), built so that it is a
/// strided view on the device: `layout` 0 contiguous, 1 the transpose of a
/// contiguous tensor, 2 a flip, 3 a step-2 slice of a wider tensor. Rank < 2
/// shapes only get layouts 0 and 2.
inline Tensor viewOf(const std::vector<double> &values,
                     const std::vector<int64_t> &shape, DType dtype,
                     int layout) {
  DispatchDevice flex = DispatchDevice::flex();
  size_t rank = shape.size();
  if (layout == 0 || rank == 0 || (layout != 2 && rank < 2))
    return tensorOf(values, Shape(shape), dtype, flex);
  std::vector<int64_t> st = stridesOf(shape);
  int64_t n = numelOf(shape);
  if (layout == 1) {
    // Store the last two dims swapped, then swap them back with a view.
    std::vector<int64_t> tshape = shape;
    std::swap(tshape[rank - 1], tshape[rank - 2]);
    std::vector<int64_t> tst = stridesOf(tshape);
    std::vector<double> stored(n);
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) {
        int64_t i = (k / st[d]) % shape[d];
        size_t td = d == rank - 1 ? rank - 2 : d == rank - 2 ? rank - 1 : d;
        off += i * tst[td];
      }
      stored[off] = values[k];
    }
    return tensorOf(stored, Shape(tshape), dtype, flex)
        .transpose(rank - 2, rank - 1);
  }
  if (layout == 2) {
    // Store dim 0 reversed, then flip it back.
    std::vector<double> stored(n);
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = (k / st[0]) % shape[0];
      stored[k + (shape[0] - 1 - 2 * i) * st[0]] = values[k];
    }
    return flip(tensorOf(stored, Shape(shape), dtype, flex), {0});
  }
  // Store every element twice along the last dim, then slice with step 2.
  std::vector<int64_t> wide = shape;
  wide[rank - 1] *= 2;
  std::vector<double> stored;
  for (double v : values) {
    stored.push_back(v);
    stored.push_back(v == 0 ? 1 : 0); // a decoy the view must skip
  }
  std::vector<int64_t> starts(rank, 0), steps(rank, 1);
  steps[rank - 1] = 2;
  return tensorOf(stored, Shape(wide), dtype, flex).slice(starts, wide, steps);
}

inline const char *layoutName(int layout) {
  switch (layout) {
  case 0:
    return "contiguous";
  case 1:
    return "transposed";
  case 2:
    return "flipped";
  default:
    return "step-2 slice";
  }
}

/// "f32" for SCOPED_TRACE and test names.
inline std::string nameOf(DType d) { return d.str(); }

} // namespace kiln::test

#endif // KILN_UNITTESTS_API_REFERENCE_H
