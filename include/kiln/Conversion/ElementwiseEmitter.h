//===- ElementwiseEmitter.h - Kiln elementwise ops as arith/math -*- C++ -*-=//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one place that says what an elementwise kiln op computes on single
// values. convert-kiln-to-linalg uses it inside linalg.generic bodies and
// Kiln's kernel generator uses it on scalars and vectors alike.
//
// Values are in storage types: floats as themselves, every integer signless
// (ui8 becomes i8 with unsigned semantics), bool as i1. Integer division by
// zero gives 0 and float-to-integer casts saturate (NaN gives 0), so no input
// can trap.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_ELEMENTWISEEMITTER_H
#define KILN_CONVERSION_ELEMENTWISEEMITTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::kiln {

/// The storage type of a kiln element type (ui8 -> i8); other types map to
/// themselves.
Type storageTypeOf(Type kilnElementType);

/// A constant of `type` (a scalar or a vector, which is splat).
Value constantOf(OpBuilder &b, Location loc, Type type, double value);

/// Emits `op` (an elementwise kiln op: unary, binary, compare, logic, where,
/// cast, clamp, is_nan, gelu, detach, expand) on `operands`, which are
/// scalars or same-shaped vectors in storage types. Fails for ops that are
/// not elementwise.
FailureOr<Value> emitElementwise(OpBuilder &b, Location loc, Operation *op,
                                 ValueRange operands);

/// Converts `v` from kiln element type `from` to `to` with cast semantics.
Value emitCast(OpBuilder &b, Location loc, Value v, Type from, Type to);

} // namespace mlir::kiln

#endif // KILN_CONVERSION_ELEMENTWISEEMITTER_H
