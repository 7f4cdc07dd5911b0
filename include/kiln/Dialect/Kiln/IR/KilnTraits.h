//===- KilnTraits.h - Per-op facts of the kiln dialect ----------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The facts are attached to each op in ODS (KilnInterfaces.td). Passes ask
// them through the functions below and never keep their own op lists.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNTRAITS_H
#define KILN_DIALECT_KILN_IR_KILNTRAITS_H

#include "kiln/Support/Reduction.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::kiln::OpTrait {

template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};

template <typename ConcreteType>
class ComputeBound
    : public mlir::OpTrait::TraitBase<ConcreteType, ComputeBound> {};

template <typename ConcreteType>
class Composite : public mlir::OpTrait::TraitBase<ConcreteType, Composite> {};

template <typename ConcreteType>
class View : public mlir::OpTrait::TraitBase<ConcreteType, View> {};

template <typename ConcreteType>
class ChecksIndices
    : public mlir::OpTrait::TraitBase<ConcreteType, ChecksIndices> {};

template <typename ConcreteType>
class Collective : public mlir::OpTrait::TraitBase<ConcreteType, Collective> {
};

/// Checks that no reduced axis (the "axes" or "axis" attribute) of operand 0
/// is statically empty.
LogicalResult verifyNeedsElements(Operation *op);

template <typename ConcreteType>
class NeedsElements
    : public mlir::OpTrait::TraitBase<ConcreteType, NeedsElements> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyNeedsElements(op);
  }
};

/// Checks that every operand and result tensor has an element count and a
/// byte size that fit in 64 bits (kiln::rules::checkSize).
LogicalResult verifySizedTensors(Operation *op);

template <typename ConcreteType>
class SizedTensors
    : public mlir::OpTrait::TraitBase<ConcreteType, SizedTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifySizedTensors(op);
  }
};

template <typename ConcreteType>
class OwnKernel : public mlir::OpTrait::TraitBase<ConcreteType, OwnKernel> {};

template <typename ConcreteType>
class HostStep : public mlir::OpTrait::TraitBase<ConcreteType, HostStep> {};

} // namespace mlir::kiln::OpTrait

namespace mlir::kiln {

/// Output element i depends only on input elements at i (after broadcast).
inline bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>();
}
/// More arithmetic than memory traffic; Balanced checkpointing saves these.
inline bool isComputeBound(Operation *op) {
  return op->hasTrait<OpTrait::ComputeBound>();
}
/// Rewritten into primitives by --kiln-decompose.
inline bool isComposite(Operation *op) {
  return op->hasTrait<OpTrait::Composite>();
}
/// A layout op that stays outside kernels and becomes a runtime view.
inline bool isViewOp(Operation *op) { return op->hasTrait<OpTrait::View>(); }
/// A collective over the ranks of a job: a runtime step outside kernels,
/// never recomputed, merged or removed.
inline bool isCollectiveOp(Operation *op) {
  return op->hasTrait<OpTrait::Collective>();
}
/// Runs as a runtime step on the host backends, outside kernels.
inline bool isHostStepOp(Operation *op) {
  return op->hasTrait<OpTrait::HostStep>();
}
/// An elementwise op that fuses into chains.
inline bool isFusibleElementwise(Operation *op) {
  return isElementwise(op) && !op->hasTrait<OpTrait::OwnKernel>();
}
/// Has a vector-Jacobian product (defined in KilnOps.h).
bool isDifferentiable(Operation *op);
/// A reduction with a combine, which fuses with its producers and consumers
/// (ReductionOpInterface; defined in KilnOps.h).
bool isFusibleReduction(Operation *op);
/// A permute that swaps the last two dims and keeps the others in place:
/// a (batched) matrix transpose, which a matmul can read while packing
/// (defined in KilnOps.h).
bool isMatrixTranspose(Operation *op);

//===----------------------------------------------------------------------===//
// Reductions as IR (kiln::ReductionKind's semantics; ReductionOpInterface's
// methods call these)
//===----------------------------------------------------------------------===//

/// Does the reduction read unsigned integers (ui8) or bools?
bool hasUnsignedInput(Operation *reduction);
/// reductionAccumulator() of the storage element type `storage`.
Type reductionAccumulatorType(::kiln::ReductionKind kind, Type storage);
/// reductionBlockAccumulator() of `storage`, as an MLIR type.
Type reductionBlockAccumulatorType(::kiln::ReductionKind kind, Type storage);
/// The identity in `acc` (an integer or float type).
Value buildReductionIdentity(OpBuilder &b, Location loc,
                             ::kiln::ReductionKind kind, Type acc,
                             bool isUnsigned);
/// `acc` combined with `v`, scalars or vectors of one element type.
/// Float sums and products may be reassociated; max and min propagate NaN.
Value buildReductionCombine(OpBuilder &b, Location loc,
                            ::kiln::ReductionKind kind, Value acc, Value v,
                            bool isUnsigned);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNTRAITS_H
