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
/// Has a vector-Jacobian product (defined in KilnOps.h).
bool isDifferentiable(Operation *op);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNTRAITS_H
