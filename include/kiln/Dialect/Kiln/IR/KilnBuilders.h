//===- KilnBuilders.h - Small IR-building helpers ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Builders that gradient rules and rewrites share: scalar constants that
// broadcast, zero tensors shaped like a value, and the sum that undoes a
// broadcast.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNBUILDERS_H
#define KILN_DIALECT_KILN_IR_KILNBUILDERS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace mlir::kiln {

/// A rank-0 constant of `elementType`; it broadcasts against anything.
Value scalarConstant(OpBuilder &b, Location loc, Type elementType,
                     double value);

/// A tensor of `like`'s type (dynamic dims included) filled with `value`.
Value fullLike(OpBuilder &b, Location loc, Value like, double value);

/// The index values of `v`'s dynamic dims, in order.
SmallVector<Value> dynamicDimsOf(OpBuilder &b, Location loc, Value v);

/// Sums `grad` over the dims that numpy broadcasting added or stretched to
/// reach it from `target`, and reshapes the result to `target`.
/// kiln.sum of `v` over `axes`, or `v` itself when there are none (a sum
/// over no axes is not an op: its type could not be inferred).
Value sumOver(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes,
              bool keepdim);
Value sumToShape(OpBuilder &b, Location loc, Value grad,
                 RankedTensorType target);

/// Reshapes `v` to `target`'s shape (at most one dynamic dim).
Value reshapeTo(OpBuilder &b, Location loc, Value v, RankedTensorType target);

/// Expands a reduced value (computed over `axes`, with or without keepdim)
/// back to the shape of `like`.
Value expandReduced(OpBuilder &b, Location loc, Value reduced,
                    ArrayRef<int64_t> axes, bool keepdim, Value like);

/// Element type of a tensor value.
inline Type elementTypeOf(Value v) {
  return llvm::cast<ShapedType>(v.getType()).getElementType();
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNBUILDERS_H
