//===- Error.h - The error every user mistake throws ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_ERROR_H
#define KILN_SUPPORT_ERROR_H

#include <stdexcept>

namespace kiln {

/// Every user error: a bad shape, axis or dtype, a device mix-up, a missing
/// GPU. The message names the op, the shapes and the dtypes.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace kiln

#endif // KILN_SUPPORT_ERROR_H
