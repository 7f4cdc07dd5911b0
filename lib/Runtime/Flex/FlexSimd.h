//===- FlexSimd.h - Highway SIMD loops for Flex -----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The f32 loops behind Flex's elementwise ops and reductions. Highway picks
// the widest instruction set at run time (AVX-512 where there is one).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_FLEX_FLEXSIMD_H
#define KILN_LIB_RUNTIME_FLEX_FLEXSIMD_H

#include <cstdint>

namespace kiln::detail::flex::simd {

enum class Unary : int {
  Neg,
  Abs,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Recip,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Erf,
  Relu,
  Gelu,
  GeluTanh,
  Floor,
  Ceil,
  Round,
  Sign,
  Copy
};

enum class Binary : int { Add, Sub, Mul, Div, Max, Min };

/// out[i] = f(in[i]) over n contiguous floats. `in` may equal `out`.
void unaryF32(Unary kind, const float *in, float *out, int64_t n);

/// out[i] = a[i*sa] op b[i*sb], with sa, sb in {0, 1}.
void binaryF32(Binary kind, const float *a, int64_t sa, const float *b,
               int64_t sb, float *out, int64_t n);

/// Sum of n contiguous floats (f32 lanes, f64 across blocks).
double sumF32(const float *in, int64_t n);
/// Max / min of n > 0 contiguous floats; NaN if any element is NaN.
float maxF32(const float *in, int64_t n);
float minF32(const float *in, int64_t n);

/// The f32 scalar forms that match the vector ones (for tails and strided
/// data), so a result never depends on where an element sits.
float erfF32(float x);

} // namespace kiln::detail::flex::simd

#endif // KILN_LIB_RUNTIME_FLEX_FLEXSIMD_H
