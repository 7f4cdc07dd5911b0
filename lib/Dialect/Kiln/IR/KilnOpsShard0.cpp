//===- KilnOpsShard0.cpp - Generated op definitions, shard 0 ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "KilnInference.h"

#define GET_OP_DEFS_0
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
