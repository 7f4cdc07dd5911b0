//===- Types.cpp - Tensor shapes ------------------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/Types.h"

using namespace kiln;

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("shape " + str() +
                  " has more elements than a 64-bit count holds");
  return n;
}

std::string Shape::str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}
