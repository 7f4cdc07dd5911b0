//===- Common.cpp - Shared pieces of the kiln-to-linalg lowering ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

RankedTensorType tolinalg::convertedTensorType(const TypeConverter &tc,
                                               Type kilnType) {
  return llvm::dyn_cast_or_null<RankedTensorType>(tc.convertType(kilnType));
}

Type tolinalg::accumulatorType(Type storage) {
  if (storage.isF16() || storage.isBF16())
    return Float32Type::get(storage.getContext());
  return storage;
}

Value tolinalg::indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value tolinalg::toIndexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

SmallVector<OpFoldResult> tolinalg::sizesOf(OpBuilder &b, Location loc,
                                            Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

bool tolinalg::hasNoElements(Type tensorType) {
  return llvm::is_contained(llvm::cast<ShapedType>(tensorType).getShape(), 0);
}

OpFoldResult tolinalg::sizeOf(OpBuilder &b, Location loc, Value tensor,
                              int64_t d) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return tensor::DimOp::create(b, loc, tensor, d).getResult();
}

Value tolinalg::dimValue(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return indexConstant(b, loc, type.getDimSize(d));
  return tensor::DimOp::create(b, loc, tensor, d);
}

Value tolinalg::emptyTensor(OpBuilder &b, Location loc,
                            ArrayRef<OpFoldResult> sizes, Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value tolinalg::filledTensor(OpBuilder &b, Location loc,
                             ArrayRef<OpFoldResult> sizes, Value value) {
  Value empty = emptyTensor(b, loc, sizes, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value tolinalg::reshapeTensor(OpBuilder &b, Location loc, Value src,
                              RankedTensorType dstType,
                              ArrayRef<OpFoldResult> dstSizes) {
  auto srcType = llvm::cast<RankedTensorType>(src.getType());
  if (srcType == dstType)
    return src;
  // expand_shape wants static sizes as attributes.
  SmallVector<OpFoldResult> sizes(dstSizes);
  for (int64_t d = 0; d < dstType.getRank(); ++d)
    if (!dstType.isDynamicDim(d))
      sizes[d] = b.getIndexAttr(dstType.getDimSize(d));
  dstSizes = sizes;
  int64_t srcRank = srcType.getRank(), dstRank = dstType.getRank();
  if (srcRank != dstRank) {
    if (auto groups = getReassociationIndicesForReshape(srcType, dstType)) {
      if (srcRank > dstRank)
        return tensor::CollapseShapeOp::create(b, loc, dstType, src, *groups);
      return tensor::ExpandShapeOp::create(b, loc, dstType, src, *groups,
                                           dstSizes);
    }
  }
  // Through 1-D, which every row-major reshape can pass.
  Value flat = src;
  int64_t n = srcType.hasStaticShape() ? srcType.getNumElements()
                                       : ShapedType::kDynamic;
  auto flatType = RankedTensorType::get({n}, srcType.getElementType());
  if (srcRank == 0) {
    flat = tensor::ExpandShapeOp::create(
        b, loc, flatType, src, ArrayRef<ReassociationIndices>{},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  } else if (srcRank > 1) {
    ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, srcRank));
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, src,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (dstRank == 0)
    return tensor::CollapseShapeOp::create(b, loc, dstType, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (dstRank == 1)
    return flat.getType() == dstType
               ? flat
               : tensor::CastOp::create(b, loc, dstType, flat).getResult();
  ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, dstRank));
  return tensor::ExpandShapeOp::create(
      b, loc, dstType, flat, ArrayRef<ReassociationIndices>{all}, dstSizes);
}

Value tolinalg::numElementsOf(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (type.hasStaticShape())
    return indexConstant(b, loc, type.getNumElements());
  Value n = indexConstant(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    n = arith::MulIOp::create(b, loc, n, dimValue(b, loc, tensor, d));
  return n;
}

SmallVector<OpFoldResult>
tolinalg::mixedSizes(OpBuilder &b, RankedTensorType type, ValueRange dynamic) {
  SmallVector<OpFoldResult> sizes;
  unsigned next = 0;
  for (int64_t d : type.getShape()) {
    if (ShapedType::isDynamic(d))
      sizes.push_back(dynamic[next++]);
    else
      sizes.push_back(b.getIndexAttr(d));
  }
  return sizes;
}

SmallVector<utils::IteratorType>
tolinalg::iteratorTypes(unsigned rank, ArrayRef<int64_t> reductionDims) {
  SmallVector<utils::IteratorType> its(rank, utils::IteratorType::parallel);
  for (int64_t d : reductionDims)
    its[d] = utils::IteratorType::reduction;
  return its;
}

SmallVector<Value> tolinalg::loopIndices(OpBuilder &b, Location loc,
                                         unsigned rank) {
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < rank; ++d)
    ivs.push_back(linalg::IndexOp::create(b, loc, d));
  return ivs;
}

AffineMap tolinalg::broadcastMap(ArrayRef<int64_t> operandShape,
                                 ArrayRef<int64_t> resultShape,
                                 MLIRContext *ctx) {
  unsigned rank = resultShape.size();
  unsigned lead = rank - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < operandShape.size(); ++i) {
    int64_t r = resultShape[lead + i];
    if (operandShape[i] == 1 && r != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(lead + i, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value tolinalg::castTensor(OpBuilder &b, Location loc, Value tensor, Type from,
                           Type to) {
  Type toStorage = storageTypeOf(to);
  if (storageTypeOf(from) == toStorage)
    return tensor;
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  Value init = emptyTensor(b, loc, sizesOf(b, loc, tensor), toStorage);
  unsigned rank = type.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{tensor},
             ValueRange{init}, ArrayRef<AffineMap>{id, id}, iteratorTypes(rank),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       emitCast(nb, l, args[0], from, to));
             })
      .getResult(0);
}

Value tolinalg::attrConstant(OpBuilder &b, Location loc, Type kiln,
                             double value) {
  if (kiln.isInteger() && !kiln.isInteger(1) && std::isfinite(value))
    value = std::trunc(value);
  return constantOf(b, loc, storageTypeOf(kiln), value);
}

Value tolinalg::fromF64(OpBuilder &b, Location loc, Value v, Type kiln) {
  return emitCast(b, loc, v, b.getF64Type(), kiln);
}

Value tolinalg::fromF64ThroughCompute(OpBuilder &b, Location loc, Value v,
                                      Type kiln) {
  Type f64 = b.getF64Type();
  if (kiln.isF16() || kiln.isBF16()) {
    Type f32 = b.getF32Type();
    return emitCast(b, loc, emitCast(b, loc, v, f64, f32), f32, kiln);
  }
  return emitCast(b, loc, v, f64, kiln);
}

Value tolinalg::addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (llvm::isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value tolinalg::mulScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (llvm::isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value tolinalg::asIndex(OpBuilder &b, Location loc, Value i) {
  if (i.getType().isIndex())
    return i;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
}

Value tolinalg::clampIndex(OpBuilder &b, Location loc, Value i, Value n) {
  Value zero = indexConstant(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, n, indexConstant(b, loc, 1));
  Value lo = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(b, loc, lo, last);
}

Value tolinalg::inRange(OpBuilder &b, Location loc, Value i, Value n) {
  Value zero = indexConstant(b, loc, 0);
  Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero);
  Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, n);
  return arith::AndIOp::create(b, loc, ge, lt);
}

Value tolinalg::linearize(OpBuilder &b, Location loc, ValueRange indices,
                          ArrayRef<Value> sizes) {
  if (indices.empty())
    return indexConstant(b, loc, 0);
  Value flat = indices[0];
  for (size_t d = 1; d < indices.size(); ++d)
    flat = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, flat, sizes[d]), indices[d]);
  return flat;
}
