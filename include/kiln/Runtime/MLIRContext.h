//===- MLIRContext.h - Contexts and types for runtime compiles --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_MLIRCONTEXT_H
#define KILN_RUNTIME_MLIRCONTEXT_H

#include "kiln/API/Types.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <vector>

namespace kiln::detail {

/// A single-threaded context with every dialect Kiln's pipelines use.
std::unique_ptr<mlir::MLIRContext> createContext();

/// The MLIR element type of a dtype (quantized: i8 or i4).
mlir::Type elementTypeOf(mlir::MLIRContext &ctx, DType dtype);
/// The tensor type of a value (quantized: with its #kiln.quant encoding).
mlir::RankedTensorType tensorTypeOf(mlir::MLIRContext &ctx, DType dtype,
                                    const std::vector<int64_t> &shape);
/// The dtype of a kiln tensor type; throws kiln::Error for others.
DType dtypeOf(mlir::Type tensorType);

} // namespace kiln::detail

#endif // KILN_RUNTIME_MLIRCONTEXT_H
