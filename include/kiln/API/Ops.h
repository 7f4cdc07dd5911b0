//===- Ops.h - Every op of the op set as a free function --------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each function records one node and returns at once. Shapes, axes and
// dtypes are checked here, so a mistake throws kiln::Error on the line that
// wrote it. Axes may be negative (counted from the end). Scalars take the
// dtype of the tensor they meet and are passed to kernels as arguments, so
// `x * 0.1` and `x * 0.2` share one compiled kernel.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_OPS_H
#define KILN_API_OPS_H

#include "kiln/API/Tensor.h"

namespace kiln {

using Tensor = DispatchTensor;

namespace detail {
/// Records the elementwise op `op` ("kiln.exp") over its operands. Their
/// dtypes are checked against the op's ODS constraints and binary operands
/// broadcast; a comparison gives bool. The simple elementwise functions
/// below are these calls, so an elementwise op is one line of the API.
Tensor recordUnary(const char *op, const Tensor &x);
Tensor recordBinary(const char *op, const Tensor &x, const Tensor &y);
Tensor recordComparison(const char *op, const Tensor &x, const Tensor &y);
} // namespace detail

// Elementwise unary.
inline Tensor neg(const Tensor &x) {
  return detail::recordUnary("kiln.neg", x);
}
inline Tensor abs(const Tensor &x) {
  return detail::recordUnary("kiln.abs", x);
}
inline Tensor exp(const Tensor &x) {
  return detail::recordUnary("kiln.exp", x);
}
inline Tensor log(const Tensor &x) {
  return detail::recordUnary("kiln.log", x);
}
inline Tensor log1p(const Tensor &x) {
  return detail::recordUnary("kiln.log1p", x);
}
inline Tensor sqrt(const Tensor &x) {
  return detail::recordUnary("kiln.sqrt", x);
}
inline Tensor rsqrt(const Tensor &x) {
  return detail::recordUnary("kiln.rsqrt", x);
}
inline Tensor recip(const Tensor &x) {
  return detail::recordUnary("kiln.recip", x);
}
inline Tensor sin(const Tensor &x) {
  return detail::recordUnary("kiln.sin", x);
}
inline Tensor cos(const Tensor &x) {
  return detail::recordUnary("kiln.cos", x);
}
inline Tensor tan(const Tensor &x) {
  return detail::recordUnary("kiln.tan", x);
}
inline Tensor tanh(const Tensor &x) {
  return detail::recordUnary("kiln.tanh", x);
}
inline Tensor sigmoid(const Tensor &x) {
  return detail::recordUnary("kiln.sigmoid", x);
}
inline Tensor erf(const Tensor &x) {
  return detail::recordUnary("kiln.erf", x);
}
inline Tensor relu(const Tensor &x) {
  return detail::recordUnary("kiln.relu", x);
}
/// Exact gelu, or the tanh approximation when `tanhApprox`.
Tensor gelu(const Tensor &x, bool tanhApprox = false);
inline Tensor silu(const Tensor &x) {
  return detail::recordUnary("kiln.silu", x);
}
inline Tensor floor(const Tensor &x) {
  return detail::recordUnary("kiln.floor", x);
}
inline Tensor ceil(const Tensor &x) {
  return detail::recordUnary("kiln.ceil", x);
}
inline Tensor round(const Tensor &x) {
  return detail::recordUnary("kiln.round", x);
}
inline Tensor sign(const Tensor &x) {
  return detail::recordUnary("kiln.sign", x);
}
Tensor clamp(const Tensor &x, double min, double max);
Tensor isNan(const Tensor &x);
inline Tensor logicalNot(const Tensor &x) {
  return detail::recordUnary("kiln.not", x);
}

// Elementwise binary, with numpy broadcasting.
inline Tensor add(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.add", x, y);
}
inline Tensor sub(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.sub", x, y);
}
inline Tensor mul(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.mul", x, y);
}
inline Tensor div(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.div", x, y);
}
inline Tensor pow(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.pow", x, y);
}
inline Tensor maximum(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.max", x, y);
}
inline Tensor minimum(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.min", x, y);
}
inline Tensor rem(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.rem", x, y);
}
inline Tensor atan2(const Tensor &y, const Tensor &x) {
  return detail::recordBinary("kiln.atan2", y, x);
}
Tensor pow(const Tensor &x, double y);

// Comparison and logic (results are bool).
inline Tensor eq(const Tensor &x, const Tensor &y) {
  return detail::recordComparison("kiln.eq", x, y);
}
inline Tensor ne(const Tensor &x, const Tensor &y) {
  return detail::recordComparison("kiln.ne", x, y);
}
inline Tensor lt(const Tensor &x, const Tensor &y) {
  return detail::recordComparison("kiln.lt", x, y);
}
inline Tensor le(const Tensor &x, const Tensor &y) {
  return detail::recordComparison("kiln.le", x, y);
}
inline Tensor gt(const Tensor &x, const Tensor &y) {
  return detail::recordComparison("kiln.gt", x, y);
}
inline Tensor ge(const Tensor &x, const Tensor &y) {
  return detail::recordComparison("kiln.ge", x, y);
}
inline Tensor logicalAnd(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.and", x, y);
}
inline Tensor logicalOr(const Tensor &x, const Tensor &y) {
  return detail::recordBinary("kiln.or", x, y);
}
/// cond ? x : y, with three-way broadcasting.
Tensor where(const Tensor &cond, const Tensor &x, const Tensor &y);
Tensor where(const Tensor &cond, const Tensor &x, double y);
Tensor cast(const Tensor &x, DType dtype);

// Reductions. An empty axis list reduces every axis.
Tensor sum(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepdim = false);
Tensor mean(const Tensor &x, std::vector<int64_t> axes = {},
            bool keepdim = false);
Tensor prod(const Tensor &x, std::vector<int64_t> axes = {},
            bool keepdim = false);
Tensor max(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepdim = false);
Tensor min(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepdim = false);
Tensor any(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepdim = false);
Tensor all(const Tensor &x, std::vector<int64_t> axes = {},
           bool keepdim = false);
Tensor argmax(const Tensor &x, int64_t axis, bool keepdim = false);
Tensor argmin(const Tensor &x, int64_t axis, bool keepdim = false);
Tensor cumsum(const Tensor &x, int64_t axis);
Tensor softmax(const Tensor &x, int64_t axis = -1);
Tensor logSoftmax(const Tensor &x, int64_t axis = -1);
Tensor logsumexp(const Tensor &x, std::vector<int64_t> axes = {},
                 bool keepdim = false);

// Linear algebra: batched, broadcasting matmul of rank >= 2 operands (a
// 1-D operand is treated as a row or column vector, as in numpy).
Tensor matmul(const Tensor &a, const Tensor &b);

// Shape. `reshape` takes one -1 to infer a dim; `expand` takes -1 to keep
// one. Slices take start/end/step per dim; end is clamped to the dim.
Tensor reshape(const Tensor &x, Shape shape);
Tensor permute(const Tensor &x, std::vector<int64_t> dims);
Tensor transpose(const Tensor &x, int64_t d0, int64_t d1);
Tensor expand(const Tensor &x, Shape shape);
Tensor slice(const Tensor &x, std::vector<int64_t> starts,
             std::vector<int64_t> ends, std::vector<int64_t> steps = {});
Tensor sliceAssign(const Tensor &dest, const Tensor &value,
                   std::vector<int64_t> starts, std::vector<int64_t> ends,
                   std::vector<int64_t> steps = {});
Tensor concat(const std::vector<Tensor> &xs, int64_t axis);
std::vector<Tensor> split(const Tensor &x, std::vector<int64_t> sizes,
                          int64_t axis);
Tensor squeeze(const Tensor &x, std::vector<int64_t> axes);
Tensor unsqueeze(const Tensor &x, std::vector<int64_t> axes);
Tensor flip(const Tensor &x, std::vector<int64_t> axes);
Tensor repeat(const Tensor &x, std::vector<int64_t> repeats);
Tensor pad(const Tensor &x, std::vector<int64_t> low, std::vector<int64_t> high,
           double value = 0.0);

// Indexing. Index tensors are i64 or i32.
Tensor gather(const Tensor &x, int64_t axis, const Tensor &indices);
Tensor scatterAdd(const Tensor &x, int64_t axis, const Tensor &indices,
                  const Tensor &updates);
Tensor indexSelect(const Tensor &x, int64_t axis, const Tensor &indices);
Tensor maskFill(const Tensor &x, const Tensor &mask, double value);
Tensor oneHot(const Tensor &indices, int64_t numClasses,
              DType dtype = DType::F32);
Tensor embedding(const Tensor &weight, const Tensor &indices);

// Neural-network ops (NCHW / NCL layouts).
struct ConvOptions {
  std::vector<int64_t> stride, padding, dilation; ///< default 1, 0, 1
  int64_t groups = 1;
};
Tensor conv2d(const Tensor &x, const Tensor &weight,
              const std::optional<Tensor> &bias = std::nullopt,
              ConvOptions options = {});
Tensor conv1d(const Tensor &x, const Tensor &weight,
              const std::optional<Tensor> &bias = std::nullopt,
              ConvOptions options = {});
Tensor maxPool2d(const Tensor &x, std::vector<int64_t> kernel,
                 std::vector<int64_t> stride = {},
                 std::vector<int64_t> padding = {0, 0});
Tensor avgPool2d(const Tensor &x, std::vector<int64_t> kernel,
                 std::vector<int64_t> stride = {},
                 std::vector<int64_t> padding = {0, 0},
                 bool countIncludePad = true);
Tensor layerNorm(const Tensor &x, const std::optional<Tensor> &weight,
                 const std::optional<Tensor> &bias, double eps = 1e-5);
Tensor dropout(const Tensor &x, double p, uint64_t seed);
/// Mean softmax cross-entropy of [N, C] logits and [N] class indices.
Tensor crossEntropy(const Tensor &logits, const Tensor &labels);

// Quantization.
Tensor quantize(const Tensor &x, QuantScheme scheme);
Tensor dequantize(const Tensor &q, DType dtype = DType::F32);

// Operators. A scalar takes the dtype of the tensor it meets.
Tensor operator-(const Tensor &x);
Tensor operator+(const Tensor &x, const Tensor &y);
Tensor operator-(const Tensor &x, const Tensor &y);
Tensor operator*(const Tensor &x, const Tensor &y);
Tensor operator/(const Tensor &x, const Tensor &y);
Tensor operator%(const Tensor &x, const Tensor &y);
Tensor operator+(const Tensor &x, double y);
Tensor operator-(const Tensor &x, double y);
Tensor operator*(const Tensor &x, double y);
Tensor operator/(const Tensor &x, double y);
Tensor operator%(const Tensor &x, double y);
Tensor operator+(double x, const Tensor &y);
Tensor operator-(double x, const Tensor &y);
Tensor operator*(double x, const Tensor &y);
Tensor operator/(double x, const Tensor &y);
Tensor operator==(const Tensor &x, const Tensor &y);
Tensor operator!=(const Tensor &x, const Tensor &y);
Tensor operator<(const Tensor &x, const Tensor &y);
Tensor operator<=(const Tensor &x, const Tensor &y);
Tensor operator>(const Tensor &x, const Tensor &y);
Tensor operator>=(const Tensor &x, const Tensor &y);
Tensor operator==(const Tensor &x, double y);
Tensor operator!=(const Tensor &x, double y);
Tensor operator<(const Tensor &x, double y);
Tensor operator<=(const Tensor &x, double y);
Tensor operator>(const Tensor &x, double y);
Tensor operator>=(const Tensor &x, double y);
Tensor operator&(const Tensor &x, const Tensor &y);
Tensor operator|(const Tensor &x, const Tensor &y);
Tensor operator!(const Tensor &x);

} // namespace kiln

#endif // KILN_API_OPS_H
