//===- Fusion.h - What --kiln-fuse produces ---------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_FUSION_H
#define KILN_TRANSFORMS_FUSION_H

#include "mlir/IR/Operation.h"

namespace mlir::kiln {

/// On an outlined kernel function: its kind ("elementwise", "reduction",
/// "matmul", "generic").
constexpr const char kKernelKindAttr[] = "kiln.kernel";
/// On a reduction kernel: the reduced trailing axes.
constexpr const char kKernelAxesAttr[] = "kiln.reduced_axes";

/// Layout ops that stay outside kernels and become runtime views.
bool isViewOp(Operation *op);
/// Reductions that fuse with their producers and consumers.
bool isFusibleReduction(Operation *op);
/// Elementwise ops that fuse into chains.
bool isFusibleElementwise(Operation *op);
/// A permute that swaps the last two dims and keeps the others in place:
/// a (batched) matrix transpose, which a matmul can read while packing.
bool isMatrixTranspose(Operation *op);

} // namespace mlir::kiln

#endif // KILN_TRANSFORMS_FUSION_H
