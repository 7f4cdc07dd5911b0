//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Reads and writes version 1.0-3.0 .npy files in C order with the dtypes
// Kiln has a NumPy name for: <f8 <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_NPY_H
#define KILN_RUNTIME_NPY_H

#include "kiln/Support/DType.h"

#include <string>
#include <vector>

namespace kiln::detail {

struct NpyArray {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data; ///< row-major, little-endian
};

/// Throws kiln::Error naming the file and what is wrong with it.
NpyArray readNpy(const std::string &path);
void writeNpy(const std::string &path, const NpyArray &array);
/// The values as nested lists, eliding the middle beyond `limit` elements.
std::string formatNpy(const NpyArray &array, int64_t limit);

} // namespace kiln::detail

#endif // KILN_RUNTIME_NPY_H
