//===- Ops.cpp - Every op of the op set as a free function ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each function checks its operands with the same shape rules the dialect
// verifies with (kiln/Support/ShapeRules.h) and records one node.
//
//===----------------------------------------------------------------------===//

#include "Record.h"

#include "kiln/API/Autodiff.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace kiln;
using namespace kiln::detail;

namespace {

using Dims = rules::Dims;
std::vector<int64_t> vec(const Dims &d) { return {d.begin(), d.end()}; }

/// A scalar operand with the dtype of the tensor it meets.
DispatchTensor scalarLike(const char *op, const DispatchTensor &x,
                          double value) {
  const NodePtr &n = nodeOf(x, op);
  if (n->dtype.isInteger() &&
      (std::isnan(value) || value != std::trunc(value)))
    throw Error(std::string(op) + ": scalar " + std::to_string(value) +
                " is not an integer, but the tensor is " + describe(*n) +
                "; cast the tensor to a float dtype first");
  if (n->dtype.isBool() && value != 0 && value != 1)
    throw Error(std::string(op) + ": scalar " + std::to_string(value) +
                " is not a bool, but the tensor is " + describe(*n));
  if (n->dtype.isQuantized())
    throw Error(std::string(op) + ": cannot combine a scalar with quantized " +
                describe(*n) + "; dequantize first");
  std::string misfit = scalarMisfit(value, n->dtype);
  if (!misfit.empty())
    throw Error(std::string(op) + ": scalar " + misfit +
                ", but the tensor is " + describe(*n));
  return DispatchTensor(
      scalarNode(value, n->dtype, DispatchDevice(n->device, n->deviceIndex)));
}

template <typename Op>
Tensor unary(const Tensor &x, std::vector<NodeAttr> attrs = {}) {
  Recorder r(Op::name, {&x});
  return r.make(r.dtype(0), r.shape(0), std::move(attrs));
}

template <typename Op>
Tensor binary(const Tensor &x, const Tensor &y, bool boolResult = false) {
  Recorder r(Op::name, {&x, &y});
  r.requireSameDType(0, 1);
  Dims out;
  r.check(rules::broadcast(r.shape(0), r.shape(1), out));
  return r.make(boolResult ? DType::Bool : r.dtype(0), vec(out));
}

template <typename Op>
Tensor reduction(const Tensor &x, std::vector<int64_t> axes, bool keepdim,
                 std::optional<DType> result = {}) {
  Recorder r(Op::name, {&x});
  if (axes.empty()) {
    axes.resize(r.rank(0));
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (axes.empty()) // rank 0: nothing to reduce
    return x;
  axes = r.axes(axes, r.rank(0));
  std::sort(axes.begin(), axes.end());
  Dims out;
  r.check(rules::reduce(r.shape(0), axes, keepdim, out));
  if constexpr (Op::needsElements)
    r.check(rules::reduceNonEmpty(r.shape(0), axes));
  std::vector<NodeAttr> attrs{Op::axes(axes)};
  if (keepdim)
    attrs.push_back(Op::keepdim());
  return r.make(result.value_or(r.dtype(0)), vec(out), attrs);
}

template <typename Op>
Tensor argReduction(const Tensor &x, int64_t axis, bool keepdim) {
  Recorder r(Op::name, {&x});
  axis = r.axis(axis, r.rank(0));
  Dims out;
  r.check(rules::reduce(r.shape(0), {axis}, keepdim, out));
  if constexpr (Op::needsElements)
    r.check(rules::reduceNonEmpty(r.shape(0), {axis}));
  std::vector<NodeAttr> attrs{Op::axis(axis)};
  if (keepdim)
    attrs.push_back(Op::keepdim());
  return r.make(DType::I64, vec(out), attrs);
}

template <typename Op> Tensor axisOp(const Tensor &x, int64_t axis) {
  Recorder r(Op::name, {&x});
  axis = r.axis(axis, r.rank(0));
  return r.make(r.dtype(0), r.shape(0), {Op::axis(axis)});
}

/// Fills missing per-dim slice arguments and resolves negative indices.
void normalizeSlice(const Recorder &r, const std::vector<int64_t> &shape,
                    std::vector<int64_t> &starts, std::vector<int64_t> &ends,
                    std::vector<int64_t> &steps) {
  size_t rank = shape.size();
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank)
    r.fail("starts, ends and steps need one entry per dim (rank " +
           std::to_string(rank) + "), got " + std::to_string(starts.size()) +
           ", " + std::to_string(ends.size()) + " and " +
           std::to_string(steps.size()));
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = shape[i];
    if (starts[i] < 0)
      starts[i] = std::max<int64_t>(0, starts[i] + d);
    if (ends[i] < 0)
      ends[i] = std::max<int64_t>(0, ends[i] + d);
    starts[i] = std::min(starts[i], d);
    ends[i] = std::min(std::max(ends[i], starts[i]), d);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Operand dtypes are checked against each op's ODS constraints, binary
// operands broadcast, and a comparison gives bool: an elementwise op is one
// line here.
Tensor kiln::neg(const Tensor &x) { return unary<ops::Neg>(x); }
Tensor kiln::abs(const Tensor &x) { return unary<ops::Abs>(x); }
Tensor kiln::exp(const Tensor &x) { return unary<ops::Exp>(x); }
Tensor kiln::log(const Tensor &x) { return unary<ops::Log>(x); }
Tensor kiln::log1p(const Tensor &x) { return unary<ops::Log1p>(x); }
Tensor kiln::sqrt(const Tensor &x) { return unary<ops::Sqrt>(x); }
Tensor kiln::rsqrt(const Tensor &x) { return unary<ops::Rsqrt>(x); }
Tensor kiln::recip(const Tensor &x) { return unary<ops::Recip>(x); }
Tensor kiln::sin(const Tensor &x) { return unary<ops::Sin>(x); }
Tensor kiln::cos(const Tensor &x) { return unary<ops::Cos>(x); }
Tensor kiln::tan(const Tensor &x) { return unary<ops::Tan>(x); }
Tensor kiln::tanh(const Tensor &x) { return unary<ops::Tanh>(x); }
Tensor kiln::sigmoid(const Tensor &x) { return unary<ops::Sigmoid>(x); }
Tensor kiln::erf(const Tensor &x) { return unary<ops::Erf>(x); }
Tensor kiln::relu(const Tensor &x) { return unary<ops::Relu>(x); }
Tensor kiln::silu(const Tensor &x) { return unary<ops::Silu>(x); }
Tensor kiln::logSigmoid(const Tensor &x) { return unary<ops::LogSigmoid>(x); }
Tensor kiln::hardswish(const Tensor &x) { return unary<ops::Hardswish>(x); }
Tensor kiln::mish(const Tensor &x) { return unary<ops::Mish>(x); }
Tensor kiln::floor(const Tensor &x) { return unary<ops::Floor>(x); }
Tensor kiln::ceil(const Tensor &x) { return unary<ops::Ceil>(x); }
Tensor kiln::round(const Tensor &x) { return unary<ops::Round>(x); }
Tensor kiln::sign(const Tensor &x) { return unary<ops::Sign>(x); }
Tensor kiln::logicalNot(const Tensor &x) { return unary<ops::Not>(x); }
Tensor kiln::add(const Tensor &x, const Tensor &y) {
  return binary<ops::Add>(x, y);
}
Tensor kiln::sub(const Tensor &x, const Tensor &y) {
  return binary<ops::Sub>(x, y);
}
Tensor kiln::mul(const Tensor &x, const Tensor &y) {
  return binary<ops::Mul>(x, y);
}
Tensor kiln::div(const Tensor &x, const Tensor &y) {
  return binary<ops::Div>(x, y);
}
Tensor kiln::pow(const Tensor &x, const Tensor &y) {
  return binary<ops::Pow>(x, y);
}
Tensor kiln::maximum(const Tensor &x, const Tensor &y) {
  return binary<ops::Max>(x, y);
}
Tensor kiln::minimum(const Tensor &x, const Tensor &y) {
  return binary<ops::Min>(x, y);
}
Tensor kiln::rem(const Tensor &x, const Tensor &y) {
  return binary<ops::Rem>(x, y);
}
Tensor kiln::atan2(const Tensor &y, const Tensor &x) {
  return binary<ops::Atan2>(y, x);
}
Tensor kiln::eq(const Tensor &x, const Tensor &y) {
  return binary<ops::Eq>(x, y, /*boolResult=*/true);
}
Tensor kiln::ne(const Tensor &x, const Tensor &y) {
  return binary<ops::Ne>(x, y, /*boolResult=*/true);
}
Tensor kiln::lt(const Tensor &x, const Tensor &y) {
  return binary<ops::Lt>(x, y, /*boolResult=*/true);
}
Tensor kiln::le(const Tensor &x, const Tensor &y) {
  return binary<ops::Le>(x, y, /*boolResult=*/true);
}
Tensor kiln::gt(const Tensor &x, const Tensor &y) {
  return binary<ops::Gt>(x, y, /*boolResult=*/true);
}
Tensor kiln::ge(const Tensor &x, const Tensor &y) {
  return binary<ops::Ge>(x, y, /*boolResult=*/true);
}
Tensor kiln::logicalAnd(const Tensor &x, const Tensor &y) {
  return binary<ops::And>(x, y);
}
Tensor kiln::logicalOr(const Tensor &x, const Tensor &y) {
  return binary<ops::Or>(x, y);
}

Tensor kiln::gelu(const Tensor &x, bool tanhApprox) {
  std::vector<NodeAttr> attrs;
  if (tanhApprox)
    attrs.push_back(ops::Gelu::approximate(ops::GeluApprox::Tanh));
  return unary<ops::Gelu>(x, attrs);
}
Tensor kiln::leakyRelu(const Tensor &x, double negativeSlope) {
  Recorder r(ops::LeakyRelu::name, {&x});
  if (!std::isfinite(negativeSlope))
    r.fail("negative_slope must be finite, got " +
           std::to_string(negativeSlope));
  return r.make(r.dtype(0), r.shape(0),
                {ops::LeakyRelu::negativeSlope(negativeSlope)});
}
Tensor kiln::elu(const Tensor &x, double alpha) {
  Recorder r(ops::Elu::name, {&x});
  if (!std::isfinite(alpha))
    r.fail("alpha must be finite, got " + std::to_string(alpha));
  return r.make(r.dtype(0), r.shape(0), {ops::Elu::alpha(alpha)});
}
Tensor kiln::softplus(const Tensor &x, double beta, double threshold) {
  Recorder r(ops::Softplus::name, {&x});
  if (!(beta > 0) || !std::isfinite(beta))
    r.fail("beta must be finite and > 0, got " + std::to_string(beta));
  if (std::isnan(threshold))
    r.fail("threshold must not be NaN");
  return r.make(
      r.dtype(0), r.shape(0),
      {ops::Softplus::beta(beta), ops::Softplus::threshold(threshold)});
}
Tensor kiln::clamp(const Tensor &x, double min, double max) {
  Recorder r(ops::Clamp::name, {&x});
  if (std::isnan(min) || std::isnan(max) || min > max)
    r.fail("min " + std::to_string(min) + " is greater than max " +
           std::to_string(max));
  return r.make(r.dtype(0), r.shape(0),
                {ops::Clamp::min(min), ops::Clamp::max(max)});
}
Tensor kiln::isNan(const Tensor &x) {
  Recorder r(ops::IsNan::name, {&x});
  return r.make(DType::Bool, r.shape(0));
}

Tensor kiln::pow(const Tensor &x, double y) {
  // Squares, cubes, square roots and reciprocals as the ops they are:
  // exact where exp(y log x) is not, and cheap in a fused epilogue (GELU's
  // x^3). Other exponents, and non-float x (pow's own error), go to pow.
  if (x.dtype().isFloat()) {
    if (y == 2)
      return x * x;
    if (y == 3)
      return x * x * x;
    if (y == 0.5)
      return sqrt(x);
    if (y == -1)
      return recip(x);
    if (y == -0.5)
      return rsqrt(x);
  }
  return pow(x, scalarLike(ops::Pow::name, x, y));
}

Tensor kiln::where(const Tensor &cond, const Tensor &x, const Tensor &y) {
  Recorder r(ops::Where::name, {&cond, &x, &y});
  r.requireSameDType(1, 2);
  Dims a, out;
  r.check(rules::broadcast(r.shape(0), r.shape(1), a));
  r.check(rules::broadcast(a, r.shape(2), out));
  return r.make(r.dtype(1), vec(out));
}
Tensor kiln::where(const Tensor &cond, const Tensor &x, double y) {
  return where(cond, x, scalarLike(ops::Where::name, x, y));
}

Tensor kiln::cast(const Tensor &x, DType dtype) {
  Recorder r(ops::Cast::name, {&x});
  if (dtype.isQuantized())
    r.fail("cannot cast to " + dtype.str() + "; use quantize()");
  if (dtype == r.dtype(0))
    return x;
  return r.make(dtype, r.shape(0));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Tensor kiln::sum(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::Sum>(x, std::move(axes), keepdim);
}
Tensor kiln::mean(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::Mean>(x, std::move(axes), keepdim);
}
Tensor kiln::prod(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::Prod>(x, std::move(axes), keepdim);
}
Tensor kiln::max(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::ReduceMax>(x, std::move(axes), keepdim);
}
Tensor kiln::min(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::ReduceMin>(x, std::move(axes), keepdim);
}
Tensor kiln::any(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::Any>(x, std::move(axes), keepdim);
}
Tensor kiln::all(const Tensor &x, std::vector<int64_t> axes, bool keepdim) {
  return reduction<ops::All>(x, std::move(axes), keepdim);
}
Tensor kiln::argmax(const Tensor &x, int64_t axis, bool keepdim) {
  return argReduction<ops::Argmax>(x, axis, keepdim);
}
Tensor kiln::argmin(const Tensor &x, int64_t axis, bool keepdim) {
  return argReduction<ops::Argmin>(x, axis, keepdim);
}
Tensor kiln::cumsum(const Tensor &x, int64_t axis) {
  return axisOp<ops::Cumsum>(x, axis);
}
Tensor kiln::softmax(const Tensor &x, int64_t axis) {
  return axisOp<ops::Softmax>(x, axis);
}
Tensor kiln::logSoftmax(const Tensor &x, int64_t axis) {
  return axisOp<ops::LogSoftmax>(x, axis);
}
Tensor kiln::logsumexp(const Tensor &x, std::vector<int64_t> axes,
                       bool keepdim) {
  return reduction<ops::Logsumexp>(x, std::move(axes), keepdim);
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

Tensor kiln::matmul(const Tensor &a, const Tensor &b) {
  const NodePtr &na = nodeOf(a, ops::Matmul::name);
  const NodePtr &nb = nodeOf(b, ops::Matmul::name);
  // numpy: a 1-D operand is a row (lhs) or column (rhs) vector.
  if (na->shape.size() == 1 || nb->shape.size() == 1) {
    if (na->shape.empty() || nb->shape.empty())
      Recorder(ops::Matmul::name, {&a, &b})
          .fail("operands must have rank >= 1");
    Tensor a2 = na->shape.size() == 1 ? unsqueeze(a, {0}) : a;
    Tensor b2 = nb->shape.size() == 1 ? unsqueeze(b, {1}) : b;
    Tensor c = matmul(a2, b2);
    std::vector<int64_t> drop;
    int64_t r = c.rank();
    if (na->shape.size() == 1)
      drop.push_back(r - 2);
    if (nb->shape.size() == 1)
      drop.push_back(r - 1);
    return squeeze(c, drop);
  }
  Recorder r(ops::Matmul::name, {&a, &b});
  r.requireSameDType(0, 1);
  Dims out;
  r.check(rules::matmul(r.shape(0), r.shape(1), out));
  return r.make(r.dtype(0), vec(out));
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

Tensor kiln::reshape(const Tensor &x, Shape shape) {
  Recorder r(ops::Reshape::name, {&x});
  Dims out;
  r.check(rules::reshape(r.shape(0), shape.dims(), out));
  if (vec(out) == r.shape(0))
    return x;
  return r.make(r.dtype(0), vec(out), {ops::Reshape::shape(vec(out))});
}

Tensor kiln::permute(const Tensor &x, std::vector<int64_t> dims) {
  Recorder r(ops::Permute::name, {&x});
  if ((int64_t)dims.size() != r.rank(0))
    r.fail("permutation " + rules::formatDims(dims) + " does not match rank " +
           std::to_string(r.rank(0)));
  for (int64_t &d : dims)
    d = r.axis(d, r.rank(0));
  Dims out;
  r.check(rules::permute(r.shape(0), dims, out));
  bool identity = true;
  for (size_t i = 0; i < dims.size(); ++i)
    identity &= dims[i] == (int64_t)i;
  if (identity)
    return x;
  return r.make(r.dtype(0), vec(out), {ops::Permute::dims(dims)});
}

Tensor kiln::transpose(const Tensor &x, int64_t d0, int64_t d1) {
  const NodePtr &n = nodeOf(x, ops::Permute::name);
  int64_t rank = n->shape.size();
  Recorder r(ops::Permute::name, {&x});
  d0 = r.axis(d0, rank);
  d1 = r.axis(d1, rank);
  std::vector<int64_t> dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[d0], dims[d1]);
  return permute(x, dims);
}

Tensor kiln::expand(const Tensor &x, Shape shape) {
  Recorder r(ops::Expand::name, {&x});
  Dims out;
  r.check(rules::expand(r.shape(0), shape.dims(), out));
  if (vec(out) == r.shape(0))
    return x;
  return r.make(r.dtype(0), vec(out), {ops::Expand::shape(vec(out))});
}

Tensor kiln::slice(const Tensor &x, std::vector<int64_t> starts,
                   std::vector<int64_t> ends, std::vector<int64_t> steps) {
  Recorder r(ops::Slice::name, {&x});
  normalizeSlice(r, r.shape(0), starts, ends, steps);
  Dims out;
  r.check(rules::slice(r.shape(0), starts, ends, steps, out));
  return r.make(r.dtype(0), vec(out),
                {ops::Slice::starts(starts), ops::Slice::ends(ends),
                 ops::Slice::steps(steps)});
}

Tensor kiln::sliceAssign(const Tensor &dest, const Tensor &value,
                         std::vector<int64_t> starts, std::vector<int64_t> ends,
                         std::vector<int64_t> steps) {
  Recorder r(ops::SliceAssign::name, {&value, &dest});
  r.requireSameDType(0, 1);
  normalizeSlice(r, r.shape(1), starts, ends, steps);
  r.check(rules::sliceAssign(r.shape(1), r.shape(0), starts, ends, steps));
  return r.make(r.dtype(1), r.shape(1),
                {ops::SliceAssign::starts(starts), ops::SliceAssign::ends(ends),
                 ops::SliceAssign::steps(steps)});
}

Tensor kiln::concat(const std::vector<Tensor> &xs, int64_t axis) {
  std::vector<const Tensor *> ptrs;
  for (const Tensor &t : xs)
    ptrs.push_back(&t);
  Recorder r(ops::Concat::name, ptrs);
  if (xs.empty())
    r.fail("needs at least one tensor");
  for (size_t i = 1; i < xs.size(); ++i)
    r.requireSameDType(0, i);
  axis = r.axis(axis, r.rank(0));
  if (xs.size() == 1)
    return xs.front();
  std::vector<rules::DimsRef> shapes;
  for (size_t i = 0; i < xs.size(); ++i)
    shapes.push_back(r.shape(i));
  Dims out;
  r.check(rules::concat(shapes, axis, out));
  return r.make(r.dtype(0), vec(out), {ops::Concat::axis(axis)});
}

std::vector<Tensor> kiln::split(const Tensor &x, std::vector<int64_t> sizes,
                                int64_t axis) {
  Recorder r(ops::Split::name, {&x});
  axis = r.axis(axis, r.rank(0));
  std::vector<Dims> outs;
  r.check(rules::split(r.shape(0), sizes, axis, outs));
  // Each piece is a slice, so pieces stay independent lazy values.
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t s : sizes) {
    std::vector<int64_t> starts(r.rank(0), 0), ends = r.shape(0);
    starts[axis] = start;
    ends[axis] = start + s;
    pieces.push_back(slice(x, starts, ends));
    start += s;
  }
  return pieces;
}

Tensor kiln::squeeze(const Tensor &x, std::vector<int64_t> axes) {
  Recorder r(ops::Squeeze::name, {&x});
  axes = r.axes(axes, r.rank(0));
  std::sort(axes.begin(), axes.end());
  if (axes.empty())
    return x;
  Dims out;
  r.check(rules::squeeze(r.shape(0), axes, out));
  return r.make(r.dtype(0), vec(out), {ops::Squeeze::axes(axes)});
}

Tensor kiln::unsqueeze(const Tensor &x, std::vector<int64_t> axes) {
  Recorder r(ops::Unsqueeze::name, {&x});
  int64_t rank = r.rank(0) + axes.size();
  axes = r.axes(axes, rank);
  std::sort(axes.begin(), axes.end());
  if (axes.empty())
    return x;
  Dims out;
  r.check(rules::unsqueeze(r.shape(0), axes, out));
  return r.make(r.dtype(0), vec(out), {ops::Unsqueeze::axes(axes)});
}

Tensor kiln::flip(const Tensor &x, std::vector<int64_t> axes) {
  Recorder r(ops::Flip::name, {&x});
  axes = r.axes(axes, r.rank(0));
  std::sort(axes.begin(), axes.end());
  if (axes.empty())
    return x;
  return r.make(r.dtype(0), r.shape(0), {ops::Flip::axes(axes)});
}

Tensor kiln::repeat(const Tensor &x, std::vector<int64_t> repeats) {
  Recorder r(ops::Repeat::name, {&x});
  Dims out;
  r.check(rules::repeat(r.shape(0), repeats, out));
  return r.make(r.dtype(0), vec(out), {ops::Repeat::repeats(repeats)});
}

Tensor kiln::pad(const Tensor &x, std::vector<int64_t> low,
                 std::vector<int64_t> high, double value) {
  Recorder r(ops::Pad::name, {&x});
  Dims out;
  r.check(rules::pad(r.shape(0), low, high, out));
  if (r.dtype(0).isBool() && value != 0 && value != 1)
    r.fail("pad value " + std::to_string(value) + " is not a bool (0 or 1)");
  if (r.dtype(0).isInteger() && value != std::trunc(value))
    r.fail("pad value " + std::to_string(value) + " is not an integer");
  return r.make(
      r.dtype(0), vec(out),
      {ops::Pad::low(low), ops::Pad::high(high), ops::Pad::value(value)});
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

Tensor kiln::gather(const Tensor &x, int64_t axis, const Tensor &indices) {
  Recorder r(ops::Gather::name, {&x, &indices});
  r.requireIndex(1);
  axis = r.axis(axis, r.rank(0));
  Dims out;
  r.check(rules::gather(r.shape(0), r.shape(1), axis, out));
  r.checkIndices(1, r.shape(0)[axis], Shape(vec(out)).numel());
  return r.make(r.dtype(0), vec(out), {ops::Gather::axis(axis)});
}

Tensor kiln::argsort(const Tensor &x, int64_t axis, bool descending) {
  Recorder r(ops::Argsort::name, {&x});
  axis = r.axis(axis, r.rank(0));
  std::vector<NodeAttr> attrs{ops::Argsort::axis(axis)};
  if (descending)
    attrs.push_back(ops::Argsort::descending());
  return r.make(DType::I64, r.shape(0), std::move(attrs));
}

Tensor kiln::sort(const Tensor &x, int64_t axis, bool descending) {
  return gather(x, axis, argsort(x, axis, descending));
}

std::pair<Tensor, Tensor> kiln::topk(const Tensor &x, int64_t k, int64_t axis,
                                     bool largest) {
  Tensor order = argsort(x, axis, largest); // checks x and the axis
  std::vector<int64_t> ends = order.shape().dims();
  auto rank = static_cast<int64_t>(ends.size());
  axis = axis < 0 ? axis + rank : axis;
  if (k < 0 || k > ends[axis])
    throw Error("topk: k = " + std::to_string(k) + " is not in [0, " +
                std::to_string(ends[axis]) + "], the size of axis " +
                std::to_string(axis) + " of " + x.shape().str());
  ends[axis] = k;
  Tensor indices = order.slice(std::vector<int64_t>(rank, 0), ends,
                               std::vector<int64_t>(rank, 1));
  return {gather(x, axis, indices), indices};
}

Tensor kiln::scatterAdd(const Tensor &x, int64_t axis, const Tensor &indices,
                        const Tensor &updates) {
  Recorder r(ops::ScatterAdd::name, {&updates, &x, &indices});
  r.requireSameDType(0, 1);
  r.requireIndex(2);
  axis = r.axis(axis, r.rank(1));
  r.check(rules::scatterAdd(r.shape(1), r.shape(2), r.shape(0), axis));
  r.checkIndices(2, r.shape(1)[axis], Shape(r.shape(0)).numel());
  return r.make(r.dtype(1), r.shape(1), {ops::ScatterAdd::axis(axis)});
}

Tensor kiln::indexSelect(const Tensor &x, int64_t axis, const Tensor &indices) {
  Recorder r(ops::IndexSelect::name, {&x, &indices});
  r.requireIndex(1);
  axis = r.axis(axis, r.rank(0));
  Dims out;
  r.check(rules::indexSelect(r.shape(0), r.shape(1), axis, out));
  r.checkIndices(1, r.shape(0)[axis], Shape(vec(out)).numel());
  return r.make(r.dtype(0), vec(out), {ops::IndexSelect::axis(axis)});
}

Tensor kiln::maskFill(const Tensor &x, const Tensor &mask, double value) {
  Recorder r(ops::MaskFill::name, {&x, &mask});
  Dims unused;
  r.check(rules::expand(r.shape(1), r.shape(0), unused));
  (void)scalarLike(ops::MaskFill::name, x, value); // checks that it fits
  return r.make(r.dtype(0), r.shape(0), {ops::MaskFill::value(value)});
}

Tensor kiln::oneHot(const Tensor &indices, int64_t numClasses, DType dtype) {
  Recorder r(ops::OneHot::name, {&indices});
  r.requireIndex(0);
  if (numClasses < 1)
    r.fail("numClasses must be >= 1, got " + std::to_string(numClasses));
  if (dtype.isQuantized())
    r.fail("result dtype cannot be " + dtype.str());
  std::vector<int64_t> out = r.shape(0);
  out.push_back(numClasses);
  return r.make(dtype, out);
}

Tensor kiln::embedding(const Tensor &weight, const Tensor &indices) {
  Recorder r(ops::Embedding::name, {&weight, &indices});
  r.requireIndex(1);
  Dims out;
  r.check(rules::embedding(r.shape(0), r.shape(1), out));
  r.checkIndices(1, r.shape(0)[0], Shape(vec(out)).numel());
  return r.make(r.dtype(0), vec(out));
}

//===----------------------------------------------------------------------===//
// Neural-network ops
//===----------------------------------------------------------------------===//

template <typename Op>
static Tensor convImpl(const Tensor &x, const Tensor &w,
                       const std::optional<Tensor> &bias, ConvOptions o,
                       size_t spatial) {
  std::vector<const Tensor *> operands{&x, &w};
  if (bias)
    operands.push_back(&*bias);
  Recorder r(Op::name, operands);
  for (size_t i = 1; i < operands.size(); ++i)
    r.requireSameDType(0, i);
  if (o.stride.empty())
    o.stride.assign(spatial, 1);
  if (o.padding.empty())
    o.padding.assign(spatial, 0);
  if (o.dilation.empty())
    o.dilation.assign(spatial, 1);
  rules::DimsRef biasShape = bias ? rules::DimsRef(r.shape(2)) : rules::DimsRef();
  Dims out;
  r.check(rules::conv(r.shape(0), r.shape(1), bias ? &biasShape : nullptr,
                      o.stride, o.padding, o.dilation, o.groups, out));
  return r.make(r.dtype(0), vec(out),
                {Op::stride(o.stride), Op::padding(o.padding),
                 Op::dilation(o.dilation), Op::groups(o.groups)});
}

Tensor kiln::conv2d(const Tensor &x, const Tensor &weight,
                    const std::optional<Tensor> &bias, ConvOptions options) {
  return convImpl<ops::Conv2d>(x, weight, bias, std::move(options), 2);
}

Tensor kiln::conv1d(const Tensor &x, const Tensor &weight,
                    const std::optional<Tensor> &bias, ConvOptions options) {
  return convImpl<ops::Conv1d>(x, weight, bias, std::move(options), 1);
}

template <typename Op>
static Tensor convTransposeImpl(const Tensor &x, const Tensor &w,
                                const std::optional<Tensor> &bias,
                                ConvTransposeOptions o, size_t spatial) {
  std::vector<const Tensor *> operands{&x, &w};
  if (bias)
    operands.push_back(&*bias);
  Recorder r(Op::name, operands);
  for (size_t i = 1; i < operands.size(); ++i)
    r.requireSameDType(0, i);
  auto orDefault = [&](std::vector<int64_t> &v, int64_t value) {
    if (v.empty())
      v.assign(spatial, value);
  };
  orDefault(o.stride, 1);
  orDefault(o.padding, 0);
  orDefault(o.outputPadding, 0);
  orDefault(o.dilation, 1);
  rules::DimsRef biasShape =
      bias ? rules::DimsRef(r.shape(2)) : rules::DimsRef();
  Dims out;
  r.check(rules::convTranspose(r.shape(0), r.shape(1),
                               bias ? &biasShape : nullptr, o.stride, o.padding,
                               o.outputPadding, o.dilation, o.groups, out));
  return r.make(r.dtype(0), vec(out),
                {Op::stride(o.stride), Op::padding(o.padding),
                 Op::outputPadding(o.outputPadding), Op::dilation(o.dilation),
                 Op::groups(o.groups)});
}

Tensor kiln::convTranspose2d(const Tensor &x, const Tensor &weight,
                             const std::optional<Tensor> &bias,
                             ConvTransposeOptions options) {
  return convTransposeImpl<ops::ConvTranspose2d>(x, weight, bias,
                                                 std::move(options), 2);
}

Tensor kiln::convTranspose1d(const Tensor &x, const Tensor &weight,
                             const std::optional<Tensor> &bias,
                             ConvTransposeOptions options) {
  return convTransposeImpl<ops::ConvTranspose1d>(x, weight, bias,
                                                 std::move(options), 1);
}

template <typename Op>
static Tensor poolImpl(const Tensor &x, std::vector<int64_t> kernel,
                       std::vector<int64_t> stride,
                       std::vector<int64_t> padding, bool countIncludePad) {
  Recorder r(Op::name, {&x});
  if (stride.empty())
    stride = kernel;
  Dims out;
  r.check(rules::pool2d(r.shape(0), kernel, stride, padding, out));
  std::vector<NodeAttr> attrs{Op::kernel(kernel), Op::stride(stride),
                              Op::padding(padding)};
  if constexpr (std::is_same_v<Op, ops::AvgPool2d>)
    if (countIncludePad)
      attrs.push_back(Op::countIncludePad());
  return r.make(r.dtype(0), vec(out), attrs);
}

Tensor kiln::maxPool2d(const Tensor &x, std::vector<int64_t> kernel,
                       std::vector<int64_t> stride,
                       std::vector<int64_t> padding) {
  return poolImpl<ops::MaxPool2d>(x, std::move(kernel), std::move(stride),
                                  std::move(padding), false);
}

Tensor kiln::avgPool2d(const Tensor &x, std::vector<int64_t> kernel,
                       std::vector<int64_t> stride,
                       std::vector<int64_t> padding, bool countIncludePad) {
  return poolImpl<ops::AvgPool2d>(x, std::move(kernel), std::move(stride),
                                  std::move(padding), countIncludePad);
}

/// Fills the defaults of `o` and checks it for `x`: the output shape.
static Dims poolShape(const Recorder &r, PoolOptions &o, bool dilated) {
  size_t sp = o.kernel.size();
  if (o.stride.empty())
    o.stride = o.kernel;
  if (o.padding.empty())
    o.padding.assign(sp, 0);
  if (o.dilation.empty())
    o.dilation.assign(sp, 1);
  if (!dilated && std::any_of(o.dilation.begin(), o.dilation.end(),
                              [](int64_t d) { return d != 1; }))
    r.fail("average pooling has no dilation");
  Dims out;
  r.check(rules::pool(r.shape(0), o.kernel, o.stride, o.padding, o.dilation,
                      o.ceilMode, out));
  return out;
}

/// kiln.max_pool (values of x's dtype) or kiln.max_pool_indices (i64).
template <typename Op>
static Tensor recordMaxPool(const Tensor &x, PoolOptions o) {
  Recorder r(Op::name, {&x});
  Dims out = poolShape(r, o, true);
  std::vector<NodeAttr> attrs{Op::kernel(o.kernel), Op::stride(o.stride),
                              Op::padding(o.padding), Op::dilation(o.dilation)};
  if (o.ceilMode)
    attrs.push_back(Op::ceilMode());
  constexpr bool indices = std::is_same_v<Op, ops::MaxPoolIndices>;
  return r.make(indices ? DType::I64 : r.dtype(0), vec(out), attrs);
}

Tensor kiln::maxPool(const Tensor &x, PoolOptions options) {
  return recordMaxPool<ops::MaxPool>(x, std::move(options));
}

std::pair<Tensor, Tensor> kiln::maxPoolWithIndices(const Tensor &x,
                                                   PoolOptions options) {
  Tensor values = maxPool(x, options);
  return {values, recordMaxPool<ops::MaxPoolIndices>(x, std::move(options))};
}

Tensor kiln::avgPool(const Tensor &x, PoolOptions o) {
  Recorder r(ops::AvgPool::name, {&x});
  Dims out = poolShape(r, o, false);
  std::vector<NodeAttr> attrs{ops::AvgPool::kernel(o.kernel),
                              ops::AvgPool::stride(o.stride),
                              ops::AvgPool::padding(o.padding)};
  if (o.countIncludePad)
    attrs.push_back(ops::AvgPool::countIncludePad());
  if (o.ceilMode)
    attrs.push_back(ops::AvgPool::ceilMode());
  return r.make(r.dtype(0), vec(out), attrs);
}

Tensor kiln::interpolate(const Tensor &x, InterpolateOptions o) {
  Recorder r(ops::Interpolate::name, {&x});
  bool linear = o.mode == "linear" || o.mode == "bilinear";
  if (!linear && o.mode != "nearest")
    r.fail("mode must be nearest, linear or bilinear, got '" + o.mode + "'");
  if (o.size.empty() == o.scale.empty())
    r.fail("give either a size or a scale, not both or neither");
  size_t sp = r.rank(0) >= 2 ? size_t(r.rank(0) - 2) : 0;
  if (!o.scale.empty()) {
    if (o.scale.size() != sp)
      r.fail("scale needs " + std::to_string(sp) + " entries, got " +
             std::to_string(o.scale.size()));
    for (size_t i = 0; i < sp; ++i) {
      double s = o.scale[i];
      if (!(s > 0) || !std::isfinite(s))
        r.fail("scales must be finite and > 0, got " + std::to_string(s));
      o.size.push_back(int64_t(std::floor(double(r.shape(0)[2 + i]) * s)));
    }
  }
  Dims out;
  r.check(rules::interpolate(r.shape(0), o.size, linear, o.alignCorners,
                             o.scale, out));
  std::vector<NodeAttr> attrs{
      ops::Interpolate::size(o.size),
      ops::Interpolate::mode(linear ? ops::InterpolateMode::Linear
                                    : ops::InterpolateMode::Nearest)};
  if (!o.scale.empty())
    attrs.push_back(ops::Interpolate::scales(o.scale));
  if (o.alignCorners)
    attrs.push_back(ops::Interpolate::alignCorners());
  return r.make(r.dtype(0), vec(out), attrs);
}

Tensor kiln::layerNorm(const Tensor &x, const std::optional<Tensor> &weight,
                       const std::optional<Tensor> &bias, double eps) {
  std::vector<const Tensor *> operands{&x};
  if (weight)
    operands.push_back(&*weight);
  if (bias)
    operands.push_back(&*bias);
  Recorder r(ops::LayerNorm::name, operands);
  for (size_t i = 1; i < operands.size(); ++i)
    r.requireSameDType(0, i);
  if (!(eps >= 0))
    r.fail("eps must be >= 0, got " + std::to_string(eps));
  rules::DimsRef ws = weight ? rules::DimsRef(r.shape(1)) : rules::DimsRef();
  rules::DimsRef bs =
      bias ? rules::DimsRef(r.shape(weight ? 2 : 1)) : rules::DimsRef();
  r.check(rules::layerNorm(r.shape(0), weight ? &ws : nullptr,
                           bias ? &bs : nullptr));
  return r.make(r.dtype(0), r.shape(0),
                {ops::LayerNorm::eps(eps),
                 NodeAttr::segments({1, weight ? 1 : 0, bias ? 1 : 0})});
}

Tensor kiln::rmsNorm(const Tensor &x, const std::optional<Tensor> &weight,
                     double eps) {
  std::vector<const Tensor *> operands{&x};
  if (weight)
    operands.push_back(&*weight);
  Recorder r(ops::RmsNorm::name, operands);
  if (weight)
    r.requireSameDType(0, 1);
  if (!(eps >= 0))
    r.fail("eps must be >= 0, got " + std::to_string(eps));
  rules::DimsRef ws = weight ? rules::DimsRef(r.shape(1)) : rules::DimsRef();
  r.check(rules::layerNorm(r.shape(0), weight ? &ws : nullptr, nullptr));
  return r.make(r.dtype(0), r.shape(0), {ops::RmsNorm::eps(eps)});
}

Tensor kiln::rope(const Tensor &x, double theta,
                  const std::optional<Tensor> &offset, bool interleaved) {
  std::vector<const Tensor *> operands{&x};
  if (offset)
    operands.push_back(&*offset);
  Recorder r(ops::Rope::name, operands);
  r.check(rules::rope(r.shape(0), theta));
  if (offset && r.rank(1) != 0)
    r.fail("the offset must be a rank-0 i64 tensor");
  std::vector<NodeAttr> attrs{ops::Rope::theta(theta)};
  if (interleaved)
    attrs.push_back(ops::Rope::interleaved());
  return r.make(r.dtype(0), r.shape(0), std::move(attrs));
}

Tensor kiln::batchNorm(const Tensor &x, const Tensor &mean, const Tensor &var,
                       const std::optional<Tensor> &weight,
                       const std::optional<Tensor> &bias, double eps) {
  std::vector<const Tensor *> operands{&x, &mean, &var};
  if (weight)
    operands.push_back(&*weight);
  if (bias)
    operands.push_back(&*bias);
  Recorder r(ops::BatchNorm::name, operands);
  for (size_t i = 1; i < operands.size(); ++i)
    r.requireSameDType(0, i);
  if (!(eps >= 0))
    r.fail("eps must be >= 0, got " + std::to_string(eps));
  rules::DimsRef ws = weight ? rules::DimsRef(r.shape(3)) : rules::DimsRef();
  rules::DimsRef bs =
      bias ? rules::DimsRef(r.shape(weight ? 4 : 3)) : rules::DimsRef();
  r.check(rules::batchNorm(r.shape(0), r.shape(1), r.shape(2),
                           weight ? &ws : nullptr, bias ? &bs : nullptr));
  return r.make(r.dtype(0), r.shape(0),
                {ops::BatchNorm::eps(eps),
                 NodeAttr::segments({1, 1, 1, weight ? 1 : 0, bias ? 1 : 0})});
}

Tensor kiln::batchNormTraining(const Tensor &x, Tensor *runningMean,
                               Tensor *runningVar,
                               const std::optional<Tensor> &weight,
                               const std::optional<Tensor> &bias,
                               double momentum, double eps) {
  {
    Recorder r(ops::BatchNorm::name, {&x});
    if (r.rank(0) < 2)
      r.fail("input must be [N, C, ...] (rank >= 2), got " +
             describe(*r.node(0)));
    if ((runningMean == nullptr) != (runningVar == nullptr))
      r.fail("give both running statistics or neither");
    if (!(momentum >= 0 && momentum <= 1))
      r.fail("momentum must be in [0, 1], got " + std::to_string(momentum));
    int64_t count =
        Shape(r.shape(0)).numel() / std::max<int64_t>(r.shape(0)[1], 1);
    if (runningVar && count < 2)
      r.fail("the unbiased variance of the running statistics needs more "
             "than one value per channel, got " +
             describe(*r.node(0)));
  }
  std::vector<int64_t> axes{0};
  for (int64_t i = 2; i < (int64_t)x.rank(); ++i)
    axes.push_back(i);
  // The statistics' gradients, written so that the backward pass takes two
  // sums per channel (of g and of g * (x - mean)) and one elementwise
  // pass. The mean is held constant where x is centred: the centred values
  // sum to zero, so the variance's gradient through the mean vanishes and
  // is not computed. The mean's own gradient, -sum(g) * scale per channel,
  // comes from a term of value zero, (held mean - mean) * held scale,
  // added to y as the bias is. x is centred as batch_norm centres it, so
  // that the two are one value.
  Tensor flatMean = mean(x, axes, /*keepdim=*/false);
  Tensor heldMean = flatMean.detach();
  Tensor centered = x - unsqueeze(heldMean, axes);
  Tensor var = mean(centered * centered, axes, /*keepdim=*/false);
  Tensor y = batchNorm(x, heldMean, var, weight, bias, eps);
  Tensor scale = rsqrt(var.detach() + eps);
  if (weight)
    scale = scale * weight->detach();
  y = y + unsqueeze((heldMean - flatMean) * scale, axes);
  if (runningMean) {
    NoGradGuard noGrad;
    double count = double(x.numel() / x.shape()[1]);
    *runningMean = *runningMean * (1 - momentum) + heldMean * momentum;
    *runningVar = *runningVar * (1 - momentum) +
                  var.detach() * (momentum * count / (count - 1));
  }
  return y;
}

Tensor kiln::groupNorm(const Tensor &x, int64_t groups,
                       const std::optional<Tensor> &weight,
                       const std::optional<Tensor> &bias, double eps) {
  std::vector<const Tensor *> operands{&x};
  if (weight)
    operands.push_back(&*weight);
  if (bias)
    operands.push_back(&*bias);
  Recorder r(ops::GroupNorm::name, operands);
  for (size_t i = 1; i < operands.size(); ++i)
    r.requireSameDType(0, i);
  if (!(eps >= 0))
    r.fail("eps must be >= 0, got " + std::to_string(eps));
  rules::DimsRef ws = weight ? rules::DimsRef(r.shape(1)) : rules::DimsRef();
  rules::DimsRef bs =
      bias ? rules::DimsRef(r.shape(weight ? 2 : 1)) : rules::DimsRef();
  r.check(rules::groupNorm(r.shape(0), weight ? &ws : nullptr,
                           bias ? &bs : nullptr, groups));
  return r.make(r.dtype(0), r.shape(0),
                {ops::GroupNorm::groups(groups), ops::GroupNorm::eps(eps),
                 NodeAttr::segments({1, weight ? 1 : 0, bias ? 1 : 0})});
}

Tensor kiln::instanceNorm(const Tensor &x, const std::optional<Tensor> &weight,
                          const std::optional<Tensor> &bias, double eps) {
  if (x.rank() < 2) {
    Recorder r(ops::GroupNorm::name, {&x});
    r.fail("instance norm needs [N, C, ...] (rank >= 2), got " +
           describe(*r.node(0)));
  }
  return groupNorm(x, x.shape()[1], weight, bias, eps);
}

template <typename Op>
static Tensor adaptivePoolImpl(const Tensor &x, std::vector<int64_t> size) {
  Recorder r(Op::name, {&x});
  Dims out;
  r.check(rules::adaptivePool2d(r.shape(0), size, out));
  return r.make(r.dtype(0), vec(out), {Op::size(size)});
}

Tensor kiln::adaptiveAvgPool2d(const Tensor &x, std::vector<int64_t> size) {
  return adaptivePoolImpl<ops::AdaptiveAvgPool2d>(x, std::move(size));
}

Tensor kiln::adaptiveMaxPool2d(const Tensor &x, std::vector<int64_t> size) {
  return adaptivePoolImpl<ops::AdaptiveMaxPool2d>(x, std::move(size));
}

Tensor kiln::dropout(const Tensor &x, double p, uint64_t seed,
                     const std::optional<Tensor> &offset) {
  std::vector<const Tensor *> operands{&x};
  if (offset)
    operands.push_back(&*offset);
  Recorder r(ops::Dropout::name, operands);
  if (!(p >= 0 && p < 1))
    r.fail("p must be in [0, 1), got " + std::to_string(p));
  if (offset && r.rank(1) != 0)
    r.fail("the offset must be a rank-0 i64 tensor");
  return r.make(
      r.dtype(0), r.shape(0),
      {ops::Dropout::p(p), ops::Dropout::seed(static_cast<int64_t>(seed))});
}

Tensor kiln::crossEntropy(const Tensor &logits, const Tensor &labels,
                          const CrossEntropyOptions &o) {
  Recorder r(ops::CrossEntropy::name, {&logits, &labels});
  r.requireIndex(1);
  Dims out;
  r.check(rules::crossEntropy(r.shape(0), r.shape(1),
                              o.reduction == LossReduction::None, out));
  if (!(o.labelSmoothing >= 0 && o.labelSmoothing <= 1))
    r.fail("label_smoothing must be in [0, 1], got " +
           std::to_string(o.labelSmoothing));
  r.checkIndices(1, r.shape(0)[1], Shape(r.shape(1)).numel(), o.ignoreIndex);
  std::vector<NodeAttr> attrs;
  if (o.ignoreIndex != -100)
    attrs.push_back(ops::CrossEntropy::ignoreIndex(o.ignoreIndex));
  if (o.labelSmoothing != 0)
    attrs.push_back(ops::CrossEntropy::labelSmoothing(o.labelSmoothing));
  if (o.reduction != LossReduction::Mean)
    attrs.push_back(ops::CrossEntropy::reduction(
        o.reduction == LossReduction::None ? ops::LossReduction::None
                                           : ops::LossReduction::Sum));
  return r.make(r.dtype(0), vec(out), std::move(attrs));
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

Tensor kiln::quantize(const Tensor &x, QuantScheme scheme) {
  Recorder r(ops::Quantize::name, {&x});
  DType scale(scheme.scale);
  if (!scale.isFloat())
    r.fail("the scale dtype must be a float, not " + scale.str());
  if (scheme.blockSize < 0)
    r.fail("block size must be positive, got " +
           std::to_string(scheme.blockSize));
  if (!scheme.isPerTensor()) {
    if (r.rank(0) == 0)
      r.fail("per-block quantization needs rank >= 1");
    int64_t last = r.shape(0).back();
    if (last % scheme.blockSize != 0)
      r.fail("last dim " + std::to_string(last) +
             " is not a multiple of the block size " +
             std::to_string(scheme.blockSize));
  }
  return r.make(DType::QFloat(scheme), r.shape(0));
}

Tensor kiln::dequantize(const Tensor &q, DType dtype) {
  Recorder r(ops::Dequantize::name, {&q});
  if (!r.dtype(0).isQuantized())
    r.fail("operand is " + r.dtype(0).str() + ", not quantized");
  if (!dtype.isFloat())
    r.fail("result dtype must be a float, not " + dtype.str());
  return r.make(dtype, r.shape(0));
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

Tensor kiln::operator-(const Tensor &x) { return neg(x); }
Tensor kiln::operator+(const Tensor &x, const Tensor &y) { return add(x, y); }
Tensor kiln::operator-(const Tensor &x, const Tensor &y) { return sub(x, y); }
Tensor kiln::operator*(const Tensor &x, const Tensor &y) { return mul(x, y); }
Tensor kiln::operator/(const Tensor &x, const Tensor &y) { return div(x, y); }
Tensor kiln::operator%(const Tensor &x, const Tensor &y) { return rem(x, y); }
Tensor kiln::operator+(const Tensor &x, double y) {
  return add(x, scalarLike(ops::Add::name, x, y));
}
Tensor kiln::operator-(const Tensor &x, double y) {
  return sub(x, scalarLike(ops::Sub::name, x, y));
}
Tensor kiln::operator*(const Tensor &x, double y) {
  return mul(x, scalarLike(ops::Mul::name, x, y));
}
Tensor kiln::operator/(const Tensor &x, double y) {
  return div(x, scalarLike(ops::Div::name, x, y));
}
Tensor kiln::operator%(const Tensor &x, double y) {
  return rem(x, scalarLike(ops::Rem::name, x, y));
}
Tensor kiln::operator+(double x, const Tensor &y) {
  return add(scalarLike(ops::Add::name, y, x), y);
}
Tensor kiln::operator-(double x, const Tensor &y) {
  return sub(scalarLike(ops::Sub::name, y, x), y);
}
Tensor kiln::operator*(double x, const Tensor &y) {
  return mul(scalarLike(ops::Mul::name, y, x), y);
}
Tensor kiln::operator/(double x, const Tensor &y) {
  return div(scalarLike(ops::Div::name, y, x), y);
}
Tensor kiln::operator==(const Tensor &x, const Tensor &y) { return eq(x, y); }
Tensor kiln::operator!=(const Tensor &x, const Tensor &y) { return ne(x, y); }
Tensor kiln::operator<(const Tensor &x, const Tensor &y) { return lt(x, y); }
Tensor kiln::operator<=(const Tensor &x, const Tensor &y) { return le(x, y); }
Tensor kiln::operator>(const Tensor &x, const Tensor &y) { return gt(x, y); }
Tensor kiln::operator>=(const Tensor &x, const Tensor &y) { return ge(x, y); }
Tensor kiln::operator==(const Tensor &x, double y) {
  return eq(x, scalarLike(ops::Eq::name, x, y));
}
Tensor kiln::operator!=(const Tensor &x, double y) {
  return ne(x, scalarLike(ops::Ne::name, x, y));
}
Tensor kiln::operator<(const Tensor &x, double y) {
  return lt(x, scalarLike(ops::Lt::name, x, y));
}
Tensor kiln::operator<=(const Tensor &x, double y) {
  return le(x, scalarLike(ops::Le::name, x, y));
}
Tensor kiln::operator>(const Tensor &x, double y) {
  return gt(x, scalarLike(ops::Gt::name, x, y));
}
Tensor kiln::operator>=(const Tensor &x, double y) {
  return ge(x, scalarLike(ops::Ge::name, x, y));
}
Tensor kiln::operator&(const Tensor &x, const Tensor &y) {
  return logicalAnd(x, y);
}
Tensor kiln::operator|(const Tensor &x, const Tensor &y) {
  return logicalOr(x, y);
}
Tensor kiln::operator!(const Tensor &x) { return logicalNot(x); }

//===----------------------------------------------------------------------===//
// Member sugar and in-place forms
//===----------------------------------------------------------------------===//

Tensor DispatchTensor::reshape(Shape s) const { return kiln::reshape(*this, s); }
Tensor DispatchTensor::permute(std::vector<int64_t> d) const {
  return kiln::permute(*this, std::move(d));
}
Tensor DispatchTensor::transpose(int64_t d0, int64_t d1) const {
  return kiln::transpose(*this, d0, d1);
}
Tensor DispatchTensor::expand(Shape s) const { return kiln::expand(*this, s); }
Tensor DispatchTensor::squeeze(std::vector<int64_t> axes) const {
  return kiln::squeeze(*this, std::move(axes));
}
Tensor DispatchTensor::unsqueeze(int64_t axis) const {
  return kiln::unsqueeze(*this, {axis});
}
Tensor DispatchTensor::flatten() const { return kiln::reshape(*this, {-1}); }
Tensor DispatchTensor::slice(std::vector<int64_t> starts,
                             std::vector<int64_t> ends,
                             std::vector<int64_t> steps) const {
  return kiln::slice(*this, std::move(starts), std::move(ends),
                     std::move(steps));
}
Tensor DispatchTensor::narrow(int64_t axis, int64_t start,
                              int64_t length) const {
  Recorder r(ops::Slice::name, {this});
  axis = r.axis(axis, r.rank(0));
  std::vector<int64_t> starts(r.rank(0), 0), ends = r.shape(0);
  starts[axis] = start;
  ends[axis] = start + length;
  if (start < 0 || length < 0 || start + length > r.shape(0)[axis])
    r.fail("narrow [" + std::to_string(start) + ", " +
           std::to_string(start + length) + ") is outside dim " +
           std::to_string(axis) + " of size " +
           std::to_string(r.shape(0)[axis]));
  return kiln::slice(*this, starts, ends);
}
Tensor DispatchTensor::cast(DType d) const { return kiln::cast(*this, d); }
Tensor DispatchTensor::sum(int64_t axis, bool keepdim) const {
  return kiln::sum(*this, {axis}, keepdim);
}
Tensor DispatchTensor::sum() const { return kiln::sum(*this); }
Tensor DispatchTensor::mean(int64_t axis, bool keepdim) const {
  return kiln::mean(*this, {axis}, keepdim);
}
Tensor DispatchTensor::mean() const { return kiln::mean(*this); }
Tensor DispatchTensor::prod(int64_t axis, bool keepdim) const {
  return kiln::prod(*this, {axis}, keepdim);
}
Tensor DispatchTensor::max(int64_t axis, bool keepdim) const {
  return kiln::max(*this, {axis}, keepdim);
}
Tensor DispatchTensor::max() const { return kiln::max(*this); }
Tensor DispatchTensor::min(int64_t axis, bool keepdim) const {
  return kiln::min(*this, {axis}, keepdim);
}
Tensor DispatchTensor::min() const { return kiln::min(*this); }
Tensor DispatchTensor::argmax(int64_t axis, bool keepdim) const {
  return kiln::argmax(*this, axis, keepdim);
}
Tensor DispatchTensor::argmin(int64_t axis, bool keepdim) const {
  return kiln::argmin(*this, axis, keepdim);
}
Tensor DispatchTensor::any(int64_t axis, bool keepdim) const {
  return kiln::any(*this, {axis}, keepdim);
}
Tensor DispatchTensor::all(int64_t axis, bool keepdim) const {
  return kiln::all(*this, {axis}, keepdim);
}
Tensor DispatchTensor::cumsum(int64_t axis) const {
  return kiln::cumsum(*this, axis);
}
Tensor DispatchTensor::softmax(int64_t axis) const {
  return kiln::softmax(*this, axis);
}
Tensor DispatchTensor::logSoftmax(int64_t axis) const {
  return kiln::logSoftmax(*this, axis);
}
Tensor DispatchTensor::matmul(const Tensor &other) const {
  return kiln::matmul(*this, other);
}

/// In-place updates rebind the handle; the engine writes the old buffer when
/// nothing else can still read it.
Tensor &DispatchTensor::addInPlace(const Tensor &other) {
  return assign(kiln::add(*this, other));
}
Tensor &DispatchTensor::subInPlace(const Tensor &other) {
  return assign(kiln::sub(*this, other));
}
Tensor &DispatchTensor::mulInPlace(const Tensor &other) {
  return assign(kiln::mul(*this, other));
}
Tensor &DispatchTensor::sliceAssignInPlace(const Tensor &value,
                                           std::vector<int64_t> starts,
                                           std::vector<int64_t> ends,
                                           std::vector<int64_t> steps) {
  return assign(kiln::sliceAssign(*this, value, std::move(starts),
                                  std::move(ends), std::move(steps)));
}
Tensor &DispatchTensor::assign(const Tensor &value) {
  const NodePtr &n = nodeOf(value, "assign");
  if (kind.node && (n->shape != kind.node->shape || n->dtype != kind.node->dtype))
    throw Error("assign: cannot replace " + describe(*kind.node) + " with " +
                describe(*n));
  kind.node = n;
  checkpointing = n->checkpointing;
  return *this;
}
