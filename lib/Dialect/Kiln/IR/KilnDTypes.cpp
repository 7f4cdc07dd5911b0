//===- KilnDTypes.cpp - Kiln dtypes as MLIR types -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/Error.h"

using namespace kiln;

static mlir::Type floatOrIntType(mlir::MLIRContext &ctx, DTypeKind k) {
  switch (k) {
  case DTypeKind::F64:
    return mlir::Float64Type::get(&ctx);
  case DTypeKind::F32:
    return mlir::Float32Type::get(&ctx);
  case DTypeKind::F16:
    return mlir::Float16Type::get(&ctx);
  case DTypeKind::BF16:
    return mlir::BFloat16Type::get(&ctx);
  case DTypeKind::I64:
    return mlir::IntegerType::get(&ctx, 64);
  case DTypeKind::I32:
    return mlir::IntegerType::get(&ctx, 32);
  case DTypeKind::I16:
    return mlir::IntegerType::get(&ctx, 16);
  case DTypeKind::I8:
    return mlir::IntegerType::get(&ctx, 8);
  case DTypeKind::U8:
    return mlir::IntegerType::get(&ctx, 8, mlir::IntegerType::Unsigned);
  case DTypeKind::Bool:
    return mlir::IntegerType::get(&ctx, 1);
  case DTypeKind::QFloat:
    break;
  }
  return {};
}

mlir::Type mlir::kiln::elementTypeFor(mlir::MLIRContext &ctx, DType dtype) {
  if (dtype.isQuantized())
    return mlir::IntegerType::get(
        &ctx, dtype.scheme().values == QuantScheme::Values::Q8 ? 8 : 4);
  return floatOrIntType(ctx, dtype.kind());
}

mlir::RankedTensorType
mlir::kiln::tensorTypeFor(mlir::MLIRContext &ctx, DType dtype,
                          llvm::ArrayRef<int64_t> shape) {
  mlir::Attribute encoding;
  if (dtype.isQuantized()) {
    const QuantScheme &q = dtype.scheme();
    encoding = mlir::kiln::QuantSchemeAttr::get(
        &ctx,
        q.values == QuantScheme::Values::Q8 ? mlir::kiln::QuantValues::Q8
                                            : mlir::kiln::QuantValues::Q4,
        q.blockSize, floatOrIntType(ctx, q.scale));
  }
  return mlir::RankedTensorType::get(shape, elementTypeFor(ctx, dtype),
                                     encoding);
}

DType mlir::kiln::dtypeOf(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor)
    throw ::kiln::Error("expected a ranked tensor type");
  if (auto q = mlir::kiln::getQuantScheme(tensor)) {
    QuantScheme s;
    s.values = q.getValues() == mlir::kiln::QuantValues::Q8
                   ? QuantScheme::Values::Q8
                   : QuantScheme::Values::Q4;
    s.blockSize = q.getBlockSize();
    s.scale = dtypeOf(mlir::RankedTensorType::get({}, q.getScaleType())).kind();
    return DType::QFloat(s);
  }
  mlir::Type e = tensor.getElementType();
  if (e.isF64())
    return DType::F64;
  if (e.isF32())
    return DType::F32;
  if (e.isF16())
    return DType::F16;
  if (e.isBF16())
    return DType::BF16;
  if (e.isInteger(1))
    return DType::Bool;
  if (e.isUnsignedInteger(8))
    return DType::U8;
  if (e.isSignlessInteger(64))
    return DType::I64;
  if (e.isSignlessInteger(32))
    return DType::I32;
  if (e.isSignlessInteger(16))
    return DType::I16;
  if (e.isSignlessInteger(8))
    return DType::I8;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  throw ::kiln::Error("element type " + s + " is not a kiln dtype");
}
