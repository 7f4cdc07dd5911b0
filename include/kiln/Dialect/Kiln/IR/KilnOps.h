//===- KilnOps.h - Ops of the kiln dialect ----------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_H
#define KILN_DIALECT_KILN_IR_KILNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Kiln/IR/KilnAttrs.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnTraits.h"

#include "kiln/Dialect/Kiln/IR/KilnOpsInterfaces.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.h.inc"

namespace mlir::kiln {

inline bool isDifferentiable(Operation *op) {
  return llvm::isa<DifferentiableOpInterface>(op);
}

/// Patterns that rewrite every composite op (Kiln_Composite) into
/// primitives: --kiln-decompose and --convert-kiln-to-linalg apply them.
void populateDecomposePatterns(RewritePatternSet &patterns,
                               ArrayRef<std::string> keep = {});

inline bool isFusibleReduction(Operation *op) {
  return llvm::isa<ReductionOpInterface>(op);
}

inline bool isMatrixTranspose(Operation *op) {
  auto p = llvm::dyn_cast_or_null<PermuteOp>(op);
  if (!p)
    return false;
  ArrayRef<int64_t> dims = p.getDims();
  int64_t rank = dims.size();
  if (rank < 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (dims[d] != d)
      return false;
  return dims[rank - 2] == rank - 1 && dims[rank - 1] == rank - 2;
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNOPS_H
