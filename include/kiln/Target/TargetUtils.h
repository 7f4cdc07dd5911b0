//===- TargetUtils.h - What every target reads off a graph ------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_TARGETUTILS_H
#define KILN_TARGET_TARGETUTILS_H

#include "kiln/Runtime/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <chrono>
#include <optional>
#include <string>
#include <utility>

namespace kiln::detail {

/// The description of `op` for a host step: its name, its operands' and
/// results' types, and its attributes (an enum by its case's name, a
/// kiln.constant's elements as the bytes of its dtype), with the facts the
/// runtime reads added (kReductionKindAttr).
OpDesc describeOp(mlir::Operation *op);

/// A host step for `op`: its description is added to `a.ops`; returns the
/// step's (kind, index).
std::pair<int, int> hostStep(Artifact &a, mlir::Operation &op);

/// Builds `a.plan` from @main, in program order: kiln.constant ops become
/// `a.constants`, `stepOf(op)` gives the (kind, index) of every other op's
/// step, or nothing for an op to leave out (whose results nothing reads).
void planMain(
    mlir::func::FuncOp main, Artifact &a,
    llvm::function_ref<std::optional<std::pair<int, int>>(mlir::Operation &op)>
        stepOf);

/// "kind(op op ...)": what kernel `fn` fuses (a long one by its ends), for
/// KILN_LOG=compile and the profile.
std::string kernelSummary(mlir::func::FuncOp fn);

/// Milliseconds since `t`.
inline double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

} // namespace kiln::detail

#endif // KILN_TARGET_TARGETUTILS_H
