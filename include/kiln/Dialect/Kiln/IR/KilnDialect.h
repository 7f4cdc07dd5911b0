//===- KilnDialect.h - The kiln dialect -------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/Kiln/IR/KilnOpsDialect.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
