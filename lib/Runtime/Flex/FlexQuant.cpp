//===- FlexQuant.cpp - Quant kernels of Flex ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "FlexKernels.h"

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

void flex::registerQuantKernels(KernelRegistry &) {}
