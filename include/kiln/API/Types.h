//===- Types.h - DType, Shape, QuantScheme, errors --------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Value types of the public API: the Support vocabulary (dtypes, errors,
// checkpointing strategies, device kinds) and tensor shapes. This header,
// like every header that kiln/Kiln.h includes, depends on the C++ standard
// library only.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_TYPES_H
#define KILN_API_TYPES_H

#include "kiln/Support/CheckpointingStrategy.h"
#include "kiln/Support/DType.h"
#include "kiln/Support/DeviceKind.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/MemoryStats.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// A tensor shape: a list of non-negative dims, printed as "[2, 3]".
class Shape {
public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  size_t rank() const { return dims_.size(); }
  size_t size() const { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  /// Throws kiln::Error when the count does not fit in 64 bits.
  int64_t numel() const;
  const std::vector<int64_t> &dims() const { return dims_; }
  std::vector<int64_t>::const_iterator begin() const { return dims_.begin(); }
  std::vector<int64_t>::const_iterator end() const { return dims_.end(); }
  std::string str() const;

  bool operator==(const Shape &o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape &o) const { return dims_ != o.dims_; }

private:
  std::vector<int64_t> dims_;
};

} // namespace kiln

#endif // KILN_API_TYPES_H
