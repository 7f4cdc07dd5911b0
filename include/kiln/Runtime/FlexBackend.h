//===- FlexBackend.h - The eager reference backend --------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_FLEXBACKEND_H
#define KILN_RUNTIME_FLEXBACKEND_H

#include "kiln/Runtime/Backend.h"

namespace kiln::detail {

/// Flex interprets kiln IR op by op with Highway kernels; it compiles
/// nothing and is the reference for the other backends.
void registerFlexBackend();

/// Whether Flex has a kernel for the op named `opName` ("kiln.add").
bool flexHasKernel(const std::string &opName);

} // namespace kiln::detail

#endif // KILN_RUNTIME_FLEXBACKEND_H
