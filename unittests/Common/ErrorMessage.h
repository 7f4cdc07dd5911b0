//===- ErrorMessage.h - The message of a kiln::Error ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_COMMON_ERRORMESSAGE_H
#define KILN_UNITTESTS_COMMON_ERRORMESSAGE_H

#include "kiln/Kiln.h"

#include <functional>
#include <string>

namespace kiln::test {

/// The message of the kiln::Error that `f` throws; "no error" when none.
inline std::string errorMessage(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_COMMON_ERRORMESSAGE_H
