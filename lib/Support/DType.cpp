//===- DType.cpp - Element types and quantization schemes -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/DType.h"
#include "kiln/Support/Error.h"

#include <cmath>
#include <cstring>

using namespace kiln;

static const char *kindName(DTypeKind k) {
  switch (k) {
  case DTypeKind::F64:
    return "f64";
  case DTypeKind::F32:
    return "f32";
  case DTypeKind::F16:
    return "f16";
  case DTypeKind::BF16:
    return "bf16";
  case DTypeKind::I64:
    return "i64";
  case DTypeKind::I32:
    return "i32";
  case DTypeKind::I16:
    return "i16";
  case DTypeKind::I8:
    return "i8";
  case DTypeKind::U8:
    return "u8";
  case DTypeKind::Bool:
    return "bool";
  case DTypeKind::QFloat:
    return "qfloat";
  }
  return "?";
}

std::string QuantScheme::str() const {
  std::string s = values == Values::Q8 ? "q8" : "q4";
  s += isPerTensor() ? "/tensor" : "/block" + std::to_string(blockSize);
  return s + "/" + kindName(scale);
}

const QuantScheme &DType::scheme() const {
  if (kind_ != DTypeKind::QFloat)
    throw Error("dtype " + str() + " is not quantized and has no scheme");
  return scheme_;
}

size_t DType::byteSize() const {
  switch (kind_) {
  case DTypeKind::F64:
  case DTypeKind::I64:
    return 8;
  case DTypeKind::F32:
  case DTypeKind::I32:
    return 4;
  case DTypeKind::F16:
  case DTypeKind::BF16:
  case DTypeKind::I16:
    return 2;
  case DTypeKind::I8:
  case DTypeKind::U8:
  case DTypeKind::Bool:
  case DTypeKind::QFloat:
    return 1;
  }
  return 1;
}

std::string DType::str() const {
  if (kind_ == DTypeKind::QFloat)
    return "qfloat<" + scheme_.str() + ">";
  return kindName(kind_);
}

float Half::toFloat() const {
  uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  uint32_t out;
  if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {
      // Subnormal: renormalize.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      out = sign | ((127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 0x1f) {
    out = sign | 0x7f800000u | (mant << 13);
  } else {
    out = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

Half Half::fromFloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  Half h;
  if (((x >> 23) & 0xff) == 0xff) {
    h.bits = static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
    return h;
  }
  if (exp >= 0x1f) {
    h.bits = static_cast<uint16_t>(sign | 0x7c00u);
    return h;
  }
  if (exp <= 0) {
    if (exp < -10) {
      h.bits = static_cast<uint16_t>(sign);
      return h;
    }
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    h.bits = static_cast<uint16_t>(sign | half);
    return h;
  }
  uint32_t half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
    ++half; // May carry into the exponent, which is the right rounding.
  h.bits = static_cast<uint16_t>(sign | half);
  return h;
}

float BFloat16::toFloat() const {
  uint32_t x = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

BFloat16 BFloat16::fromFloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  BFloat16 b;
  if (std::isnan(f)) {
    b.bits = static_cast<uint16_t>((x >> 16) | 0x40);
    return b;
  }
  // Round to nearest even.
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fffu + lsb;
  b.bits = static_cast<uint16_t>(x >> 16);
  return b;
}
