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

// The kinds of each loop, one per row of FlexOps.def.
enum class Unary : int {
#define KILN_FLEX_UNARY(name, ...) name,
#include "FlexOps.def"
};
enum class Binary : int {
#define KILN_FLEX_BINARY(name, ...) name,
#include "FlexOps.def"
};
enum class Compare : int {
#define KILN_FLEX_COMPARE(name, ...) name,
#include "FlexOps.def"
};
enum class Logic : int {
#define KILN_FLEX_LOGIC(name, ...) name,
#include "FlexOps.def"
};

/// How many kinds each loop has.
constexpr int kNumUnary = 0
#define KILN_FLEX_UNARY(...) +1
#include "FlexOps.def"
    ;
constexpr int kNumBinary = 0
#define KILN_FLEX_BINARY(...) +1
#include "FlexOps.def"
    ;
constexpr int kNumCompare = 0
#define KILN_FLEX_COMPARE(...) +1
#include "FlexOps.def"
    ;

/// How a loop writes its results. `Stream` uses non-temporal stores, which
/// skip the read-for-ownership of every output line; it pays off only for
/// outputs far larger than the last-level cache (see streamStores()).
enum class Store : int { Cached, Stream };

/// True when an output of `bytes` should be written with Store::Stream: it
/// is at least half the last-level cache or 16 MiB, so a later reader
/// would find little of it cached anyway.
bool streamStores(int64_t bytes);

// In every loop below the operands' strides (sa, sb, sc) are 0 (one value
// for all lanes) or 1 (contiguous), and each output is contiguous. An input
// may equal the output when both have the same element size.

/// out[i] = f(in[i]) over n contiguous floats.
void unaryF32(Unary kind, const float *in, float *out, int64_t n,
              Store store = Store::Cached);

/// out[i] = a[i*sa] op b[i*sb]. Pow, Rem and Atan2 match std::pow,
/// the floored remainder and std::atan2 on every input, special values
/// included (lanes the vector forms do not cover take the scalar ones).
void binaryF32(Binary kind, const float *a, int64_t sa, const float *b,
               int64_t sb, float *out, int64_t n, Store store = Store::Cached);

/// out[i] = a[i*sa] cmp b[i*sb] as bools (IEEE: NaN compares unequal).
void compareF32(Compare kind, const float *a, int64_t sa, const float *b,
                int64_t sb, bool *out, int64_t n);

/// out[i] = a[i*sa] op b[i*sb] over bools.
void logicBool(Logic kind, const bool *a, int64_t sa, const bool *b,
               int64_t sb, bool *out, int64_t n);
/// out[i] = !in[i].
void notBool(const bool *in, bool *out, int64_t n, Store store);

/// out[i] = in[i] is NaN.
void isNanF32(const float *in, bool *out, int64_t n);

/// out[i] = c[i*sc] ? a[i*sa] : b[i*sb].
void whereF32(const bool *c, int64_t sc, const float *a, int64_t sa,
              const float *b, int64_t sb, float *out, int64_t n,
              Store store = Store::Cached);

/// out[i] = in[i] clamped to [lo, hi]; NaN stays NaN.
void clampF32(const float *in, float lo, float hi, float *out, int64_t n,
              Store store = Store::Cached);

/// f32 to i32: toward zero, saturating, NaN to 0 (as Flex's scalar cast).
void castF32ToI32(const float *in, int32_t *out, int64_t n,
                  Store store = Store::Cached);
/// i32 to f32, rounded to nearest even.
void castI32ToF32(const int32_t *in, float *out, int64_t n,
                  Store store = Store::Cached);
/// f32 to the bits of f16, rounded to nearest even. Returns false, writing
/// nothing, where the instruction set has no exact conversion; the caller
/// then takes its scalar loop.
bool castF32ToF16(const float *in, uint16_t *out, int64_t n,
                  Store store = Store::Cached);
/// The bits of f16 to f32 (exact). Returns false as above.
bool castF16ToF32(const uint16_t *in, float *out, int64_t n,
                  Store store = Store::Cached);

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
