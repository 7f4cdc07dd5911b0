//===- Passes.h - Kiln graph transformations --------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_PASSES_H
#define KILN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Transforms/Passes.h.inc"

/// Patterns that rewrite every composite op into primitives.
void populateDecomposePatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "kiln/Transforms/Passes.h.inc"

} // namespace kiln
} // namespace mlir

#endif // KILN_TRANSFORMS_PASSES_H
