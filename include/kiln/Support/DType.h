//===- DType.h - Element types and quantization schemes ---------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The element types of Kiln tensors. Like everything under Support/, this
// depends on the C++ standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_DTYPE_H
#define KILN_SUPPORT_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

enum class DTypeKind : uint8_t {
  F64,
  F32,
  F16,
  BF16,
  I64,
  I32,
  I16,
  I8,
  U8,
  Bool,
  QFloat
};

/// How a quantized tensor stores its values: symmetric q8 or q4, one scale
/// per tensor or per block of `blockSize` elements along the last dim.
struct QuantScheme {
  enum class Values : uint8_t { Q8, Q4 };
  Values values = Values::Q8;
  int64_t blockSize = 0; ///< 0: one scale for the whole tensor.
  DTypeKind scale = DTypeKind::F32;

  static QuantScheme q8PerTensor(DTypeKind scale = DTypeKind::F32) {
    return {Values::Q8, 0, scale};
  }
  static QuantScheme q8Block(int64_t block, DTypeKind scale = DTypeKind::F32) {
    return {Values::Q8, block, scale};
  }
  static QuantScheme q4Block(int64_t block, DTypeKind scale = DTypeKind::F32) {
    return {Values::Q4, block, scale};
  }
  bool isPerTensor() const { return blockSize == 0; }
  int maxLevel() const { return values == Values::Q8 ? 127 : 7; }
  /// "q8/block32/f32".
  std::string str() const;
  bool operator==(const QuantScheme &o) const {
    return values == o.values && blockSize == o.blockSize && scale == o.scale;
  }
  bool operator!=(const QuantScheme &o) const { return !(*this == o); }
};

/// An element type. Compare with `==`; print with `str()` ("f32").
class DType {
public:
  constexpr DType() : kind_(DTypeKind::F32) {}
  constexpr explicit DType(DTypeKind k) : kind_(k) {}

  static const DType F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool;
  /// Quantized floats with the given scheme.
  static DType QFloat(QuantScheme scheme) {
    DType d(DTypeKind::QFloat);
    d.scheme_ = scheme;
    return d;
  }

  constexpr DTypeKind kind() const { return kind_; }
  bool isFloat() const {
    return kind_ == DTypeKind::F64 || kind_ == DTypeKind::F32 ||
           kind_ == DTypeKind::F16 || kind_ == DTypeKind::BF16;
  }
  bool isInteger() const {
    return kind_ == DTypeKind::I64 || kind_ == DTypeKind::I32 ||
           kind_ == DTypeKind::I16 || kind_ == DTypeKind::I8 ||
           kind_ == DTypeKind::U8;
  }
  bool isBool() const { return kind_ == DTypeKind::Bool; }
  bool isQuantized() const { return kind_ == DTypeKind::QFloat; }
  /// The scheme of a quantized dtype; throws for any other.
  const QuantScheme &scheme() const;
  /// Bytes per element (quantized: the stored value, 1).
  size_t byteSize() const;
  /// "f32", "i64", "bool", "qfloat<q8/block32/f32>".
  std::string str() const;

  bool operator==(const DType &o) const {
    return kind_ == o.kind_ &&
           (kind_ != DTypeKind::QFloat || scheme_ == o.scheme_);
  }
  bool operator!=(const DType &o) const { return !(*this == o); }

private:
  DTypeKind kind_;
  QuantScheme scheme_{};
};

inline constexpr DType DType::F64{DTypeKind::F64};
inline constexpr DType DType::F32{DTypeKind::F32};
inline constexpr DType DType::F16{DTypeKind::F16};
inline constexpr DType DType::BF16{DTypeKind::BF16};
inline constexpr DType DType::I64{DTypeKind::I64};
inline constexpr DType DType::I32{DTypeKind::I32};
inline constexpr DType DType::I16{DTypeKind::I16};
inline constexpr DType DType::I8{DTypeKind::I8};
inline constexpr DType DType::U8{DTypeKind::U8};
inline constexpr DType DType::Bool{DTypeKind::Bool};

/// IEEE half and bfloat16 as stored bits, for reading f16/bf16 tensors.
struct Half {
  uint16_t bits = 0;
  float toFloat() const;
  static Half fromFloat(float f);
};
struct BFloat16 {
  uint16_t bits = 0;
  float toFloat() const;
  static BFloat16 fromFloat(float f);
};

/// The dtype that a C++ element type reads and writes.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<double> {
  static constexpr DTypeKind kind = DTypeKind::F64;
};
template <> struct DTypeOf<float> {
  static constexpr DTypeKind kind = DTypeKind::F32;
};
template <> struct DTypeOf<Half> {
  static constexpr DTypeKind kind = DTypeKind::F16;
};
template <> struct DTypeOf<BFloat16> {
  static constexpr DTypeKind kind = DTypeKind::BF16;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DTypeKind kind = DTypeKind::I64;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DTypeKind kind = DTypeKind::I32;
};
template <> struct DTypeOf<int16_t> {
  static constexpr DTypeKind kind = DTypeKind::I16;
};
template <> struct DTypeOf<int8_t> {
  static constexpr DTypeKind kind = DTypeKind::I8;
};
template <> struct DTypeOf<uint8_t> {
  static constexpr DTypeKind kind = DTypeKind::U8;
};
template <> struct DTypeOf<bool> {
  static constexpr DTypeKind kind = DTypeKind::Bool;
};

} // namespace kiln

#endif // KILN_SUPPORT_DTYPE_H
