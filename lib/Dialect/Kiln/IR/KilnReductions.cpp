//===- KilnReductions.cpp - Reductions as IR ------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ReductionOpInterface's methods: kiln::ReductionKind's identity, combine
// and accumulator (kiln/Support/Reduction.h) built as arith IR, on scalars
// or vectors.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::kiln;
using ::kiln::DTypeKind;
using ::kiln::ReductionKind;

namespace {

/// The identity of `kind` for the C++ type T, as an attribute of `e`.
template <typename T> TypedAttr identityOf(ReductionKind kind, Type e) {
  T v = ::kiln::reductionIdentity<T>(kind);
  if (auto f = llvm::dyn_cast<FloatType>(e))
    return FloatAttr::get(f, static_cast<double>(v));
  unsigned w = e.getIntOrFloatBitWidth();
  return IntegerAttr::get(
      e, APInt(w, static_cast<uint64_t>(v), std::is_signed_v<T>));
}

TypedAttr identityAttr(ReductionKind kind, Type e, bool isUnsigned) {
  if (llvm::isa<FloatType>(e))
    return identityOf<double>(kind, e);
  switch (e.getIntOrFloatBitWidth()) {
  case 1:
    return identityOf<bool>(kind, e);
  case 8:
    return isUnsigned ? identityOf<uint8_t>(kind, e)
                      : identityOf<int8_t>(kind, e);
  case 16:
    return isUnsigned ? identityOf<uint16_t>(kind, e)
                      : identityOf<int16_t>(kind, e);
  case 32:
    return isUnsigned ? identityOf<uint32_t>(kind, e)
                      : identityOf<int32_t>(kind, e);
  default:
    return isUnsigned ? identityOf<uint64_t>(kind, e)
                      : identityOf<int64_t>(kind, e);
  }
}

std::optional<DTypeKind> floatKindOf(Type t) {
  if (t.isF64())
    return DTypeKind::F64;
  if (t.isF32())
    return DTypeKind::F32;
  if (t.isF16())
    return DTypeKind::F16;
  if (t.isBF16())
    return DTypeKind::BF16;
  return std::nullopt;
}

Type floatTypeOf(MLIRContext *ctx, DTypeKind k) {
  switch (k) {
  case DTypeKind::F64:
    return Float64Type::get(ctx);
  case DTypeKind::F32:
    return Float32Type::get(ctx);
  case DTypeKind::F16:
    return Float16Type::get(ctx);
  default:
    return BFloat16Type::get(ctx);
  }
}

} // namespace

bool mlir::kiln::hasUnsignedInput(Operation *reduction) {
  Type e = getElementTypeOrSelf(reduction->getOperand(0).getType());
  return e.isUnsignedInteger() || e.isInteger(1);
}

Type mlir::kiln::reductionAccumulatorType(ReductionKind kind, Type storage) {
  // Integer reductions accumulate in their own type.
  std::optional<DTypeKind> k = floatKindOf(storage);
  if (!k)
    return storage;
  return floatTypeOf(storage.getContext(),
                     ::kiln::reductionAccumulator(kind, *k));
}

Type mlir::kiln::reductionBlockAccumulatorType(ReductionKind kind,
                                               Type storage) {
  std::optional<DTypeKind> k = floatKindOf(storage);
  if (!k)
    return storage;
  return floatTypeOf(storage.getContext(),
                     ::kiln::reductionBlockAccumulator(kind, *k));
}

Value mlir::kiln::buildReductionIdentity(OpBuilder &b, Location loc,
                                         ReductionKind kind, Type acc,
                                         bool isUnsigned) {
  TypedAttr attr = identityAttr(kind, getElementTypeOrSelf(acc), isUnsigned);
  if (auto v = llvm::dyn_cast<VectorType>(acc))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(v, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

Value mlir::kiln::buildReductionCombine(OpBuilder &b, Location loc,
                                        ReductionKind kind, Value acc, Value v,
                                        bool isUnsigned) {
  bool isFloat = llvm::isa<FloatType>(getElementTypeOrSelf(acc.getType()));
  // Reassociation lets a backend keep several vector accumulators.
  auto fm = arith::FastMathFlags::reassoc;
  switch (kind) {
  case ReductionKind::Sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, acc, v, fm))
                   : Value(arith::AddIOp::create(b, loc, acc, v));
  case ReductionKind::Prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, acc, v, fm))
                   : Value(arith::MulIOp::create(b, loc, acc, v));
  case ReductionKind::Max:
    if (isFloat) // NaN propagates
      return arith::MaximumFOp::create(b, loc, acc, v);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, acc, v))
                      : Value(arith::MaxSIOp::create(b, loc, acc, v));
  case ReductionKind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, acc, v);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, acc, v))
                      : Value(arith::MinSIOp::create(b, loc, acc, v));
  case ReductionKind::Any:
    return arith::OrIOp::create(b, loc, acc, v);
  case ReductionKind::All:
    return arith::AndIOp::create(b, loc, acc, v);
  }
  return acc;
}
