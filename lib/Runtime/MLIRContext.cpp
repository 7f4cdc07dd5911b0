//===- MLIRContext.cpp - Contexts and types for runtime compiles ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/MLIRContext.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

using namespace kiln;
using namespace kiln::detail;

std::unique_ptr<mlir::MLIRContext> kiln::detail::createContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::kiln::KilnDialect, mlir::func::FuncDialect,
                  mlir::tensor::TensorDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect,
                  mlir::linalg::LinalgDialect,
                  mlir::bufferization::BufferizationDialect>();
  // The CPU pipeline bufferizes generic kernels and translates to LLVM IR.
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  return ctx;
}

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

mlir::Type kiln::detail::elementTypeOf(mlir::MLIRContext &ctx, DType dtype) {
  if (dtype.isQuantized())
    return mlir::IntegerType::get(
        &ctx, dtype.scheme().values == QuantScheme::Values::Q8 ? 8 : 4);
  return floatOrIntType(ctx, dtype.kind());
}

mlir::RankedTensorType
kiln::detail::tensorTypeOf(mlir::MLIRContext &ctx, DType dtype,
                           const std::vector<int64_t> &shape) {
  mlir::Attribute encoding;
  if (dtype.isQuantized()) {
    const QuantScheme &q = dtype.scheme();
    encoding = mlir::kiln::QuantSchemeAttr::get(
        &ctx,
        q.values == QuantScheme::Values::Q8 ? mlir::kiln::QuantValues::Q8
                                            : mlir::kiln::QuantValues::Q4,
        q.blockSize, floatOrIntType(ctx, q.scale));
  }
  return mlir::RankedTensorType::get(shape, elementTypeOf(ctx, dtype),
                                     encoding);
}

DType kiln::detail::dtypeOf(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor)
    throw Error("expected a ranked tensor type");
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
  throw Error("element type " + s + " is not a kiln dtype");
}
