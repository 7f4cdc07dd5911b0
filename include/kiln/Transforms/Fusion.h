//===- Fusion.h - What --kiln-fuse produces ---------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_FUSION_H
#define KILN_TRANSFORMS_FUSION_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir::kiln {

// The attributes a kernel carries (kiln.kernel, kiln.reduced_axes) are the
// dialect's (KilnDialect.h); so are the facts fusion asks of an op
// (KilnTraits.h).

/// The options of --kiln-fuse that change which kernels it forms.
struct FusionOptions {
  bool transposedOperands = false;
  bool matmulPrologues = false;
};

/// One kernel --kiln-fuse would outline: its kind (none: one op that runs
/// alone, as an interpreter runs every op), its ops in program order, and
/// its matmul
/// (matmul kernels).
struct KernelPlan {
  std::optional<KernelKind> kind;
  llvm::SmallVector<Operation *> ops;
  Operation *matmul = nullptr;
};

/// A value that checkpointing chose to recompute (kiln.recomputed) is
/// computed where it is read: each elementwise recomputed op read by
/// several (at most 8) ops gets a copy per reader, so that every backward
/// kernel that reads it computes it itself instead of one kernel storing
/// it for the others. --kiln-fuse does this first, and merges the copies
/// that land in one kernel after outlining.
void splitRecomputed(func::FuncOp fn);

/// Each kiln.unfold read by several ops (a convolution's forward product
/// and its weight's gradient read the same columns) gets a copy per
/// reader: a matmul reads the columns from the input while packing, so a
/// copy it takes is never stored, where one shared unfold would be.
/// --kiln-fuse does this first.
void splitUnfolds(func::FuncOp fn);

/// The kernels --kiln-fuse forms in `fn` (after splitRecomputed), in
/// program order, without outlining them.
std::vector<KernelPlan> planKernels(func::FuncOp fn,
                                    const FusionOptions &options);

} // namespace mlir::kiln

#endif // KILN_TRANSFORMS_FUSION_H
