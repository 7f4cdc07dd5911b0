//===- Common.h - Shared pieces of the kiln-to-linalg lowering --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each file of this folder lowers one concern (elementwise, reductions,
// shape, ...) and adds its patterns with one populate function. The helpers
// below are the building blocks they share: sizes, empty and filled
// tensors, accumulator types and conversions of attribute values.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_COMMON_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_COMMON_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kiln::tolinalg {

void populateCreationPatterns(const TypeConverter &tc, RewritePatternSet &p);
void populateElementwisePatterns(const TypeConverter &tc, RewritePatternSet &p);
void populateReductionPatterns(const TypeConverter &tc, RewritePatternSet &p);
void populateMatmulPatterns(const TypeConverter &tc, RewritePatternSet &p);
void populateShapePatterns(const TypeConverter &tc, RewritePatternSet &p);
/// With `indexChecks`, gather, index_select, embedding and scatter_add
/// report bad indices through kBadIndexFn.
void populateIndexingPatterns(const TypeConverter &tc, RewritePatternSet &p,
                              bool indexChecks);
void populateNNPatterns(const TypeConverter &tc, RewritePatternSet &p);
void populateQuantPatterns(const TypeConverter &tc, RewritePatternSet &p);

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// The converted type of a plain (unquantized) kiln tensor type.
RankedTensorType convertedTensorType(const TypeConverter &tc, Type kilnType);

/// The kiln element type of a kiln tensor value (before conversion).
inline Type kilnElementOf(Value v) {
  return llvm::cast<ShapedType>(v.getType()).getElementType();
}

/// The type sums, products and dot products of `storage` accumulate in:
/// f32 for f16 and bf16 (as Flex computes them), the type itself otherwise.
Type accumulatorType(Type storage);

//===----------------------------------------------------------------------===//
// Sizes and tensors
//===----------------------------------------------------------------------===//

Value indexConstant(OpBuilder &b, Location loc, int64_t v);
Value toIndexValue(OpBuilder &b, Location loc, OpFoldResult ofr);

/// Sizes of a tensor value: static dims as attributes, dynamic as tensor.dim.
SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value tensor);

/// Size `d` of a tensor value: an attribute when static, else tensor.dim.
OpFoldResult sizeOf(OpBuilder &b, Location loc, Value tensor, int64_t d);

/// Whether a tensor type has a static dim of 0, so no elements: the slice
/// ops of the tensor dialect reject the offsets (the axis's end) that such
/// a tensor is read or written at.
bool hasNoElements(Type tensorType);

/// Size `d` of `tensor` as an index value.
Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t d);

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType);

/// A tensor of `sizes` whose elements are the scalar `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Value value);

/// `src` with the same elements in row-major order and `dstType`'s shape
/// (`dstSizes` gives its sizes): one collapse_shape or expand_shape when the
/// shapes allow it, otherwise a collapse to 1-D followed by an expand.
Value reshapeTensor(OpBuilder &b, Location loc, Value src,
                    RankedTensorType dstType, ArrayRef<OpFoldResult> dstSizes);

/// Number of elements of a tensor value, as an index value.
Value numElementsOf(OpBuilder &b, Location loc, Value tensor);

/// The static sizes of `type`, and `dynamic` (in order) for its dynamic dims.
SmallVector<OpFoldResult> mixedSizes(OpBuilder &b, RankedTensorType type,
                                     ValueRange dynamic);

//===----------------------------------------------------------------------===//
// linalg.generic building
//===----------------------------------------------------------------------===//

/// `rank` iterators, reductions at `reductionDims`, parallel elsewhere.
SmallVector<utils::IteratorType>
iteratorTypes(unsigned rank, ArrayRef<int64_t> reductionDims = {});

/// linalg.index of every loop dim 0..rank-1 (inside a generic body).
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, unsigned rank);

/// The map that reads an operand of `operandShape` inside a loop nest over
/// `resultShape` with numpy broadcasting: leading dims are dropped and a
/// static size-1 dim where the result is not 1 reads index 0. Dynamic dims
/// are assumed to match the result.
AffineMap broadcastMap(ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> resultShape, MLIRContext *ctx);

/// Converts every element of `tensor` from kiln element type `from` to
/// `to` with kiln.cast semantics; `tensor` itself when they agree.
Value castTensor(OpBuilder &b, Location loc, Value tensor, Type from, Type to);

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// The constant that an f64 attribute becomes in kiln element type `kiln`:
/// rounded once, integers truncated toward zero.
Value attrConstant(OpBuilder &b, Location loc, Type kiln, double value);

/// An f64 scalar stored as kiln element type `kiln`, rounded once (what
/// Flex's creation kernels and casts do).
Value fromF64(OpBuilder &b, Location loc, Value v, Type kiln);

/// An f64 scalar stored through Flex's compute type: f16/bf16 round to f32
/// first. The kernels that accumulate in f64 and store through their
/// compute type (cumsum, avg_pool2d, quantization scales) round this way.
Value fromF64ThroughCompute(OpBuilder &b, Location loc, Value v, Type kiln);

/// x + y and x * y of two scalars of one storage type.
Value addScalars(OpBuilder &b, Location loc, Value x, Value y);
Value mulScalars(OpBuilder &b, Location loc, Value x, Value y);

/// `i` (any integer or index) as an index, sign-extended.
Value asIndex(OpBuilder &b, Location loc, Value i);

/// `i` clamped into [0, n - 1] (index values).
Value clampIndex(OpBuilder &b, Location loc, Value i, Value n);

/// 0 <= i < n (index values).
Value inRange(OpBuilder &b, Location loc, Value i, Value n);

/// Row-major flat index of `indices` in a space of `sizes` (index values).
Value linearize(OpBuilder &b, Location loc, ValueRange indices,
                ArrayRef<Value> sizes);

} // namespace mlir::kiln::tolinalg

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_COMMON_H
