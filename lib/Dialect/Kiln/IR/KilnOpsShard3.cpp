//===- KilnOpsShard3.cpp - Generated op definitions, shard 3 ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "KilnInference.h"

#define GET_OP_DEFS_3
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
