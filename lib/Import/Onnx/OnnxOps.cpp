//===- OnnxOps.cpp - ONNX op types as Kiln ops ----------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One mapping per op type of the default domain. Ops Kiln has map onto
// them; the others are compositions of Kiln ops (which Kiln fuses). An
// attribute or input form a mapping does not handle is an error naming it,
// never ignored.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace kiln;
using namespace kiln::onnx;
using namespace kiln::onnx::detail;

using T = DispatchTensor;

int64_t kiln::onnx::detail::normAxis(const NodeContext &c, int64_t axis,
                                     int64_t rank) {
  if (axis < -rank || axis >= rank)
    c.fail("axis " + std::to_string(axis) + " is out of range for rank " +
           std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> kiln::onnx::detail::normAxes(const NodeContext &c,
                                                  std::vector<int64_t> axes,
                                                  int64_t rank) {
  for (int64_t &a : axes)
    a = normAxis(c, a, rank);
  return axes;
}

T kiln::onnx::detail::scalarLike(double v, const T &like) {
  return T::scalar(v, like.dtype(), like.device());
}

/// The integers of the tensors Kiln reads on the host: shapes and their
/// arithmetic fold while importing.
std::optional<std::vector<int64_t>> kiln::onnx::detail::hostInts(const T &t) {
  if (t.isPending() || (t.dtype() != DType::I64 && t.dtype() != DType::I32) ||
      t.numel() > 64)
    return std::nullopt;
  if (t.dtype() == DType::I64)
    return t.toVector<int64_t>();
  std::vector<int32_t> v = t.toVector<int32_t>();
  return std::vector<int64_t>(v.begin(), v.end());
}

T kiln::onnx::detail::intsTensor(const std::vector<int64_t> &v,
                                 const DispatchDevice &device, bool scalar) {
  return T::fromVector<int64_t>(
      v, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())}, device);
}

namespace {

//===--- Elementwise ------------------------------------------------------===//

OpEntry unary(T (*f)(const T &)) {
  return {[f](NodeContext &c) {
    c.expectAttrs({});
    c.set(0, f(c.in(0)));
  }};
}

OpEntry unaryWith(std::function<T(const T &, const NodeContext &)> f,
                  std::initializer_list<const char *> attrs = {}) {
  std::vector<const char *> names(attrs);
  return {[f, names](NodeContext &c) {
    for (const auto &a : c.node.attribute())
      if (std::find_if(names.begin(), names.end(), [&](const char *n) {
            return a.name() == n;
          }) == names.end())
        c.fail("attribute '" + a.name() + "' is not supported");
    c.set(0, f(c.in(0), c));
  }};
}

/// Before opset 7, `broadcast=1` lines B's dims up with A's from `axis`
/// (default: A's trailing dims).
T legacyBroadcast(const NodeContext &c, const T &a, const T &b) {
  if (c.opset >= 7 || !c.attrInt("broadcast", 0))
    return b;
  int64_t ra = a.rank(), rb = b.rank();
  int64_t axis =
      c.hasAttr("axis") ? normAxis(c, c.attrInt("axis"), ra) : ra - rb;
  if (axis < 0 || axis + rb > ra)
    c.fail("B does not fit A from axis " + std::to_string(axis));
  std::vector<int64_t> s(axis, 1);
  for (int64_t d : b.shape())
    s.push_back(d);
  s.resize(ra, 1);
  return reshape(b, Shape(s));
}

OpEntry binary(T (*f)(const T &, const T &)) {
  return {[f](NodeContext &c) {
    c.expectAttrs({"broadcast", "axis"});
    if (c.opset >= 7 && (c.hasAttr("broadcast") || c.hasAttr("axis")))
      c.fail("the broadcast attributes were removed in opset 7");
    c.set(0, f(c.in(0), legacyBroadcast(c, c.in(0), c.in(1))));
  }};
}

/// Sum, Mean, Max, Min: any number of inputs, broadcast.
OpEntry variadic(T (*f)(const T &, const T &), bool mean = false) {
  return {[f, mean](NodeContext &c) {
    c.expectAttrs({});
    T acc = c.in(0);
    for (size_t i = 1; i < c.numInputs(); ++i)
      acc = f(acc, c.in(i));
    if (mean)
      acc = acc / static_cast<double>(c.numInputs());
    c.set(0, acc);
  }};
}

T softsign(const T &x) { return x / (abs(x) + 1.0); }
T sinh(const T &x) { return (exp(x) - exp(-x)) * 0.5; }
T cosh(const T &x) { return (exp(x) + exp(-x)) * 0.5; }
T asinh(const T &x) { return log(x + sqrt(x * x + 1.0)); }
T acosh(const T &x) { return log(x + sqrt(x * x - 1.0)); }
T atanh(const T &x) { return log((x + 1.0) / (1.0 - x)) * 0.5; }
T atan(const T &x) { return atan2(x, T::ones({}, x.dtype(), x.device())); }
T asin(const T &x) { return atan2(x, sqrt((1.0 - x) * (1.0 + x))); }
T acos(const T &x) { return atan2(sqrt((1.0 - x) * (1.0 + x)), x); }
T notOp(const T &x) { return logicalNot(x); }
T xorOp(const T &x, const T &y) { return ne(x, y); }

T hardSigmoid(const T &x, double alpha, double beta) {
  return clamp(x * alpha + beta, 0.0, 1.0);
}

/// Pow: the exponent may be of another dtype than the base.
void powOp(NodeContext &c) {
  c.expectAttrs({});
  T x = c.in(0), y = c.in(1);
  if (!x.dtype().isFloat()) {
    // Integer powers through f64 (exact up to 2^53), back to the base's
    // dtype as ONNX's output is.
    c.set(0, cast(round(pow(cast(x, DType::F64), cast(y, DType::F64))),
                  x.dtype()));
    return;
  }
  if (!y.isPending() && y.numel() == 1) {
    // A constant exponent (GELU's 3): Kiln's pow of a number.
    c.set(0, pow(x, c.scalar(1)));
    return;
  }
  if (y.dtype() != x.dtype())
    y = cast(y, x.dtype());
  c.set(0, pow(x, y));
}

void modOp(NodeContext &c) {
  c.expectAttrs({"fmod"});
  T x = c.in(0), y = c.in(1);
  int64_t fmod = c.attrInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    c.fail("fmod must be 0 or 1");
  if (x.dtype().isFloat() && !fmod)
    c.fail("fmod must be 1 for floating-point inputs");
  T r = rem(x, y); // the sign of the divisor, as Python's %
  if (fmod) {
    // C's fmod: the sign of the dividend.
    T zero = scalarLike(0, r);
    T fix = logicalAnd(ne(r, zero), ne(lt(r, zero), lt(x, zero)));
    r = where(fix, r - y, r);
  }
  c.set(0, r);
}

void clipOp(NodeContext &c) {
  T x = c.in(0);
  if (c.opset < 11) {
    c.expectAttrs({"min", "max"});
    double lo = c.attrFloat("min", -std::numeric_limits<double>::infinity());
    double hi = c.attrFloat("max", std::numeric_limits<double>::infinity());
    c.set(0, clamp(x, lo, hi));
    return;
  }
  c.expectAttrs({});
  if (auto lo = c.optIn(1))
    x = maximum(x, *lo);
  if (auto hi = c.optIn(2))
    x = minimum(x, *hi);
  c.set(0, x);
}

void castOp(NodeContext &c) {
  c.expectAttrs({"to", "saturate"});
  c.set(0, cast(c.in(0), dtypeOf(static_cast<int32_t>(c.attrInt("to")))));
}

void castLikeOp(NodeContext &c) {
  c.expectAttrs({"saturate"});
  c.set(0, cast(c.in(0), c.in(1).dtype()));
}

void preluOp(NodeContext &c) {
  c.expectAttrs({});
  T x = c.in(0), slope = c.in(1);
  // A slope of one value per channel (PyTorch's export before opset 7).
  if (slope.rank() == 1 && x.rank() > 2 && slope.shape()[0] == x.shape()[1] &&
      slope.shape()[0] != x.shape()[x.rank() - 1]) {
    std::vector<int64_t> s(x.rank() - 1, 1);
    s[0] = slope.shape()[0];
    slope = reshape(slope, Shape(s));
  }
  c.set(0, where(lt(x, scalarLike(0, x)), x * slope, x));
}

void geluOp(NodeContext &c) {
  c.expectAttrs({"approximate"});
  std::string a = c.attrString("approximate", "none");
  if (a != "none" && a != "tanh")
    c.fail("approximate must be none or tanh, not " + a);
  c.set(0, gelu(c.in(0), a == "tanh"));
}

void whereOp(NodeContext &c) {
  c.expectAttrs({});
  c.set(0, where(c.in(0), c.in(1), c.in(2)));
}

//===--- Constants, shapes and layout -------------------------------------===//

void constantOp(NodeContext &c) {
  if (c.node.attribute_size() != 1)
    c.fail("needs exactly one value attribute");
  const auto &a = c.node.attribute(0);
  if (a.name() == "value") {
    T t = tensorFromProto(a.t(), c.device, c.baseDir);
    c.set(0, t, hostInts(t));
  } else if (a.name() == "value_float") {
    c.set(0, T::scalar(a.f(), DType::F32, c.device));
  } else if (a.name() == "value_floats") {
    std::vector<float> v(a.floats().begin(), a.floats().end());
    c.set(0,
          T::fromVector<float>(v, {static_cast<int64_t>(v.size())}, c.device));
  } else if (a.name() == "value_int") {
    c.set(0, intsTensor({a.i()}, c.device, true), std::vector<int64_t>{a.i()});
  } else if (a.name() == "value_ints") {
    std::vector<int64_t> v(a.ints().begin(), a.ints().end());
    c.set(0, intsTensor(v, c.device), v);
  } else {
    c.fail("attribute '" + a.name() +
           "' is not supported (sparse and string constants are not)");
  }
}

void constantOfShapeOp(NodeContext &c) {
  c.expectAttrs({"value"});
  std::vector<int64_t> shape = c.ints(0);
  DType dtype = DType::F32;
  double value = 0;
  if (c.hasAttr("value")) {
    T v = tensorFromProto(c.attrTensor("value"), c.device, c.baseDir);
    if (v.numel() != 1)
      c.fail("value must hold one element");
    dtype = v.dtype();
    value = cast(v, DType::F64).reshape({}).item<double>();
  }
  T out = T::full(Shape(shape), value, dtype, c.device);
  std::optional<std::vector<int64_t>> ints;
  if (dtype == DType::I64 && out.numel() <= 64)
    ints = std::vector<int64_t>(out.numel(), static_cast<int64_t>(value));
  c.set(0, out, ints);
}

void shapeOp(NodeContext &c) {
  c.expectAttrs({"start", "end"});
  std::vector<int64_t> dims = c.in(0).shape().dims();
  int64_t rank = dims.size();
  int64_t start = c.attrInt("start", 0), end = c.attrInt("end", rank);
  auto clampTo = [&](int64_t v) {
    v = v < 0 ? v + rank : v;
    return std::clamp<int64_t>(v, 0, rank);
  };
  start = clampTo(start);
  end = std::max(clampTo(end), start);
  std::vector<int64_t> v(dims.begin() + start, dims.begin() + end);
  c.set(0, intsTensor(v, c.device), v);
}

void sizeOp(NodeContext &c) {
  c.expectAttrs({});
  int64_t n = c.in(0).numel();
  c.set(0, intsTensor({n}, c.device, true), std::vector<int64_t>{n});
}

void identityOp(NodeContext &c) {
  c.expectAttrs({});
  c.set(0, c.in(0), c.has(0) ? hostInts(c.in(0)) : std::nullopt);
}

void dropoutOp(NodeContext &c) {
  // Inference: the identity, and a mask of ones.
  c.expectAttrs({"seed", "ratio", "is_test"});
  if (c.has(2) && c.ints(2).at(0) != 0)
    c.fail("training mode is not supported (training ops are out of scope)");
  T x = c.in(0);
  c.set(0, x);
  c.set(1, T::full(x.shape(), 1, DType::Bool, x.device()));
}

/// The target shape of a Reshape: 0 copies the input's dim (unless
/// allowzero), one -1 is inferred by reshape itself.
void reshapeOp(NodeContext &c) {
  c.expectAttrs({"allowzero", "shape"});
  T x = c.in(0);
  std::vector<int64_t> shape = c.opset < 5 ? c.attrInts("shape") : c.ints(1);
  bool allowZero = c.attrInt("allowzero", 0);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 0 && !allowZero) {
      if (i >= x.rank())
        c.fail("shape entry " + std::to_string(i) +
               " is 0 but the input has rank " + std::to_string(x.rank()));
      shape[i] = x.shape()[i];
    }
  std::optional<std::vector<int64_t>> ints;
  if (c.has(0) && hostInts(x))
    ints = hostInts(x);
  c.set(0, reshape(x, Shape(shape)), ints);
}

void flattenOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  T x = c.in(0);
  int64_t rank = x.rank();
  int64_t axis = c.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    c.fail("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= x.shape()[i];
  int64_t inner = 1;
  for (int64_t i = axis; i < rank; ++i)
    inner *= x.shape()[i];
  c.set(0, reshape(x, {outer, inner}));
}

std::vector<int64_t> axesFrom(NodeContext &c, size_t input, const char *attr) {
  if (c.hasAttr(attr))
    return c.attrInts(attr);
  if (c.has(input))
    return c.ints(input);
  return {};
}

void squeezeOp(NodeContext &c) {
  c.expectAttrs({"axes"});
  T x = c.in(0);
  std::vector<int64_t> axes = axesFrom(c, 1, "axes");
  if (axes.empty())
    for (size_t i = 0; i < x.rank(); ++i)
      if (x.shape()[i] == 1)
        axes.push_back(i);
  axes = normAxes(c, axes, x.rank());
  std::optional<std::vector<int64_t>> ints = hostInts(x);
  c.set(0, squeeze(x, axes), ints);
}

void unsqueezeOp(NodeContext &c) {
  c.expectAttrs({"axes"});
  T x = c.in(0);
  std::vector<int64_t> axes = axesFrom(c, 1, "axes");
  int64_t rank = x.rank() + axes.size();
  axes = normAxes(c, axes, rank);
  std::sort(axes.begin(), axes.end());
  std::optional<std::vector<int64_t>> ints = hostInts(x);
  c.set(0, unsqueeze(x, axes), ints);
}

void transposeOp(NodeContext &c) {
  c.expectAttrs({"perm"});
  T x = c.in(0);
  std::vector<int64_t> perm(x.rank());
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = c.attrInts("perm", perm);
  c.set(0, permute(x, normAxes(c, perm, x.rank())));
}

void concatOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  std::vector<T> xs;
  bool allHost = true;
  std::vector<int64_t> ints;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    if (!c.has(i))
      continue;
    const T &x = c.in(i);
    xs.push_back(x);
    std::optional<std::vector<int64_t>> h = hostInts(x);
    if (h)
      ints.insert(ints.end(), h->begin(), h->end());
    allHost &= h.has_value();
  }
  if (xs.empty())
    c.fail("needs at least one input");
  int64_t axis = normAxis(c, c.attrInt("axis"), xs[0].rank());
  T out = concat(xs, axis);
  c.set(0, out,
        allHost && out.rank() == 1 ? std::optional(ints) : std::nullopt);
}

void splitOp(NodeContext &c) {
  c.expectAttrs({"axis", "split", "num_outputs"});
  T x = c.in(0);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), x.rank());
  int64_t n = x.shape()[axis];
  std::vector<int64_t> sizes =
      c.hasAttr("split") ? c.attrInts("split")
                         : (c.has(1) ? c.ints(1) : std::vector<int64_t>{});
  if (sizes.empty()) {
    int64_t parts = c.hasAttr("num_outputs") ? c.attrInt("num_outputs")
                                             : c.node.output_size();
    if (parts < 1 || parts > std::max<int64_t>(n, 1))
      c.fail("needs from 1 to " + std::to_string(std::max<int64_t>(n, 1)) +
             " outputs, not " + std::to_string(parts));
    int64_t each = (n + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(each, n - i * each)));
  }
  std::vector<T> outs = split(x, sizes, axis);
  for (size_t i = 0; i < outs.size(); ++i)
    c.set(i, outs[i]);
}

/// ONNX Slice: starts/ends clamped per its rules; negative steps run
/// backwards (a flip of the forward slice).
void sliceOp(NodeContext &c) {
  T x = c.in(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    c.expectAttrs({"starts", "ends", "axes"});
    starts = c.attrInts("starts");
    ends = c.attrInts("ends");
    axes = c.attrInts("axes", std::vector<int64_t>{});
  } else {
    c.expectAttrs({});
    starts = c.ints(1);
    ends = c.ints(2);
    if (c.has(3))
      axes = c.ints(3);
    if (c.has(4))
      steps = c.ints(4);
  }
  int64_t rank = x.rank();
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    c.fail("starts, ends, axes and steps must have one entry each");
  std::vector<int64_t> s(rank, 0), e(x.shape().dims()), st(rank, 1);
  std::vector<int64_t> flips;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = normAxis(c, axes[i], rank);
    int64_t n = x.shape()[a], step = steps[i];
    if (step == 0)
      c.fail("a step is 0");
    // A step past the axis takes one element, as one of the axis' length
    // does (and keeps the slice's arithmetic in range).
    step = std::clamp<int64_t>(step, -(n + 1), n + 1);
    int64_t b = starts[i], f = ends[i];
    if (b < 0)
      b += n;
    if (f < 0)
      f += n;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, n);
      f = std::clamp<int64_t>(f, 0, n);
      s[a] = b;
      e[a] = std::max(f, b);
      st[a] = step;
    } else {
      b = std::clamp<int64_t>(b, -1, n - 1);
      f = std::clamp<int64_t>(f, -1, n - 1);
      // Elements b, b + step, ... > f, read from the flipped axis.
      int64_t count = b > f ? (b - f + (-step) - 1) / (-step) : 0;
      s[a] = n - 1 - b;
      e[a] = s[a] + (count ? (count - 1) * (-step) + 1 : 0);
      st[a] = -step;
      flips.push_back(a);
    }
  }
  T y = flips.empty() ? x : flip(x, flips);
  std::optional<std::vector<int64_t>> ints;
  std::optional<std::vector<int64_t>> h = hostInts(x);
  if (h && rank == 1 && flips.empty()) {
    ints.emplace();
    for (int64_t i = s[0]; i < e[0]; i += st[0])
      ints->push_back((*h)[i]);
  }
  c.set(0, slice(y, s, e, st), ints);
}

/// Indices with negative entries counted from the end of an axis of n.
T wrapIndices(const T &idx, int64_t n) {
  T i = idx.dtype() == DType::I64 ? idx : cast(idx, DType::I64);
  return where(lt(i, scalarLike(0, i)), i + static_cast<double>(n), i);
}

/// numpy's take: data.shape[:axis] + indices.shape + data.shape[axis+1:].
void gatherOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  T x = c.in(0), idx = c.in(1);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), x.rank());
  std::optional<std::vector<int64_t>> hx = hostInts(x), hi = hostInts(idx);
  std::vector<int64_t> outShape;
  for (int64_t i = 0; i < axis; ++i)
    outShape.push_back(x.shape()[i]);
  for (int64_t d : idx.shape())
    outShape.push_back(d);
  for (size_t i = axis + 1; i < x.rank(); ++i)
    outShape.push_back(x.shape()[i]);
  int64_t n = x.shape()[axis];
  T flat = reshape(wrapIndices(idx, n), {idx.numel()});
  T out = reshape(indexSelect(x, axis, flat), Shape(outShape));
  std::optional<std::vector<int64_t>> ints;
  if (hx && hi && x.rank() == 1) {
    ints.emplace();
    for (int64_t i : *hi) {
      if (i < -n || i >= n)
        c.fail("index " + std::to_string(i) + " is out of range for " +
               std::to_string(n));
      ints->push_back((*hx)[i < 0 ? i + n : i]);
    }
  }
  c.set(0, out, ints);
}

void gatherElementsOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  T x = c.in(0);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), x.rank());
  c.set(0, gather(x, axis, wrapIndices(c.in(1), x.shape()[axis])));
}

/// The numpy broadcast of two shapes.
std::vector<int64_t> broadcastShapes(const NodeContext &c,
                                     std::vector<int64_t> a,
                                     std::vector<int64_t> b) {
  if (a.size() < b.size())
    std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1)
      continue;
    if (a[i] == 1)
      a[i] = b[i];
    else
      c.fail("shapes do not broadcast");
  }
  return a;
}

void expandOp(NodeContext &c) {
  c.expectAttrs({});
  T x = c.in(0);
  std::vector<int64_t> shape = broadcastShapes(c, x.shape().dims(), c.ints(1));
  T y = x.rank() < shape.size()
            ? reshape(x,
                      [&] {
                        std::vector<int64_t> s(shape.size() - x.rank(), 1);
                        for (int64_t d : x.shape())
                          s.push_back(d);
                        return Shape(s);
                      }())
            : x;
  c.set(0, expand(y, Shape(shape)));
}

void tileOp(NodeContext &c) {
  c.expectAttrs({});
  std::vector<int64_t> repeats = c.ints(1);
  for (int64_t r : repeats)
    if (r < 0 || r > kMaxHostElements)
      c.fail("repeats must be from 0 to " + std::to_string(kMaxHostElements));
  c.set(0, repeat(c.in(0), repeats));
}

void rangeOp(NodeContext &c) {
  c.expectAttrs({});
  T start = c.in(0);
  double s = c.scalar(0), l = c.scalar(1), d = c.scalar(2);
  if (d == 0)
    c.fail("delta is 0");
  double count = std::ceil((l - s) / d);
  if (!(count <= static_cast<double>(int64_t(1) << 40)))
    c.fail("the range is too long");
  int64_t n = static_cast<int64_t>(std::max(0.0, count));
  T idx = T::arange(n, start.dtype(), c.device);
  T out = idx * d + s;
  if (out.dtype() != start.dtype())
    out = cast(out, start.dtype());
  std::optional<std::vector<int64_t>> ints;
  if (start.dtype() == DType::I64 && n <= 64) {
    ints.emplace();
    for (int64_t i = 0; i < n; ++i)
      ints->push_back(static_cast<int64_t>(s + i * d));
  }
  c.set(0, out, ints);
}

//===--- Linear algebra ---------------------------------------------------===//

void matmulOp(NodeContext &c) {
  c.expectAttrs({});
  c.set(0, matmul(c.in(0), c.in(1)));
}

void gemmOp(NodeContext &c) {
  c.expectAttrs({"alpha", "beta", "transA", "transB", "broadcast"});
  T a = c.in(0), b = c.in(1);
  if (c.attrInt("transA", 0))
    a = transpose(a, 0, 1);
  if (c.attrInt("transB", 0))
    b = transpose(b, 0, 1);
  T y = matmul(a, b);
  double alpha = c.attrFloat("alpha", 1.0), beta = c.attrFloat("beta", 1.0);
  if (alpha != 1.0)
    y = y * alpha;
  if (auto bias = c.optIn(2))
    y = beta == 1.0 ? y + *bias : y + *bias * beta;
  c.set(0, y);
}

//===--- Reductions -------------------------------------------------------===//

enum class Reduce {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

OpEntry reduction(Reduce kind) {
  return {[kind](NodeContext &c) {
    c.expectAttrs({"axes", "keepdims", "noop_with_empty_axes"});
    T x = c.in(0);
    std::vector<int64_t> axes = axesFrom(c, 1, "axes");
    bool keep = c.attrInt("keepdims", 1);
    if (axes.empty() && c.attrInt("noop_with_empty_axes", 0)) {
      c.set(0, x);
      return;
    }
    if (axes.empty()) {
      axes.resize(x.rank());
      std::iota(axes.begin(), axes.end(), 0);
    }
    axes = normAxes(c, axes, x.rank());
    T y;
    switch (kind) {
    case Reduce::Sum:
      y = sum(x, axes, keep);
      break;
    case Reduce::Mean:
      y = mean(x, axes, keep);
      break;
    case Reduce::Max:
      y = max(x, axes, keep);
      break;
    case Reduce::Min:
      y = min(x, axes, keep);
      break;
    case Reduce::Prod:
      y = prod(x, axes, keep);
      break;
    case Reduce::L1:
      y = sum(abs(x), axes, keep);
      break;
    case Reduce::L2:
      y = sqrt(sum(x * x, axes, keep));
      break;
    case Reduce::LogSum:
      y = log(sum(x, axes, keep));
      break;
    case Reduce::LogSumExp:
      y = logsumexp(x, axes, keep);
      break;
    case Reduce::SumSquare:
      y = sum(x * x, axes, keep);
      break;
    }
    if (!x.dtype().isFloat() && y.dtype() != x.dtype())
      y = cast(y, x.dtype());
    c.set(0, y);
  }};
}

OpEntry argReduce(bool isMax) {
  return {[isMax](NodeContext &c) {
    c.expectAttrs({"axis", "keepdims", "select_last_index"});
    T x = c.in(0);
    int64_t axis = normAxis(c, c.attrInt("axis", 0), x.rank());
    bool keep = c.attrInt("keepdims", 1);
    if (c.attrInt("select_last_index", 0)) {
      // The first extreme of the reversed axis, counted from the end.
      int64_t n = x.shape()[axis];
      T r = isMax ? argmax(flip(x, {axis}), axis, keep)
                  : argmin(flip(x, {axis}), axis, keep);
      c.set(0, (static_cast<double>(n - 1)) - r);
      return;
    }
    c.set(0, isMax ? argmax(x, axis, keep) : argmin(x, axis, keep));
  }};
}

/// Softmax and LogSoftmax: before opset 13 over the flattened dims from
/// `axis` (default 1), from 13 along `axis` (default -1).
OpEntry softmaxLike(bool isLog) {
  return {[isLog](NodeContext &c) {
    c.expectAttrs({"axis"});
    T x = c.in(0);
    auto f = isLog ? logSoftmax : softmax;
    if (c.opset >= 13) {
      c.set(0, f(x, normAxis(c, c.attrInt("axis", -1), x.rank())));
      return;
    }
    int64_t axis = normAxis(c, c.attrInt("axis", 1), x.rank());
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < static_cast<int64_t>(x.rank()); ++i)
      (i < axis ? outer : inner) *= x.shape()[i];
    c.set(0, reshape(f(reshape(x, {outer, inner}), 1), x.shape()));
  }};
}

void hardmaxOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  T x = c.in(0);
  if (c.opset < 13)
    c.fail("Kiln maps Hardmax from opset 13");
  int64_t axis = normAxis(c, c.attrInt("axis", -1), x.rank());
  T idx = argmax(x, axis, true);
  T pos = T::arange(x.shape()[axis], DType::I64, x.device());
  std::vector<int64_t> s(x.rank(), 1);
  s[axis] = x.shape()[axis];
  c.set(0, cast(eq(reshape(pos, Shape(s)), idx), x.dtype()));
}

void cumsumOp(NodeContext &c) {
  c.expectAttrs({"exclusive", "reverse"});
  T x = c.in(0);
  int64_t axis = normAxis(c, c.ints(1).at(0), x.rank());
  bool reverse = c.attrInt("reverse", 0), exclusive = c.attrInt("exclusive", 0);
  T y = reverse ? flip(x, {axis}) : x;
  T s = cumsum(y, axis);
  if (exclusive)
    s = s - y;
  c.set(0, reverse ? flip(s, {axis}) : s);
}

void topkOp(NodeContext &c) {
  c.expectAttrs({"axis", "largest", "sorted", "k"});
  T x = c.in(0);
  int64_t k = c.opset < 10 ? c.attrInt("k") : c.ints(1).at(0);
  int64_t axis = normAxis(c, c.attrInt("axis", -1), x.rank());
  if (!c.attrInt("sorted", 1))
    c.fail("sorted=0 is not supported");
  auto [values, indices] = topk(x, k, axis, c.attrInt("largest", 1));
  c.set(0, values);
  c.set(1, indices);
}

//===--- Neural-network ops -----------------------------------------------===//

void lpNormOp(NodeContext &c) {
  c.expectAttrs({"axis", "p"});
  T x = c.in(0);
  int64_t axis = normAxis(c, c.attrInt("axis", -1), x.rank());
  int64_t p = c.attrInt("p", 2);
  if (p != 1 && p != 2)
    c.fail("p must be 1 or 2");
  T n = p == 1 ? sum(abs(x), {axis}, true) : sqrt(sum(x * x, {axis}, true));
  c.set(0, x / n);
}

void mvnOp(NodeContext &c) {
  c.expectAttrs({"axes"});
  T x = c.in(0);
  std::vector<int64_t> axes =
      normAxes(c, c.attrInts("axes", std::vector<int64_t>{0, 2, 3}), x.rank());
  T m = mean(x, axes, true);
  T d = x - m;
  T v = mean(d * d, axes, true);
  c.set(0, d / (sqrt(v) + 1e-9));
}

void shrinkOp(NodeContext &c) {
  c.expectAttrs({"bias", "lambd"});
  T x = c.in(0);
  double bias = c.attrFloat("bias", 0.0), lambd = c.attrFloat("lambd", 0.5);
  T y = where(lt(x, scalarLike(-lambd, x)), x + bias,
              where(gt(x, scalarLike(lambd, x)), x - bias,
                    T::zeros({}, x.dtype(), x.device())));
  c.set(0, y);
}

void isInfOp(NodeContext &c) {
  c.expectAttrs({"detect_negative", "detect_positive"});
  T x = c.in(0);
  double inf = std::numeric_limits<double>::infinity();
  T pos = eq(x, scalarLike(inf, x)), neg = eq(x, scalarLike(-inf, x));
  bool p = c.attrInt("detect_positive", 1), n = c.attrInt("detect_negative", 1);
  c.set(0, p && n ? logicalOr(pos, neg)
           : p    ? pos
           : n    ? neg
                  : T::full(x.shape(), 0, DType::Bool, x.device()));
}

void eyeLikeOp(NodeContext &c) {
  c.expectAttrs({"dtype", "k"});
  T x = c.in(0);
  if (x.rank() != 2)
    c.fail("needs a 2-D input");
  DType dtype = c.hasAttr("dtype")
                    ? dtypeOf(static_cast<int32_t>(c.attrInt("dtype")))
                    : x.dtype();
  int64_t rows = x.shape()[0], cols = x.shape()[1], k = c.attrInt("k", 0);
  T i = reshape(T::arange(rows, DType::I64, x.device()), {rows, 1});
  T j = reshape(T::arange(cols, DType::I64, x.device()), {1, cols});
  c.set(0, cast(eq(j - i, scalarLike(k, i)), dtype));
}

/// Hann, Hamming and Blackman windows: sum of a_k cos(2 pi k n / N') with
/// N' = size (periodic) or size - 1 (symmetric).
OpEntry window(std::vector<double> a) {
  return {[a](NodeContext &c) {
            c.expectAttrs({"output_datatype", "periodic"});
            double size = c.scalar(0);
            if (!(size >= 0 && size <= kMaxHostElements))
              c.fail("the size must be from 0 to " +
                     std::to_string(kMaxHostElements));
            int64_t n = static_cast<int64_t>(size);
            double denom = c.attrInt("periodic", 1) ? n : n - 1;
            std::vector<double> v(n);
            for (int64_t i = 0; i < n; ++i) {
              double x = 0;
              for (size_t k = 0; k < a.size(); ++k)
                x += a[k] * std::cos(2 * M_PI * k * i / denom);
              v[i] = x;
            }
            DType dtype =
                dtypeOf(static_cast<int32_t>(c.attrInt("output_datatype", 1)));
            c.set(0, cast(T::fromVector<double>(v, {n}, c.device), dtype));
          },
          17};
}

/// The row of each index tuple of `indices` [..., k] in data viewed as
/// [prod(dims from `first`, k of them), rest...], with batch dims before.
T linearIndex(const NodeContext &c, const T &data, const T &indices,
              int64_t batchDims) {
  if (indices.rank() < 1)
    c.fail("the indices must have rank 1 or more");
  int64_t k = indices.shape()[indices.rank() - 1];
  if (batchDims + k > static_cast<int64_t>(data.rank()))
    c.fail("index tuples are longer than the data's rank");
  T idx = cast(indices, DType::I64);
  T lin;
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    int64_t n = data.shape()[batchDims + j];
    std::vector<int64_t> st(idx.rank(), 0), en(idx.shape().dims());
    st.back() = j;
    en.back() = j + 1;
    T part =
        squeeze(slice(idx, st, en), {static_cast<int64_t>(idx.rank()) - 1});
    part = where(lt(part, scalarLike(0, part)), part + static_cast<double>(n),
                 part);
    T term = part * static_cast<double>(stride);
    lin = j == k - 1 ? term : lin + term;
    stride *= n;
  }
  if (batchDims) {
    int64_t batch = 1;
    std::vector<int64_t> bs;
    for (int64_t b = 0; b < batchDims; ++b) {
      batch *= data.shape()[b];
      bs.push_back(data.shape()[b]);
    }
    bs.resize(lin.rank(), 1);
    T offset = reshape(T::arange(batch, DType::I64, data.device()), Shape(bs)) *
               static_cast<double>(stride);
    lin = lin + offset;
  }
  return lin;
}

void gatherNDOp(NodeContext &c) {
  c.expectAttrs({"batch_dims"});
  T data = c.in(0), idx = c.inRank(1, 1, 64);
  int64_t b = c.attrInt("batch_dims", 0);
  if (b < 0 || b >= static_cast<int64_t>(idx.rank()))
    c.fail("batch_dims must be from 0 to the indices' rank - 1");
  int64_t k = idx.shape()[idx.rank() - 1];
  T lin = linearIndex(c, data, idx, b);
  int64_t rows = 1;
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < static_cast<int64_t>(data.rank()); ++i)
    if (i < b + k)
      rows *= data.shape()[i];
    else
      rest.push_back(data.shape()[i]);
  std::vector<int64_t> flatShape{rows};
  flatShape.insert(flatShape.end(), rest.begin(), rest.end());
  std::vector<int64_t> out(lin.shape().dims());
  out.insert(out.end(), rest.begin(), rest.end());
  T g = indexSelect(reshape(data, Shape(flatShape)), 0,
                    reshape(lin, {lin.numel()}));
  c.set(0, reshape(g, Shape(out)));
}

/// data with updates written at `indices` along `axis` (PyTorch's scatter
/// semantics), with no reduction or an add.
T scatterInto(const NodeContext &c, const T &data, int64_t axis,
              const T &indices, const T &updates,
              const std::string &reduction) {
  if (reduction == "add")
    return scatterAdd(data, axis, indices, updates);
  if (reduction != "none")
    c.fail("reduction " + reduction + " is not supported (none and add are)");
  T zeros = T::zeros(data.shape(), data.dtype(), data.device());
  T hit = gt(scatterAdd(zeros, axis, indices,
                        T::ones(updates.shape(), data.dtype(), data.device())),
             scalarLike(0, data));
  return where(hit, scatterAdd(zeros, axis, indices, updates), data);
}

void scatterElementsOp(NodeContext &c) {
  c.expectAttrs({"axis", "reduction"});
  T data = c.in(0);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), data.rank());
  T idx = wrapIndices(c.in(1), data.shape()[axis]);
  c.set(0, scatterInto(c, data, axis, idx, c.in(2),
                       c.attrString("reduction", "none")));
}

void scatterNDOp(NodeContext &c) {
  c.expectAttrs({"reduction"});
  T data = c.in(0), idx = c.inRank(1, 1, 64), updates = c.in(2);
  int64_t k = idx.shape()[idx.rank() - 1];
  T lin = reshape(linearIndex(c, data, idx, 0), {-1});
  int64_t rows = 1;
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < static_cast<int64_t>(data.rank()); ++i)
    if (i < k)
      rows *= data.shape()[i];
    else
      rest.push_back(data.shape()[i]);
  std::vector<int64_t> flatShape{rows}, upShape{lin.numel()},
      linShape{lin.numel()};
  flatShape.insert(flatShape.end(), rest.begin(), rest.end());
  upShape.insert(upShape.end(), rest.begin(), rest.end());
  linShape.resize(upShape.size(), 1);
  T up = reshape(updates, Shape(upShape));
  T li = expand(reshape(lin, Shape(linShape)), Shape(upShape));
  T out = scatterInto(c, reshape(data, Shape(flatShape)), 0, li, up,
                      c.attrString("reduction", "none"));
  c.set(0, reshape(out, data.shape()));
}

/// A per-axis parameter (1-D, one per entry of `axis`) shaped to broadcast
/// against x; a scalar stays as it is.
T alongAxis(const NodeContext &c, const T &p, const T &x) {
  if (p.rank() == 0 || (p.rank() == 1 && p.numel() == 1 && !c.hasAttr("axis")))
    return reshape(p, {});
  int64_t axis = normAxis(c, c.attrInt("axis", 1), x.rank());
  std::vector<int64_t> s(x.rank(), 1);
  s[axis] = p.numel();
  return reshape(p, Shape(s));
}

void quantizeLinearOp(NodeContext &c) {
  c.expectAttrs({"axis", "saturate"});
  T x = c.in(0);
  T scale = alongAxis(c, c.in(1), x);
  DType dtype = DType::U8;
  T y = round(cast(x, DType::F32) / cast(scale, DType::F32));
  if (auto zp = c.optIn(2)) {
    dtype = zp->dtype();
    y = y + cast(alongAxis(c, *zp, x), DType::F32);
  }
  if (dtype != DType::U8 && dtype != DType::I8)
    c.fail("zero points of " + dtype.str() +
           " are not supported (u8 and i8 are)");
  c.set(0, saturate(y, dtype));
}

void dequantizeLinearOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  T x = c.in(0);
  T scale = alongAxis(c, c.in(1), x);
  T y = cast(x, DType::F32);
  if (auto zp = c.optIn(2))
    y = y - cast(alongAxis(c, *zp, x), DType::F32);
  c.set(0, cast(y * cast(scale, DType::F32), scale.dtype()));
}

/// uint8 quantization with a scale and zero point from x's range
/// (widened to hold 0).
void dynamicQuantizeLinearOp(NodeContext &c) {
  c.expectAttrs({});
  T x = c.in(0);
  if (!x.dtype().isFloat())
    c.fail("the input must be float, not " + x.dtype().str());
  T zero = scalarLike(0, x);
  T lo = minimum(min(x), zero), hi = maximum(max(x), zero);
  T scale = (hi - lo) / 255.0;
  T zp = saturate(round(0.0 - lo / scale), DType::U8);
  c.set(0, saturate(round(x / scale) + cast(zp, x.dtype()), DType::U8));
  c.set(1, scale);
  c.set(2, zp);
}

/// Each batch entry's first `length` steps reversed.
void reverseSequenceOp(NodeContext &c) {
  c.expectAttrs({"batch_axis", "time_axis"});
  T x = c.in(0);
  int64_t batchAxis = normAxis(c, c.attrInt("batch_axis", 1), x.rank());
  int64_t timeAxis = normAxis(c, c.attrInt("time_axis", 0), x.rank());
  if (batchAxis == timeAxis)
    c.fail("batch_axis and time_axis must differ");
  std::vector<int64_t> ts(x.rank(), 1), bs(x.rank(), 1);
  ts[timeAxis] = x.shape()[timeAxis];
  bs[batchAxis] = x.shape()[batchAxis];
  T t = reshape(T::arange(x.shape()[timeAxis], DType::I64, x.device()),
                Shape(ts));
  T len = reshape(cast(c.in(1), DType::I64), Shape(bs));
  T idx = where(lt(t, len), len - 1.0 - t, t);
  c.set(0, gather(x, timeAxis, expand(idx, x.shape())));
}

/// Einsum as a broadcast product of the operands over every label, summed
/// over the labels the output does not keep. Repeated labels in one
/// operand take its diagonal.
void einsumOp(NodeContext &c) {
  c.expectAttrs({"equation"});
  std::string eq;
  for (char ch : c.attrString("equation"))
    if (ch != ' ')
      eq += ch;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != c.numInputs())
    c.fail("the equation names " + std::to_string(terms.size()) +
           " operands, the node has " + std::to_string(c.numInputs()));
  // '...' becomes the upper-case labels A, B, ... of the broadcast dims.
  int64_t ellipsisDims = 0;
  auto expandEllipsis = [&](std::string term, int64_t rank) {
    size_t dots = term.find("...");
    if (dots == std::string::npos)
      return term;
    int64_t n = rank - (static_cast<int64_t>(term.size()) - 3);
    if (n < 0 || n > 26)
      c.fail("'...' stands for " + std::to_string(n) +
             " dims; from 0 to 26 are supported");
    ellipsisDims = std::max(ellipsisDims, n);
    std::string labels;
    for (int64_t i = 0; i < n; ++i)
      labels += static_cast<char>('A' + (ellipsisDims - n) + i);
    return term.substr(0, dots) + labels + term.substr(dots + 3);
  };
  std::vector<T> ops;
  std::string all;
  for (size_t i = 0; i < terms.size(); ++i) {
    T x = c.in(i);
    std::string term = expandEllipsis(terms[i], x.rank());
    if (static_cast<int64_t>(term.size()) != static_cast<int64_t>(x.rank()))
      c.fail("operand " + std::to_string(i) + " has rank " +
             std::to_string(x.rank()) + ", the equation " +
             std::to_string(term.size()));
    // Diagonals of repeated labels.
    for (size_t a = 0; a < term.size(); ++a)
      for (size_t b = a + 1; b < term.size(); ++b)
        if (term[a] == term[b]) {
          int64_t n = x.shape()[a];
          std::vector<int64_t> sa(x.rank(), 1), sb(x.rank(), 1);
          sa[a] = n;
          sb[b] = n;
          T ia = reshape(T::arange(n, DType::I64, x.device()), Shape(sa));
          T ib = reshape(T::arange(n, DType::I64, x.device()), Shape(sb));
          x = sum(
              where(kiln::eq(ia, ib), x, T::zeros({}, x.dtype(), x.device())),
              {static_cast<int64_t>(b)});
          term.erase(b, 1);
          --b;
        }
    terms[i] = term;
    ops.push_back(x);
    for (char ch : term)
      if (all.find(ch) == std::string::npos)
        all += ch;
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    size_t dots = out.find("...");
    if (dots != std::string::npos) {
      std::string labels;
      for (int64_t i = 0; i < ellipsisDims; ++i)
        labels += static_cast<char>('A' + i);
      out = out.substr(0, dots) + labels + out.substr(dots + 3);
    }
  } else {
    for (int64_t i = 0; i < ellipsisDims; ++i)
      out += static_cast<char>('A' + i);
    std::string once;
    for (char ch : all)
      if (ch >= 'a' && ch <= 'z' && std::count(lhs.begin(), lhs.end(), ch) == 1)
        once += ch;
    std::sort(once.begin(), once.end());
    out += once;
  }
  // Every operand laid out over `full` (the output's labels first).
  std::string full = out;
  for (char ch : all)
    if (full.find(ch) == std::string::npos)
      full += ch;
  T prod;
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string &term = terms[i];
    std::vector<int64_t> perm, shape;
    for (char ch : full) {
      size_t at = term.find(ch);
      if (at != std::string::npos)
        perm.push_back(at);
    }
    T x = permute(ops[i], perm);
    for (char ch : full) {
      size_t at = term.find(ch);
      shape.push_back(at == std::string::npos ? 1 : ops[i].shape()[at]);
    }
    x = reshape(x, Shape(shape));
    prod = i ? prod * x : x;
  }
  std::vector<int64_t> reduced;
  for (size_t k = out.size(); k < full.size(); ++k)
    reduced.push_back(k);
  T y = reduced.empty() ? prod : sum(prod, reduced);
  if (y.rank() != out.size()) // broadcast labels of size 1 in every operand
    c.fail("the output labels do not match the operands");
  c.set(0, y);
}

/// MatMulInteger: (A - a_zp) @ (B - b_zp) as int32 (exact in f32 while the
/// sums stay under 2^24, as they do for 8-bit operands and K up to 256).
void matMulIntegerOp(NodeContext &c) {
  c.expectAttrs({});
  T a = centered(c, c.in(0), c.optIn(2), -2);
  T b = centered(c, c.in(1), c.optIn(3), -1);
  c.set(0, cast(round(matmul(a, b)), DType::I32));
}

/// QLinearMatMul: the real product of two quantized operands, requantized.
void qLinearMatMulOp(NodeContext &c) {
  c.expectAttrs({});
  T a = centered(c, c.in(0), c.in(2), -2) *
        reshape(cast(c.in(1), DType::F32), {});
  T b = centered(c, c.in(3), c.in(5), -1) *
        reshape(cast(c.in(4), DType::F32), {});
  T y = round(matmul(a, b) / reshape(cast(c.in(6), DType::F32), {})) +
        reshape(cast(c.in(7), DType::F32), {});
  c.set(0, saturate(y, c.in(7).dtype()));
}

void dataDependent(const NodeContext &c) {
  c.fail("its output shape depends on the data, which Kiln does not support");
}

void controlFlow(const NodeContext &c) {
  c.fail("control flow (subgraphs) is not supported");
}

void randomOp(const NodeContext &c) {
  c.fail("random-number ops are out of scope for import");
}

OpTable buildTable() {
  OpTable t;
  // Unary.
  t["Abs"] = unary(abs);
  t["Neg"] = unary(neg);
  t["Exp"] = unary(exp);
  t["Log"] = unary(log);
  t["Sqrt"] = unary(sqrt);
  t["Reciprocal"] = unary(recip);
  t["Sin"] = unary(sin);
  t["Cos"] = unary(cos);
  t["Tan"] = unary(tan);
  t["Tanh"] = unary(tanh);
  t["Sigmoid"] = unary(sigmoid);
  t["Erf"] = unary(erf);
  t["Relu"] = unary(relu);
  t["Floor"] = unary(floor);
  t["Ceil"] = unary(ceil);
  t["Round"] = unary(round);
  t["Sign"] = unary(sign);
  t["IsNaN"] = unary(isNan);
  t["Not"] = unary(notOp);
  t["Softsign"] = unary(softsign);
  t["Sinh"] = unary(sinh);
  t["Cosh"] = unary(cosh);
  t["Asinh"] = unary(asinh);
  t["Acosh"] = unary(acosh);
  t["Atanh"] = unary(atanh);
  t["Atan"] = unary(atan);
  t["Asin"] = unary(asin);
  t["Acos"] = unary(acos);
  t["Mish"] = unary(mish);
  t["Softplus"] = unaryWith([](const T &x, const NodeContext &) {
    return softplus(x, 1.0, std::numeric_limits<double>::infinity());
  });
  t["LeakyRelu"] = unaryWith(
      [](const T &x, const NodeContext &c) {
        return leakyRelu(x, c.attrFloat("alpha", 0.01));
      },
      {"alpha"});
  t["Elu"] = unaryWith(
      [](const T &x, const NodeContext &c) {
        return elu(x, c.attrFloat("alpha", 1.0));
      },
      {"alpha"});
  t["Selu"] = unaryWith(
      [](const T &x, const NodeContext &c) {
        double alpha = c.attrFloat("alpha", 1.67326319217681884765625);
        double gamma = c.attrFloat("gamma", 1.05070102214813232421875);
        return elu(x, alpha) * gamma;
      },
      {"alpha", "gamma"});
  t["Celu"] = unaryWith(
      [](const T &x, const NodeContext &c) {
        double alpha = c.attrFloat("alpha", 1.0);
        return relu(x) + minimum(T::zeros({}, x.dtype(), x.device()),
                                 (exp(x / alpha) - 1.0) * alpha);
      },
      {"alpha"});
  t["ThresholdedRelu"] = unaryWith(
      [](const T &x, const NodeContext &c) {
        double alpha = c.attrFloat("alpha", 1.0);
        return where(gt(x, scalarLike(alpha, x)), x,
                     T::zeros({}, x.dtype(), x.device()));
      },
      {"alpha"});
  t["HardSigmoid"] = unaryWith(
      [](const T &x, const NodeContext &c) {
        return hardSigmoid(x, c.attrFloat("alpha", 0.2),
                           c.attrFloat("beta", 0.5));
      },
      {"alpha", "beta"});
  t["HardSwish"] = unary(hardswish);
  t["Gelu"] = {geluOp, 20};
  t["PRelu"] = {preluOp};
  t["Clip"] = {clipOp};
  t["Cast"] = {castOp};
  t["CastLike"] = {castLikeOp, 15};
  t["Identity"] = {identityOp};
  t["Dropout"] = {dropoutOp};
  // Binary and variadic.
  t["Add"] = binary(add);
  t["Sub"] = binary(sub);
  t["Mul"] = binary(mul);
  t["Div"] = binary(div);
  t["Pow"] = {powOp};
  t["Mod"] = {modOp};
  t["Equal"] = binary(eq);
  t["Less"] = binary(lt);
  t["LessOrEqual"] = binary(le);
  t["Greater"] = binary(gt);
  t["GreaterOrEqual"] = binary(ge);
  t["And"] = binary(logicalAnd);
  t["Or"] = binary(logicalOr);
  t["Xor"] = binary(xorOp);
  t["Max"] = variadic(maximum);
  t["Min"] = variadic(minimum);
  t["Sum"] = variadic(add);
  t["Mean"] = variadic(add, true);
  t["Where"] = {whereOp};
  t["IsInf"] = {isInfOp, 10};
  t["EyeLike"] = {eyeLikeOp, 9};
  t["HannWindow"] = window({0.5, -0.5});
  t["HammingWindow"] = window({25.0 / 46.0, -21.0 / 46.0});
  t["BlackmanWindow"] = window({0.42, -0.5, 0.08});
  t["GatherND"] = {gatherNDOp, 11};
  t["ScatterElements"] = {scatterElementsOp, 11};
  t["Scatter"] = {scatterElementsOp, 9};
  t["ScatterND"] = {scatterNDOp, 11};
  t["QuantizeLinear"] = {quantizeLinearOp, 10};
  t["DequantizeLinear"] = {dequantizeLinearOp, 10};
  t["DynamicQuantizeLinear"] = {dynamicQuantizeLinearOp, 11};
  t["ReverseSequence"] = {reverseSequenceOp, 10};
  t["Einsum"] = {einsumOp, 12};
  t["MatMulInteger"] = {matMulIntegerOp, 10};
  t["QLinearMatMul"] = {qLinearMatMulOp, 10};
  // Constants, shapes and layout.
  t["Constant"] = {constantOp};
  t["ConstantOfShape"] = {constantOfShapeOp};
  t["Shape"] = {shapeOp};
  t["Size"] = {sizeOp};
  t["Reshape"] = {reshapeOp};
  t["Flatten"] = {flattenOp};
  t["Squeeze"] = {squeezeOp};
  t["Unsqueeze"] = {unsqueezeOp};
  t["Transpose"] = {transposeOp};
  t["Concat"] = {concatOp};
  t["Split"] = {splitOp};
  t["Slice"] = {sliceOp};
  t["Gather"] = {gatherOp};
  t["GatherElements"] = {gatherElementsOp};
  t["Expand"] = {expandOp};
  t["Tile"] = {tileOp};
  t["Range"] = {rangeOp};
  // Linear algebra and reductions.
  t["MatMul"] = {matmulOp};
  t["Gemm"] = {gemmOp};
  t["ReduceSum"] = reduction(Reduce::Sum);
  t["ReduceMean"] = reduction(Reduce::Mean);
  t["ReduceMax"] = reduction(Reduce::Max);
  t["ReduceMin"] = reduction(Reduce::Min);
  t["ReduceProd"] = reduction(Reduce::Prod);
  t["ReduceL1"] = reduction(Reduce::L1);
  t["ReduceL2"] = reduction(Reduce::L2);
  t["ReduceLogSum"] = reduction(Reduce::LogSum);
  t["ReduceLogSumExp"] = reduction(Reduce::LogSumExp);
  t["ReduceSumSquare"] = reduction(Reduce::SumSquare);
  t["ArgMax"] = argReduce(true);
  t["ArgMin"] = argReduce(false);
  t["Softmax"] = softmaxLike(false);
  t["LogSoftmax"] = softmaxLike(true);
  t["Hardmax"] = {hardmaxOp};
  t["CumSum"] = {cumsumOp, 11};
  t["TopK"] = {topkOp};
  // Neural-network ops (OnnxNN.cpp).
  addNNOps(t);
  t["LpNormalization"] = {lpNormOp};
  t["MeanVarianceNormalization"] = {mvnOp, 9};
  t["Shrink"] = {shrinkOp, 9};
  // Refused, with the reason.
  for (const char *op : {"NonZero", "Unique", "NonMaxSuppression", "Compress"})
    t[op] = {dataDependent, 1, true};
  for (const char *op : {"If", "Loop", "Scan"})
    t[op] = {controlFlow, 1, true};
  for (const char *op : {"RandomNormal", "RandomUniform", "RandomNormalLike",
                         "RandomUniformLike", "Multinomial", "Bernoulli"})
    t[op] = {randomOp, 1, true};
  return t;
}

} // namespace

T kiln::onnx::detail::saturate(const T &x, DType dtype) {
  double lo = dtype == DType::U8 ? 0 : -128,
         hi = dtype == DType::U8 ? 255 : 127;
  return cast(clamp(x, lo, hi), dtype);
}

T kiln::onnx::detail::centered(const NodeContext &c, const T &x,
                               const std::optional<T> &zp, int64_t axis) {
  T v = cast(x, DType::F32);
  if (!zp)
    return v;
  T z = cast(*zp, DType::F32);
  if (z.numel() > 1 && z.rank() == 1) {
    std::vector<int64_t> s(x.rank(), 1);
    s[normAxis(c, axis, x.rank())] = z.numel();
    z = reshape(z, Shape(s));
  } else {
    z = reshape(z, {});
  }
  return v - z;
}

const OpTable &kiln::onnx::detail::opTable() {
  static const OpTable table = buildTable();
  return table;
}

std::vector<std::pair<std::string, int64_t>> kiln::onnx::supportedOps() {
  std::vector<std::pair<std::string, int64_t>> ops;
  for (const auto &[name, entry] : detail::opTable())
    if (!entry.refused)
      ops.push_back({name, entry.sinceOpset});
  std::sort(ops.begin(), ops.end());
  return ops;
}
