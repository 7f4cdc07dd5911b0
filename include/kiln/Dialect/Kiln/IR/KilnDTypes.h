//===- KilnDTypes.h - Kiln dtypes as MLIR types -----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDTYPES_H
#define KILN_DIALECT_KILN_IR_KILNDTYPES_H

#include "kiln/Support/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

namespace mlir::kiln {

/// The MLIR element type of a dtype (quantized: i8 or i4).
Type elementTypeFor(MLIRContext &ctx, ::kiln::DType dtype);
/// The tensor type of a value (quantized: with its #kiln.quant encoding).
RankedTensorType tensorTypeFor(MLIRContext &ctx, ::kiln::DType dtype,
                               ArrayRef<int64_t> shape);
/// The dtype of a kiln tensor type; throws kiln::Error for any other type
/// (for the runtime, which reads types the verifier already accepted).
::kiln::DType dtypeOf(Type tensorType);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNDTYPES_H
