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

/// Rewrites the shape attribute of a reshape, an expand or a slice that was
/// written with concrete sizes, so that it follows the operand dim whose
/// size moved (now dynamic, or another size): `recorded` is the operand's
/// shape when the sizes were written. A reshape's target dim that carries
/// the one moved dim (the same recorded size, with the same element counts
/// before and after it) becomes -1; so does an expand's dim over a moved
/// operand dim; a slice that spans the whole of a moved dim ends at the
/// largest int64 (clamped: the whole dim). Other ops, and dims that do not
/// carry it, are left as they are.
/// Returns which entries of the attribute it rewrote (empty: none).
SmallVector<bool> relaxRecordedShape(Operation *op, ArrayRef<int64_t> recorded);

/// The rule of relaxRecordedShape on plain data: which entries of `sizes`
/// (a reshape's or expand's `shape`, a slice's `ends`, with the slice's
/// `starts` and `steps`) follow the `moved` dims of an operand recorded as
/// `recorded`. A graph's key marks these entries `?`, with the operand dims
/// equal to S as the moved ones.
SmallVector<bool> followingEntries(StringRef opName, ArrayRef<int64_t> recorded,
                                   ArrayRef<int64_t> moved,
                                   ArrayRef<int64_t> sizes,
                                   ArrayRef<int64_t> starts,
                                   ArrayRef<int64_t> steps);

/// Whether attribute `attr` of the op named `opName` holds sizes that
/// relaxRecordedShape rewrites to follow a moved dim: reshape's and
/// expand's `shape`, slice's `ends`. (A graph's key with dynamic dims
/// writes their entries equal to S as `?`.)
bool attrFollowsDynamicDims(llvm::StringRef opName, llvm::StringRef attr);

/// An op inside `root` that gives a dynamic dim a size the kernels and the
/// runtime cannot follow. Every dynamic dim must be S times a static
/// factor: between kernels a reshape may merge S with static dims (the
/// factor must divide), but inside a kernel (a function with a kernel
/// kind) no op may change it, and the dynamic operands of an op or call
/// must agree on it. Also a concat along a dynamic dim, a pad, repeat or
/// partial slice of one, a convolution or pool over one, and a call whose
/// results are dynamic with no dynamic operand. Null when there is none.
Operation *findResizedDynamicDim(Operation *root);

/// Element type of a tensor value.
inline Type elementTypeOf(Value v) {
  return llvm::cast<ShapedType>(v.getType()).getElementType();
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNBUILDERS_H
