//===- OnnxNN.cpp - ONNX's neural-network op types ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Convolutions, pooling, normalizations, losses, resizing and recurrent
// layers: onto Kiln's ops where it has them, as compositions where not
// (3-D windows as sums of 2-D ones over depth, Resize as per-axis gathers
// with host-computed taps, recurrent layers unrolled over time).
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

namespace {

/// Explicit pads [begin..., end...] of a convolution or pooling window of
/// `kernel` (dilated), from `pads` or auto_pad.
std::vector<int64_t> windowPads(NodeContext &c, const T &x,
                                const std::vector<int64_t> &kernel,
                                const std::vector<int64_t> &strides,
                                const std::vector<int64_t> &dilations) {
  size_t n = kernel.size();
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    std::vector<int64_t> pads = c.attrIntsOf("pads", 2 * n, 0, 0, kMaxWindow);
    if (pads.size() != 2 * n)
      c.fail("pads must have " + std::to_string(2 * n) + " entries");
    return pads;
  }
  std::vector<int64_t> pads(2 * n, 0);
  if (autoPad == "VALID")
    return pads;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    c.fail("auto_pad " + autoPad + " is not supported");
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.shape()[2 + i];
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
    int64_t small = total / 2, big = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : big;
    pads[n + i] = autoPad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

/// Pads x's spatial dims where begin and end differ, or where a pad is
/// more than half the window (the ops take one pad per dim, at most half
/// the window); returns the pads left for the op.
T padForWindow(const T &x, std::vector<int64_t> &pads,
               const std::vector<int64_t> &window, double value) {
  size_t n = pads.size() / 2;
  bool inOp = true;
  for (size_t i = 0; i < n; ++i)
    inOp &= pads[i] == pads[n + i] && 2 * pads[i] <= window[i];
  if (inOp) {
    pads.resize(n);
    return x;
  }
  std::vector<int64_t> lo(x.rank(), 0), hi(x.rank(), 0);
  for (size_t i = 0; i < n; ++i) {
    lo[2 + i] = pads[i];
    hi[2 + i] = pads[n + i];
  }
  pads.assign(n, 0);
  return pad(x, lo, hi, value);
}

std::vector<int64_t> dilatedWindow(const std::vector<int64_t> &kernel,
                                   const std::vector<int64_t> &dil) {
  std::vector<int64_t> w;
  for (size_t i = 0; i < kernel.size(); ++i)
    w.push_back((kernel[i] - 1) * dil[i] + 1);
  return w;
}

/// A 3-D convolution as a sum over the kernel's depth of 2-D ones: tap k
/// reads the depth slices k * dilation + stride * d of the (depth-padded)
/// input, as a batch of N * D_out planes.
T conv3d(T x, const T &w, const std::optional<T> &bias, ConvOptions o) {
  int64_t pd = o.padding[0];
  if (pd) {
    std::vector<int64_t> lo(5, 0);
    lo[2] = pd;
    x = pad(x, lo, lo, 0.0);
  }
  auto xd = x.shape().dims(), wd = w.shape().dims();
  int64_t nb = xd[0], ci = xd[1], d = xd[2], h = xd[3], wid = xd[4];
  int64_t co = wd[0], kd = wd[2];
  int64_t sd = o.stride[0], dd = o.dilation[0];
  int64_t dout = (d - (kd - 1) * dd - 1) / sd + 1;
  if (dout < 1)
    throw Error("the kernel's depth does not fit the input");
  ConvOptions o2;
  o2.stride = {o.stride[1], o.stride[2]};
  o2.padding = {o.padding[1], o.padding[2]};
  o2.dilation = {o.dilation[1], o.dilation[2]};
  o2.groups = o.groups;
  T sum;
  for (int64_t k = 0; k < kd; ++k) {
    T xs =
        slice(x, {0, 0, k * dd, 0, 0},
              {nb, ci, k * dd + (dout - 1) * sd + 1, h, wid}, {1, 1, sd, 1, 1});
    T planes = reshape(permute(xs, {0, 2, 1, 3, 4}), {nb * dout, ci, h, wid});
    T wk = reshape(w.narrow(2, k, 1), {co, wd[1], wd[3], wd[4]});
    T y = conv2d(planes, wk, std::nullopt, o2);
    sum = k ? sum + y : y;
  }
  auto yd = sum.shape().dims();
  T y = permute(reshape(sum, {nb, dout, co, yd[2], yd[3]}), {0, 2, 1, 3, 4});
  if (bias)
    y = y + reshape(*bias, {co, 1, 1, 1});
  return y;
}

/// Conv's mapping on x and w (ConvInteger's and QLinearConv's too, on
/// their real values).
T convWith(NodeContext &c, T x, const T &w, const std::optional<T> &bias) {
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
    c.fail("needs [N, C, spatial...] with 1 to 3 spatial dims, and a weight "
           "of the same rank");
  size_t n = x.rank() - 2;
  std::vector<int64_t> wd = w.shape().dims();
  std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
  std::vector<int64_t> strides = c.attrIntsOf("strides", n, 1, 1, kMaxWindow);
  std::vector<int64_t> dil = c.attrIntsOf("dilations", n, 1, 1, kMaxWindow);
  std::vector<int64_t> pads = windowPads(c, x, kernel, strides, dil);
  x = padForWindow(x, pads, std::vector<int64_t>(n, INT64_MAX / 4), 0.0);
  ConvOptions o;
  o.stride = strides;
  o.padding = pads;
  o.dilation = dil;
  o.groups = c.attrIntAtLeast("group", 1, 1);
  if (n == 3)
    return conv3d(x, w, bias, o);
  return n == 1 ? conv1d(x, w, bias, o) : conv2d(x, w, bias, o);
}

void convOp(NodeContext &c) {
  c.expectAttrs(
      {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  c.set(0, convWith(c, c.in(0), c.in(1), c.optIn(2)));
}

/// ConvInteger: the convolution of (x - x_zp) and (w - w_zp) as int32.
void convIntegerOp(NodeContext &c) {
  c.expectAttrs(
      {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  T x = centered(c, c.in(0), c.optIn(2), 1);
  T w = centered(c, c.in(1), c.optIn(3), 0);
  c.set(0, cast(round(convWith(c, x, w, std::nullopt)), DType::I32));
}

/// QLinearConv: the real convolution of two quantized operands (the
/// weight's scale per tensor or per output channel, an int32 bias at
/// x_scale * w_scale), requantized.
void qLinearConvOp(NodeContext &c) {
  c.expectAttrs(
      {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  T xs = reshape(cast(c.in(1), DType::F32), {});
  T x = centered(c, c.in(0), c.in(2), 1) * xs;
  T wsc = cast(c.in(4), DType::F32);
  T w = centered(c, c.in(3), c.in(5), 0);
  int64_t cout = w.shape()[0];
  std::vector<int64_t> s(w.rank(), 1);
  s[0] = wsc.numel() > 1 ? cout : 1;
  w = w * reshape(wsc, Shape(s));
  std::optional<T> bias;
  if (c.has(8))
    bias = cast(c.in(8), DType::F32) * reshape(wsc * xs, {-1});
  T y = convWith(c, x, w, bias);
  T yq = round(y / reshape(cast(c.in(6), DType::F32), {})) +
         reshape(cast(c.in(7), DType::F32), {});
  c.set(0, saturate(yq, c.in(7).dtype()));
}

/// Transposed convolution with no padding, then cropped by the pads
/// (asymmetric ones, and those implied by output_shape or auto_pad).
void convTransposeOp(NodeContext &c) {
  c.expectAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads",
                 "strides", "output_padding", "output_shape"});
  T x = c.in(0), w = c.in(1);
  if (x.rank() < 3 || w.rank() != x.rank())
    c.fail("needs [N, C, spatial...] and a weight of the same rank");
  size_t n = x.rank() - 2;
  if (n != 1 && n != 2)
    c.fail(std::to_string(n) + "-D transposed convolution is not supported "
                               "(1-D and 2-D are)");
  std::vector<int64_t> wd = w.shape().dims();
  std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
  ConvTransposeOptions o;
  o.stride = c.attrIntsOf("strides", n, 1, 1, kMaxWindow);
  o.dilation = c.attrIntsOf("dilations", n, 1, 1, kMaxWindow);
  o.outputPadding = c.attrIntsOf("output_padding", n, 0, 0, kMaxWindow);
  o.padding.assign(n, 0);
  o.groups = c.attrIntAtLeast("group", 1, 1);
  std::vector<int64_t> full(n);
  for (size_t i = 0; i < n; ++i)
    full[i] = (x.shape()[2 + i] - 1) * o.stride[i] +
              (kernel[i] - 1) * o.dilation[i] + 1 + o.outputPadding[i];
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> pads = c.attrIntsOf("pads", 2 * n, 0, 0, kMaxWindow);
  if (pads.size() != 2 * n)
    c.fail("pads must have " + std::to_string(2 * n) + " entries");
  std::vector<int64_t> outShape;
  if (c.hasAttr("output_shape")) {
    outShape = c.attrInts("output_shape");
    if (outShape.size() == n + 2)
      outShape.erase(outShape.begin(), outShape.begin() + 2);
    for (int64_t d : outShape)
      if (d < 1 || d > kMaxHostElements)
        c.fail("output_shape must hold sizes from 1 to " +
               std::to_string(kMaxHostElements));
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i)
      outShape.push_back(x.shape()[2 + i] * o.stride[i]);
  } else if (autoPad != "NOTSET" && autoPad != "VALID") {
    c.fail("auto_pad " + autoPad + " is not supported");
  }
  if (!outShape.empty()) {
    if (outShape.size() != n)
      c.fail("output_shape must have one entry per spatial dim");
    for (size_t i = 0; i < n; ++i) {
      int64_t total = full[i] - outShape[i];
      if (total < 0) {
        // The output grows past the full size: more output padding.
        o.outputPadding[i] -= total;
        full[i] -= total;
        total = 0;
      }
      bool upper = autoPad != "SAME_LOWER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[n + i] = total - pads[i];
    }
  }
  T y = n == 1 ? convTranspose1d(x, w, c.optIn(2), o)
               : convTranspose2d(x, w, c.optIn(2), o);
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p; })) {
    std::vector<int64_t> st(y.rank(), 0), en(y.shape().dims());
    for (size_t i = 0; i < n; ++i) {
      st[2 + i] = pads[i];
      en[2 + i] = full[i] - pads[n + i];
    }
    y = slice(y, st, en);
  }
  c.set(0, y);
}

/// Kiln's pooling of 1 or 2 spatial dims; 3 as a 2-D pooling of every
/// depth slice, then a 1-D pooling along depth (max and average are both
/// separable: the windows are boxes).
T poolNd(const T &x, const PoolOptions &o, bool isMax) {
  if (o.kernel.size() < 3)
    return isMax ? maxPool(x, o) : avgPool(x, o);
  auto pick = [&](const std::vector<int64_t> &v, size_t from, size_t to) {
    return v.empty() ? v
                     : std::vector<int64_t>(v.begin() + from, v.begin() + to);
  };
  auto xd = x.shape().dims();
  int64_t nb = xd[0], ch = xd[1], d = xd[2];
  PoolOptions hw = o, depth = o;
  hw.kernel = pick(o.kernel, 1, 3);
  hw.stride = pick(o.stride, 1, 3);
  hw.padding = pick(o.padding, 1, 3);
  hw.dilation = pick(o.dilation, 1, 3);
  depth.kernel = pick(o.kernel, 0, 1);
  depth.stride = pick(o.stride, 0, 1);
  depth.padding = pick(o.padding, 0, 1);
  depth.dilation = pick(o.dilation, 0, 1);
  T planes = reshape(x, {nb, ch * d, xd[3], xd[4]});
  T y = isMax ? maxPool(planes, hw) : avgPool(planes, hw);
  int64_t ho = y.shape()[2], wo = y.shape()[3];
  T cols = reshape(permute(reshape(y, {nb, ch, d, ho, wo}), {0, 1, 3, 4, 2}),
                   {nb * ch * ho * wo, 1, d});
  T z = isMax ? maxPool(cols, depth) : avgPool(cols, depth);
  int64_t dout = z.shape()[2];
  return permute(reshape(z, {nb, ch, ho, wo, dout}), {0, 1, 4, 2, 3});
}

OpEntry pool(bool isMax) {
  return {[isMax](NodeContext &c) {
    c.expectAttrs({"auto_pad", "ceil_mode", "count_include_pad", "dilations",
                   "kernel_shape", "pads", "strides", "storage_order"});
    T x = c.in(0);
    std::vector<int64_t> kernel = c.attrInts("kernel_shape");
    for (int64_t k : kernel)
      if (k < 1 || k > kMaxWindow)
        c.fail("kernel_shape must hold sizes from 1 to " +
               std::to_string(kMaxWindow));
    size_t n = kernel.size();
    if (n < 1 || n > 3)
      c.fail(std::to_string(n) +
             "-D pooling is not supported (1-D to 3-D are)");
    if (x.rank() != n + 2)
      c.fail("needs [N, C] and one spatial dim per kernel entry");
    DType dtype = x.dtype();
    if (!dtype.isFloat()) {
      if (!isMax || (dtype != DType::U8 && dtype != DType::I8))
        c.fail(dtype.str() + " inputs are not supported");
      x = cast(x, DType::F32); // exact for 8-bit integers
    }
    std::vector<int64_t> strides = c.attrIntsOf("strides", n, 1, 1, kMaxWindow);
    std::vector<int64_t> dil = c.attrIntsOf("dilations", n, 1, 1, kMaxWindow);
    std::vector<int64_t> pads = windowPads(c, x, kernel, strides, dil);
    bool includePad = c.attrInt("count_include_pad", 0);
    bool anyPad =
        std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p; });
    double fill = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    T unpadded = x;
    x = padForWindow(x, pads, dilatedWindow(kernel, dil), fill);
    bool prePadded = anyPad && std::none_of(pads.begin(), pads.end(),
                                            [](int64_t p) { return p; });
    bool columnMajor = c.attrInt("storage_order", 0);
    if (!isMax && c.opset >= 19 && dil != std::vector<int64_t>(n, 1))
      c.fail("dilated average pooling is not supported");
    PoolOptions o;
    o.kernel = kernel;
    o.stride = strides;
    o.padding = pads;
    if (isMax)
      o.dilation = dil;
    o.ceilMode = c.attrInt("ceil_mode", 0);
    o.countIncludePad = includePad || prePadded;
    if (c.node.output_size() > 1 && !c.node.output(1).empty()) {
      if (!isMax || n != 2 || prePadded)
        c.fail("the indices output is supported for 2-D max pooling with "
               "symmetric pads of at most half the window");
      auto [y, idx] = maxPoolWithIndices(x, o);
      // Kiln's indices count within each [H, W] plane (h * W + w); ONNX's
      // within the whole tensor, and column-major (w * H + h) with
      // storage_order 1.
      auto xd = x.shape().dims();
      if (columnMajor) {
        T h = floor(cast(idx, DType::F64) / static_cast<double>(xd[3]));
        T w = cast(idx, DType::F64) - h * static_cast<double>(xd[3]);
        idx = cast(w * static_cast<double>(xd[2]) + h, DType::I64);
      }
      T planes = reshape(T::arange(xd[0] * xd[1], DType::I64, x.device()),
                         {xd[0], xd[1], 1, 1});
      c.set(0, y.dtype() == dtype ? y : cast(y, dtype));
      c.set(1, idx + planes * static_cast<double>(xd[2] * xd[3]));
      return;
    }
    T y = poolNd(x, o, isMax);
    if (!isMax && !includePad && prePadded) {
      // The average of the input's elements alone: the window sums over the
      // counts of input elements in each window.
      std::vector<int64_t> maskPads =
          windowPads(c, unpadded, kernel, strides, dil);
      T ones = padForWindow(T::ones(unpadded.shape(), x.dtype(), x.device()),
                            maskPads, dilatedWindow(kernel, dil), 0.0);
      y = y / poolNd(ones, o, false);
    }
    c.set(0, y.dtype() == dtype ? y : cast(y, dtype));
  }};
}

OpEntry globalPool(bool isMax) {
  return {[isMax](NodeContext &c) {
    c.expectAttrs({});
    T x = c.in(0);
    std::vector<int64_t> axes;
    for (size_t i = 2; i < x.rank(); ++i)
      axes.push_back(i);
    c.set(0, isMax ? max(x, axes, true) : mean(x, axes, true));
  }};
}

void batchNormOp(NodeContext &c) {
  c.expectAttrs({"epsilon", "momentum", "training_mode", "spatial", "is_test"});
  if (c.attrInt("training_mode", 0))
    c.fail("training_mode=1 is not supported (training ops are out of scope)");
  if (c.node.output_size() > 1)
    c.fail("the running statistics outputs are training-only");
  c.set(0, batchNorm(c.in(0), c.in(3), c.in(4), c.in(1), c.in(2),
                     c.attrFloat("epsilon", 1e-5)));
}

void instanceNormOp(NodeContext &c) {
  c.expectAttrs({"epsilon"});
  c.set(0,
        instanceNorm(c.in(0), c.in(1), c.in(2), c.attrFloat("epsilon", 1e-5)));
}

/// LayerNormalization over the dims from `axis`: Kiln normalizes the last
/// dim, so the trailing dims are flattened into one. The optional outputs
/// are the mean and the inverse standard deviation, in the stash type.
void layerNormOp(NodeContext &c) {
  c.expectAttrs({"axis", "epsilon", "stash_type"});
  T x = c.in(0);
  int64_t axis = normAxis(c, c.attrInt("axis", -1), x.rank());
  double eps = c.attrFloat("epsilon", 1e-5);
  int64_t inner = 1;
  std::vector<int64_t> s, stats;
  for (int64_t i = 0; i < static_cast<int64_t>(x.rank()); ++i) {
    if (i < axis) {
      s.push_back(x.shape()[i]);
      stats.push_back(x.shape()[i]);
    } else {
      inner *= x.shape()[i];
      stats.push_back(1);
    }
  }
  s.push_back(inner);
  std::vector<int64_t> xd = x.shape().dims();
  std::vector<int64_t> norm(xd.begin() + axis, xd.end());
  auto flat = [&](std::optional<T> t) -> std::optional<T> {
    if (!t)
      return t;
    return reshape(expand(*t, Shape(norm)), {inner});
  };
  T y = layerNorm(reshape(x, Shape(s)), flat(c.in(1)), flat(c.optIn(2)), eps);
  c.set(0, reshape(y, x.shape()));
  if (c.node.output_size() > 1) {
    if (c.attrInt("stash_type", 1) != 1)
      c.fail("stash_type must be 1 (float)");
    T x2 = cast(reshape(x, Shape(s)), DType::F32);
    T m = mean(x2, {-1}, true);
    T d = x2 - m;
    c.set(1, reshape(m, Shape(stats)));
    c.set(2, reshape(rsqrt(mean(d * d, {-1}, true) + eps), Shape(stats)));
  }
}

/// -weight[t] * logp[n, t, d...] for each target t but `ignore`, reduced
/// as `reduction` (mean: over the weights of the targets counted).
T nllLoss(const NodeContext &c, const T &logp, const T &target,
          const std::optional<T> &weight) {
  std::string reduction = c.attrString("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    c.fail("reduction must be mean, sum or none, not " + reduction);
  if (logp.rank() < 2 || target.rank() != logp.rank() - 1)
    c.fail("needs scores [N, C, d...] and targets [N, d...]");
  T t = cast(target, DType::I64);
  T valid = T::full(t.shape(), 1, DType::Bool, t.device());
  if (c.hasAttr("ignore_index"))
    valid = ne(t, scalarLike(c.attrInt("ignore_index"), t));
  T safe = where(valid, t, scalarLike(0, t));
  T picked = squeeze(gather(logp, 1, unsqueeze(safe, {1})), {1});
  T w = cast(valid, logp.dtype());
  if (weight)
    w = w * reshape(indexSelect(*weight, 0, reshape(safe, {safe.numel()})),
                    safe.shape());
  T loss = -(picked * w);
  if (reduction == "none")
    return loss;
  if (reduction == "sum")
    return sum(loss);
  return sum(loss) / sum(w);
}

void nllOp(NodeContext &c) {
  c.expectAttrs({"ignore_index", "reduction"});
  c.set(0, nllLoss(c, c.in(0), c.in(1), c.optIn(2)));
}

void softmaxCrossEntropyOp(NodeContext &c) {
  c.expectAttrs({"ignore_index", "reduction"});
  T logp = logSoftmax(c.in(0), 1);
  c.set(0, nllLoss(c, logp, c.in(1), c.optIn(2)));
  c.set(1, logp);
}

void padOp(NodeContext &c) {
  c.expectAttrs({"mode", "pads", "value"});
  T x = c.in(0);
  std::string mode = c.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    c.fail("mode " + mode +
           " is not supported (constant, reflect and edge "
           "are)");
  std::vector<int64_t> pads = c.opset < 11 ? c.attrInts("pads") : c.ints(1);
  double value =
      c.opset < 11 ? c.attrFloat("value", 0.0) : (c.has(2) ? c.scalar(2) : 0.0);
  int64_t rank = x.rank();
  std::vector<int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.has(3))
    axes = normAxes(c, c.ints(3), rank);
  if (pads.size() != 2 * axes.size())
    c.fail("pads must have two entries per axis");
  std::vector<int64_t> lo(rank, 0), hi(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    lo[axes[i]] = pads[i];
    hi[axes[i]] = pads[axes.size() + i];
  }
  for (int64_t i = 0; i < rank; ++i)
    if (std::min(lo[i], hi[i]) < -x.shape()[i] ||
        std::max(lo[i], hi[i]) > kMaxHostElements)
      c.fail("a pad of axis " + std::to_string(i) +
             " is out of range (from minus the axis to " +
             std::to_string(kMaxHostElements) + ")");
  // Negative pads crop.
  std::vector<int64_t> s(rank, 0), e(x.shape().dims());
  bool crop = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (lo[i] < 0) {
      s[i] = -lo[i];
      lo[i] = 0;
      crop = true;
    }
    if (hi[i] < 0) {
      e[i] += hi[i];
      hi[i] = 0;
      crop = true;
    }
  }
  if (crop)
    x = slice(x, s, e);
  if (mode == "constant") {
    c.set(0, pad(x, lo, hi, value));
    return;
  }
  // Edge repeats the border; reflect mirrors the values past it.
  for (int64_t a = 0; a < rank; ++a) {
    if (!lo[a] && !hi[a])
      continue;
    int64_t n = x.shape()[a];
    if (n == 0 || (mode == "reflect" && (lo[a] >= n || hi[a] >= n)))
      c.fail("pads of " + mode + " must be shorter than the axis");
    std::vector<T> parts;
    if (lo[a])
      parts.push_back(mode == "edge" ? repeat(x.narrow(a, 0, 1),
                                              [&] {
                                                std::vector<int64_t> r(rank, 1);
                                                r[a] = lo[a];
                                                return r;
                                              }())
                                     : flip(x.narrow(a, 1, lo[a]), {a}));
    parts.push_back(x);
    if (hi[a])
      parts.push_back(mode == "edge"
                          ? repeat(x.narrow(a, n - 1, 1),
                                   [&] {
                                     std::vector<int64_t> r(rank, 1);
                                     r[a] = hi[a];
                                     return r;
                                   }())
                          : flip(x.narrow(a, n - 1 - hi[a], hi[a]), {a}));
    x = concat(parts, a);
  }
  c.set(0, x);
}

void depthToSpaceOp(NodeContext &c) {
  c.expectAttrs({"blocksize", "mode"});
  T x = c.in(0);
  int64_t b = c.attrIntAtLeast("blocksize", 1);
  std::string mode = c.attrString("mode", "DCR");
  auto d = x.shape().dims();
  if (d.size() != 4 || d[1] % (b * b))
    c.fail("needs [N, C, H, W] with C divisible by blocksize^2");
  int64_t n = d[0], ch = d[1] / (b * b), h = d[2], w = d[3];
  T y = mode == "DCR"
            ? permute(reshape(x, {n, b, b, ch, h, w}), {0, 3, 4, 1, 5, 2})
            : permute(reshape(x, {n, ch, b, b, h, w}), {0, 1, 4, 2, 5, 3});
  c.set(0, reshape(y, {n, ch, h * b, w * b}));
}

void spaceToDepthOp(NodeContext &c) {
  c.expectAttrs({"blocksize"});
  T x = c.in(0);
  int64_t b = c.attrIntAtLeast("blocksize", 1);
  auto d = x.shape().dims();
  if (d.size() != 4 || d[2] % b || d[3] % b)
    c.fail("needs [N, C, H, W] with H and W divisible by blocksize");
  int64_t n = d[0], ch = d[1], h = d[2] / b, w = d[3] / b;
  T y = permute(reshape(x, {n, ch, h, b, w, b}), {0, 3, 5, 1, 2, 4});
  c.set(0, reshape(y, {n, ch * b * b, h, w}));
}

void oneHotOp(NodeContext &c) {
  c.expectAttrs({"axis"});
  T idx = c.in(0), values = c.in(2);
  int64_t depth = c.countOf(c.scalar(1), 0, kMaxHostElements, "depth");
  int64_t rank = idx.rank() + 1;
  int64_t axis = normAxis(c, c.attrInt("axis", -1), rank);
  T i = cast(idx, DType::I64);
  i = where(lt(i, scalarLike(0, i)), i + static_cast<double>(depth), i);
  T pos = T::arange(depth, DType::I64, idx.device());
  std::vector<int64_t> s(rank, 1);
  s[axis] = depth;
  T hot = eq(reshape(pos, Shape(s)), unsqueeze(i, {axis}));
  T off = reshape(slice(values, {0}, {1}), {}),
    on = reshape(slice(values, {1}, {2}), {});
  c.set(0, where(hot, on, off));
}

void triluOp(NodeContext &c) {
  c.expectAttrs({"upper"});
  T x = c.inRank(0, 2, 64);
  int64_t k = c.has(1) ? c.ints(1).at(0) : 0;
  int64_t r = x.rank();
  int64_t rows = x.shape()[r - 2], cols = x.shape()[r - 1];
  T i = reshape(T::arange(rows, DType::I64, x.device()), {rows, 1});
  T j = reshape(T::arange(cols, DType::I64, x.device()), {1, cols});
  T keep = c.attrInt("upper", 1) ? ge(j - i, scalarLike(k, i))
                                 : le(j - i, scalarLike(k, i));
  c.set(0, where(keep, x, T::zeros({}, x.dtype(), x.device())));
}

/// Local response normalization across channels: x / (bias + alpha / size
/// * the sum of squares over a window of `size` channels)^beta.
void lrnOp(NodeContext &c) {
  c.expectAttrs({"alpha", "beta", "bias", "size"});
  T x = c.in(0);
  int64_t size = c.attrInt("size");
  if (size > kMaxWindow)
    c.fail("size must be at most " + std::to_string(kMaxWindow));
  double alpha = c.attrFloat("alpha", 1e-4), beta = c.attrFloat("beta", 0.75),
         bias = c.attrFloat("bias", 1.0);
  if (x.rank() < 3 || size < 1)
    c.fail("needs [N, C, spatial...] and a size >= 1");
  auto xd = x.shape().dims();
  int64_t rank = x.rank(), ch = xd[1];
  std::vector<int64_t> perm{0};
  for (int64_t i = 2; i < rank; ++i)
    perm.push_back(i);
  perm.push_back(1);
  T sq = permute(x * x, perm);
  int64_t rows = x.numel() / std::max<int64_t>(ch, 1);
  T cols = reshape(sq, {rows, 1, ch});
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  cols = pad(cols, {0, 0, lo}, {0, 0, hi}, 0.0);
  PoolOptions o;
  o.kernel = {size};
  o.stride = {1};
  T sums = avgPool(cols, o) * static_cast<double>(size);
  std::vector<int64_t> permShape;
  for (int64_t p : perm)
    permShape.push_back(xd[p]);
  std::vector<int64_t> back(rank);
  for (int64_t i = 0; i < rank; ++i)
    back[perm[i]] = i;
  T s = permute(reshape(sums, Shape(permShape)), back);
  c.set(0, x / pow(s * (alpha / size) + bias, beta));
}

/// The taps of one axis of a Resize: for each output position, the input
/// positions it reads and their weights (and whether it lies outside the
/// input, for tf_crop_and_resize's extrapolation).
struct AxisTaps {
  std::vector<std::vector<int64_t>> index; ///< [tap][out]
  std::vector<std::vector<double>> weight; ///< [tap][out]
  std::vector<bool> outside;
};

/// `length` is the output's length before rounding (in * scale when the
/// scales are given), as align_corners reads it.
AxisTaps resizeTaps(const NodeContext &c, int64_t in, int64_t out,
                    double length, double scale, double roiStart,
                    double roiEnd) {
  std::string mode = c.attrString("mode", "nearest");
  std::string coord =
      c.opset < 11
          ? "asymmetric"
          : c.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearest =
      c.opset < 11 ? "floor"
                   : c.attrString("nearest_mode", "round_prefer_floor");
  double a = c.attrFloat("cubic_coeff_a", -0.75);
  bool exclude = c.attrInt("exclude_outside", 0);
  int taps = mode == "nearest"  ? 1
             : mode == "linear" ? 2
             : mode == "cubic"  ? 4
                                : 0;
  if (!taps)
    c.fail("mode " + mode + " is not supported");
  AxisTaps t;
  t.index.assign(taps, std::vector<int64_t>(out));
  t.weight.assign(taps, std::vector<double>(out));
  t.outside.assign(out, false);
  for (int64_t j = 0; j < out; ++j) {
    double x;
    if (coord == "half_pixel")
      x = (j + 0.5) / scale - 0.5;
    else if (coord == "pytorch_half_pixel")
      x = out > 1 ? (j + 0.5) / scale - 0.5 : 0;
    else if (coord == "align_corners")
      x = length == 1 ? 0 : j * double(in - 1) / (length - 1);
    else if (coord == "asymmetric")
      x = j / scale;
    else if (coord == "tf_half_pixel_for_nn")
      x = (j + 0.5) / scale;
    else if (coord == "tf_crop_and_resize") {
      x = out > 1 ? roiStart * (in - 1) +
                        j * (roiEnd - roiStart) * (in - 1) / double(out - 1)
                  : 0.5 * (roiStart + roiEnd) * (in - 1);
      t.outside[j] = x < 0 || x > in - 1;
    } else
      c.fail("coordinate_transformation_mode " + coord + " is not supported");
    auto clampIdx = [&](int64_t i) {
      return std::clamp<int64_t>(i, 0, in - 1);
    };
    if (taps == 1) {
      int64_t i;
      if (nearest == "round_prefer_floor")
        i = x == std::floor(x) + 0.5 ? int64_t(std::floor(x))
                                     : int64_t(std::round(x));
      else if (nearest == "round_prefer_ceil")
        i = int64_t(std::round(x));
      else if (nearest == "floor")
        i = int64_t(std::floor(x));
      else if (nearest == "ceil")
        i = int64_t(std::ceil(x));
      else
        c.fail("nearest_mode " + nearest + " is not supported");
      t.index[0][j] = clampIdx(i);
      t.weight[0][j] = 1;
      continue;
    }
    int64_t base = int64_t(std::floor(x));
    double r = x - base;
    std::vector<double> w;
    std::vector<int64_t> idx;
    if (taps == 2) {
      w = {1 - r, r};
      idx = {base, base + 1};
    } else {
      auto k = [&](double d) {
        d = std::abs(d);
        if (d <= 1)
          return ((a + 2) * d - (a + 3)) * d * d + 1;
        if (d < 2)
          return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
        return 0.0;
      };
      w = {k(r + 1), k(r), k(1 - r), k(2 - r)};
      idx = {base - 1, base, base + 1, base + 2};
    }
    if (exclude) {
      double total = 0;
      for (int k2 = 0; k2 < taps; ++k2) {
        if (idx[k2] < 0 || idx[k2] >= in)
          w[k2] = 0;
        total += w[k2];
      }
      for (double &v : w)
        v = total ? v / total : 0;
    }
    for (int k2 = 0; k2 < taps; ++k2) {
      t.index[k2][j] = clampIdx(idx[k2]);
      t.weight[k2][j] = w[k2];
    }
  }
  return t;
}

/// Resize (and Upsample) as one weighted gather per tap and axis.
void resizeOp(NodeContext &c) {
  c.expectAttrs({"mode", "coordinate_transformation_mode", "nearest_mode",
                 "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                 "scales", "antialias", "axes", "keep_aspect_ratio_policy"});
  if (c.attrInt("antialias", 0))
    c.fail("antialias=1 is not supported");
  if (c.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
    c.fail("keep_aspect_ratio_policy other than stretch is not supported");
  T x = c.in(0);
  int64_t rank = x.rank();
  bool isUpsample = c.node.op_type() == "Upsample";
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (isUpsample) {
    scales = c.opset < 9 ? c.attrFloats("scales") : c.floats(1);
  } else if (c.opset < 11) {
    scales = c.floats(1);
  } else {
    if (c.has(1) && c.in(1).numel())
      roi = c.floats(1);
    if (c.has(2) && c.in(2).numel())
      scales = c.floats(2);
    if (c.has(3) && c.in(3).numel())
      sizes = c.ints(3);
  }
  std::vector<int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.hasAttr("axes"))
    axes = normAxes(c, c.attrInts("axes"), rank);
  size_t na = axes.size();
  if ((!scales.empty() && scales.size() != na) ||
      (!sizes.empty() && sizes.size() != na) ||
      (scales.empty() == sizes.empty()))
    c.fail("needs one of scales and sizes, with one entry per axis");
  if (!roi.empty() && roi.size() != 2 * na)
    c.fail("roi needs two entries per axis");
  double extrapolation = c.attrFloat("extrapolation_value", 0.0);
  DType dtype = x.dtype();
  T y = dtype.isFloat() ? x : cast(x, DType::F32);
  for (size_t k = 0; k < na; ++k) {
    int64_t a = axes[k], in = x.shape()[a];
    int64_t out = sizes.empty() ? c.countOf(std::floor(in * scales[k]), 1,
                                            kMaxHostElements, "an output size")
                                : sizes[k];
    double scale = sizes.empty() ? scales[k] : double(out) / double(in);
    double r0 = roi.empty() ? 0 : roi[k], r1 = roi.empty() ? 1 : roi[na + k];
    std::string coord =
        c.opset < 11
            ? "asymmetric"
            : c.attrString("coordinate_transformation_mode", "half_pixel");
    if (out == in && scale == 1 && coord != "tf_crop_and_resize")
      continue;
    if (out < 1 || out > kMaxHostElements)
      c.fail("an output size must be from 1 to " +
             std::to_string(kMaxHostElements) + ", not " + std::to_string(out));
    double length = sizes.empty() ? in * scale : double(out);
    AxisTaps t = resizeTaps(c, in, out, length, scale, r0, r1);
    std::vector<int64_t> wshape(rank, 1);
    wshape[a] = out;
    T acc;
    for (size_t tap = 0; tap < t.index.size(); ++tap) {
      T g = indexSelect(y, a, intsTensor(t.index[tap], c.device));
      if (t.index.size() > 1)
        g = g *
            cast(T::fromVector<double>(t.weight[tap], Shape(wshape), c.device),
                 y.dtype());
      acc = tap ? acc + g : g;
    }
    if (std::any_of(t.outside.begin(), t.outside.end(),
                    [](bool b) { return b; })) {
      std::vector<uint8_t> m(t.outside.begin(), t.outside.end());
      T mask =
          reshape(T::fromData(DType::Bool, m.data(), m.size(), {out}, c.device),
                  Shape(wshape));
      acc = where(mask, scalarLike(extrapolation, acc), acc);
    }
    y = acc;
  }
  c.set(0,
        y.dtype() == dtype ? y : cast(dtype.isInteger() ? round(y) : y, dtype));
}

//===--- Recurrent layers -------------------------------------------------===//

T activation(const NodeContext &c, const std::string &name, const T &x) {
  if (name == "Sigmoid")
    return sigmoid(x);
  if (name == "Tanh")
    return tanh(x);
  if (name == "Relu")
    return relu(x);
  c.fail("activation " + name +
         " is not supported (Sigmoid, Tanh and Relu "
         "are)");
}

/// RNN, GRU and LSTM, unrolled over the (static) sequence: the input's
/// products for every step in one matmul, then one step at a time.
OpEntry recurrent(int gates) {
  return {[gates](NodeContext &c) {
    c.expectAttrs({"activations", "activation_alpha", "activation_beta", "clip",
                   "direction", "hidden_size", "input_forget", "layout",
                   "linear_before_reset"});
    if (c.hasAttr("clip"))
      c.fail("clip is not supported");
    if (c.attrInt("input_forget", 0))
      c.fail("input_forget=1 is not supported");
    if (c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
      c.fail("activation_alpha and activation_beta are not supported");
    bool lstm = gates == 4, gru = gates == 3;
    T x = c.inRank(0, 3, 3), w = c.inRank(1, 3, 3), r = c.inRank(2, 3, 3);
    bool batchFirst = c.attrInt("layout", 0);
    if (batchFirst)
      x = transpose(x, 0, 1);
    int64_t seq = x.shape()[0], batch = x.shape()[1];
    int64_t hidden = c.attrInt("hidden_size");
    std::string direction = c.attrString("direction", "forward");
    int64_t dirs = direction == "bidirectional" ? 2 : 1;
    if (direction != "forward" && direction != "reverse" && dirs != 2)
      c.fail("direction " + direction + " is not supported");
    // W [dirs, g H, I], R [dirs, g H, H], B [dirs, 2 g H], initial states
    // [dirs, batch, H], peepholes [dirs, 3 H].
    auto expectShape = [&](size_t i, std::vector<int64_t> want) {
      if (c.has(i) && c.in(i).shape().dims() != want)
        c.fail("input " + std::to_string(i) + " must have shape " +
               Shape(want).str() + ", not " + c.in(i).shape().str());
    };
    if (hidden < 1 || hidden > kMaxHostElements)
      c.fail("hidden_size must be from 1 to " +
             std::to_string(kMaxHostElements));
    expectShape(1, {dirs, gates * hidden, x.shape()[2]});
    expectShape(2, {dirs, gates * hidden, hidden});
    expectShape(3, {dirs, 2 * gates * hidden});
    expectShape(5, {dirs, batch, hidden});
    if (gates == 4) {
      expectShape(6, {dirs, batch, hidden});
      expectShape(7, {dirs, 3 * hidden});
    }
    if (c.has(4)) {
      for (int64_t len : c.ints(4))
        if (len != seq)
          c.fail("sequence_lens shorter than the sequence are not supported");
    }
    std::vector<std::string> acts;
    if (c.hasAttr("activations")) {
      const ::onnx::AttributeProto *a = nullptr;
      for (const auto &attr : c.node.attribute())
        if (attr.name() == "activations")
          a = &attr;
      for (const auto &name : a->strings())
        acts.push_back(name);
    } else {
      std::vector<std::string> one =
          lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
          : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                : std::vector<std::string>{"Tanh"};
      for (int64_t d = 0; d < dirs; ++d)
        acts.insert(acts.end(), one.begin(), one.end());
    }
    size_t perDir = lstm ? 3 : gru ? 2 : 1;
    if (acts.size() != perDir * dirs)
      c.fail("needs " + std::to_string(perDir * dirs) + " activations");
    bool lbr = c.attrInt("linear_before_reset", 0);
    int64_t g = gates;
    std::vector<T> ys, hs, cs;
    for (int64_t d = 0; d < dirs; ++d) {
      auto dirOf = [&](const T &t) {
        std::vector<int64_t> dims = t.shape().dims();
        return reshape(t.narrow(0, d, 1), Shape(std::vector<int64_t>(
                                              dims.begin() + 1, dims.end())));
      };
      T wd = dirOf(w), rd = dirOf(r); // [g H, I], [g H, H]
      std::optional<T> wb, rb;
      if (c.has(3)) {
        T b = dirOf(c.in(3)); // [2 g H]
        wb = b.narrow(0, 0, g * hidden);
        rb = b.narrow(0, g * hidden, g * hidden);
      }
      T h = c.has(5) ? dirOf(c.in(5))
                     : T::zeros({batch, hidden}, x.dtype(), x.device());
      T cell = lstm && c.has(6)
                   ? dirOf(c.in(6))
                   : T::zeros({batch, hidden}, x.dtype(), x.device());
      std::optional<T> peep;
      if (lstm && c.has(7))
        peep = dirOf(c.in(7));
      // [seq, batch, g H]: every step's input product at once.
      T xw = matmul(x, transpose(wd, 0, 1));
      if (wb)
        xw = xw + *wb;
      T rt = transpose(rd, 0, 1);
      const std::string *act = &acts[d * perDir];
      bool reverse = direction == "reverse" || d == 1;
      std::vector<T> outs(seq);
      auto gate = [&](const T &t, int64_t k) {
        return t.narrow(1, k * hidden, hidden);
      };
      for (int64_t step = 0; step < seq; ++step) {
        int64_t tstep = reverse ? seq - 1 - step : step;
        T xt = reshape(xw.narrow(0, tstep, 1), {batch, g * hidden});
        if (lstm) {
          T hr = matmul(h, rt);
          if (rb)
            hr = hr + *rb;
          T z = xt + hr;
          T i = gate(z, 0), o = gate(z, 1), f = gate(z, 2), cc = gate(z, 3);
          if (peep) {
            i = i + cell * peep->narrow(0, 0, hidden);
            f = f + cell * peep->narrow(0, 2 * hidden, hidden);
          }
          i = activation(c, act[0], i);
          f = activation(c, act[0], f);
          cc = activation(c, act[1], cc);
          cell = f * cell + i * cc;
          if (peep)
            o = o + cell * peep->narrow(0, hidden, hidden);
          o = activation(c, act[0], o);
          h = o * activation(c, act[2], cell);
        } else if (gru) {
          T hr = matmul(h, rt);
          if (rb)
            hr = hr + *rb;
          T z = activation(c, act[0], gate(xt, 0) + gate(hr, 0));
          T rr = activation(c, act[0], gate(xt, 1) + gate(hr, 1));
          T hh;
          if (lbr) {
            hh = gate(xt, 2) + rr * gate(hr, 2);
          } else {
            T rh = matmul(rr * h,
                          transpose(rd.narrow(0, 2 * hidden, hidden), 0, 1));
            if (rb)
              rh = rh + rb->narrow(0, 2 * hidden, hidden);
            hh = gate(xt, 2) + rh;
          }
          hh = activation(c, act[1], hh);
          h = (1.0 - z) * hh + z * h;
        } else {
          T hr = matmul(h, rt);
          if (rb)
            hr = hr + *rb;
          h = activation(c, act[0], xt + hr);
        }
        outs[tstep] = unsqueeze(h, {0});
      }
      ys.push_back(unsqueeze(concat(outs, 0), {1})); // [seq, 1, batch, H]
      hs.push_back(unsqueeze(h, {0}));
      cs.push_back(unsqueeze(cell, {0}));
    }
    T y = concat(ys, 1), yh = concat(hs, 0), yc = concat(cs, 0);
    if (batchFirst) {
      y = permute(y, {2, 0, 1, 3});
      yh = transpose(yh, 0, 1);
      yc = transpose(yc, 0, 1);
    }
    c.set(0, y);
    c.set(1, yh);
    if (lstm)
      c.set(2, yc);
  }};
}

/// MaxUnpool: zeros of the output's shape with X's values written at the
/// flat indices I (MaxPool's second output).
void maxUnpoolOp(NodeContext &c) {
  c.expectAttrs({"kernel_shape", "pads", "strides"});
  T x = c.inRank(0, 3, 4), idx = c.in(1);
  size_t n = x.rank() - 2;
  std::vector<int64_t> kernel = c.attrInts("kernel_shape");
  for (int64_t k : kernel)
    if (k < 1 || k > kMaxWindow)
      c.fail("kernel_shape must hold sizes from 1 to " +
             std::to_string(kMaxWindow));
  if (kernel.size() != n)
    c.fail("kernel_shape must have one entry per spatial dim");
  std::vector<int64_t> strides = c.attrIntsOf("strides", n, 1, 1, kMaxWindow);
  std::vector<int64_t> pads = c.attrIntsOf("pads", 2 * n, 0, 0, kMaxWindow);
  // The indices count in the pooled input's shape (the default output);
  // a larger output_shape pads it at the end.
  std::vector<int64_t> dflt(x.shape().dims());
  for (size_t i = 0; i < n; ++i)
    dflt[2 + i] =
        (x.shape()[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[n + i];
  std::vector<int64_t> out = dflt;
  if (c.has(2)) {
    out = c.ints(2);
    if (out.size() != x.rank())
      c.fail("output_shape must have one entry per dim");
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i] < dflt[i])
        c.fail("output_shape " + Shape(out).str() +
               " is smaller than the pooled input " + Shape(dflt).str());
  }
  if (idx.shape() != x.shape())
    c.fail("the indices must have X's shape");
  int64_t total = Shape(dflt).numel();
  T flat = scatterAdd(T::zeros({total}, x.dtype(), x.device()), 0,
                      reshape(cast(idx, DType::I64), {x.numel()}),
                      reshape(x, {x.numel()}));
  std::vector<int64_t> lo(out.size(), 0), hi(out.size());
  for (size_t i = 0; i < out.size(); ++i)
    hi[i] = out[i] - dflt[i];
  T y = reshape(flat, Shape(dflt));
  c.set(0, out == dflt ? y : pad(y, lo, hi, 0.0));
}

/// BitShift of 8-bit unsigned values (Kiln has no wider unsigned dtype).
void bitShiftOp(NodeContext &c) {
  c.expectAttrs({"direction"});
  T x = c.in(0), y = c.in(1);
  std::string dir = c.attrString("direction");
  if (x.dtype() != DType::U8)
    c.fail(x.dtype().str() + " is not supported (u8 is)");
  if (dir != "LEFT" && dir != "RIGHT")
    c.fail("direction must be LEFT or RIGHT, not " + dir);
  T p = pow(T::full({}, 2.0, DType::F64, x.device()), cast(y, DType::F64));
  T v = cast(x, DType::F64);
  T r = dir == "LEFT" ? rem(v * p, T::full({}, 256.0, DType::F64, x.device()))
                      : floor(v / p);
  c.set(0, cast(r, DType::U8));
}

/// The discrete Fourier transform along `axis` of real [..., 1] or complex
/// [..., 2] values, as products with cosine and sine matrices made on the
/// host.
void dftOp(NodeContext &c) {
  c.expectAttrs({"axis", "inverse", "onesided"});
  T x = c.inRank(0, 2, 64);
  int64_t rank = x.rank();
  int64_t comp = x.shape()[rank - 1];
  if (comp != 1 && comp != 2)
    c.fail("the last dim must be 1 (real) or 2 (complex), not " +
           std::to_string(comp));
  int64_t axis = normAxis(c, c.attrInt("axis", 1), rank - 1);
  bool inverse = c.attrInt("inverse", 0), onesided = c.attrInt("onesided", 0);
  int64_t n = x.shape()[axis];
  int64_t len = c.has(1) ? c.countOf(c.scalar(1), 1, 4096, "dft_length") : n;
  if (len < 1 || len > 4096)
    c.fail("dft_length must be from 1 to 4096");
  if (onesided && comp == 2)
    c.fail("onesided needs real input");
  // The axis last, then truncated or zero-padded to len.
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  T v = permute(x, perm); // [..., n, comp]
  if (len < n)
    v = v.narrow(rank - 2, 0, len);
  else if (len > n) {
    std::vector<int64_t> lo(rank, 0), hi(rank, 0);
    hi[rank - 2] = len - n;
    v = pad(v, lo, hi, 0.0);
  }
  int64_t outLen = onesided ? len / 2 + 1 : len;
  std::vector<double> cosv(len * outLen), sinv(len * outLen);
  double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / len : 1.0;
  for (int64_t j = 0; j < len; ++j)
    for (int64_t k = 0; k < outLen; ++k) {
      double a = 2 * M_PI * static_cast<double>((j * k) % len) / len;
      cosv[j * outLen + k] = std::cos(a) * scale;
      sinv[j * outLen + k] = sign * std::sin(a) * scale;
    }
  DType dt = x.dtype();
  T cm = cast(T::fromVector<double>(cosv, {len, outLen}, c.device), dt);
  T sm = cast(T::fromVector<double>(sinv, {len, outLen}, c.device), dt);
  T re = squeeze(v.narrow(rank - 1, 0, 1), {rank - 1});
  // (re + i im)(cos + i sin) summed over j.
  T yr = matmul(re, cm), yi = matmul(re, sm);
  if (comp == 2) {
    T im = squeeze(v.narrow(rank - 1, 1, 1), {rank - 1});
    yr = yr - matmul(im, sm);
    yi = yi + matmul(im, cm);
  }
  T y =
      concat({unsqueeze(yr, {rank - 1}), unsqueeze(yi, {rank - 1})}, rank - 1);
  std::vector<int64_t> back(rank);
  for (int64_t i = 0; i < rank; ++i)
    back[perm[i]] = i;
  c.set(0, permute(y, back));
}

/// GridSample of [N, C, H, W] at the grid's [N, Ho, Wo, 2] coordinates
/// (x, y in [-1, 1]): nearest or bilinear taps gathered from each plane,
/// with zeros, border or reflection padding.
void gridSampleOp(NodeContext &c) {
  c.expectAttrs({"align_corners", "mode", "padding_mode"});
  T x = c.inRank(0, 4, 4), grid = c.inRank(1, 4, 4);
  std::string mode = c.attrString("mode", "bilinear");
  std::string padding = c.attrString("padding_mode", "zeros");
  bool align = c.attrInt("align_corners", 0);
  if (mode != "bilinear" && mode != "nearest")
    c.fail("mode " + mode + " is not supported (bilinear and nearest are)");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    c.fail("padding_mode " + padding + " is not supported");
  auto xd = x.shape().dims(), gd = grid.shape().dims();
  if (gd[0] != xd[0] || gd[3] != 2)
    c.fail("the grid must be [N, Ho, Wo, 2] for X [N, C, H, W]");
  int64_t nb = xd[0], ch = xd[1], h = xd[2], w = xd[3], pix = gd[1] * gd[2];
  T g = reshape(grid, {nb, 1, pix, 2});
  // Pixel coordinates of each output point.
  auto unnormalize = [&](const T &v, int64_t size) {
    return align ? (v + 1.0) * (0.5 * (size - 1))
                 : ((v + 1.0) * static_cast<double>(size) - 1.0) * 0.5;
  };
  auto reflect = [&](T v, int64_t size) {
    // Into [lo, hi] by reflections: [0, size-1] aligned, else [-0.5,
    // size-0.5].
    double lo = align ? 0 : -0.5, hi = align ? size - 1 : size - 0.5;
    double span = hi - lo;
    if (span <= 0)
      return T::zeros(v.shape(), v.dtype(), v.device());
    T d = abs(v - lo);
    T flips = floor(d / span);
    T extra = d - flips * span;
    T even = eq(rem(flips, scalarLike(2, flips)), scalarLike(0, flips));
    return where(even, extra + lo, hi - extra);
  };
  T gx = unnormalize(squeeze(g.narrow(3, 0, 1), {3}), w);
  T gy = unnormalize(squeeze(g.narrow(3, 1, 1), {3}), h);
  if (padding == "border") {
    gx = clamp(gx, 0, w - 1);
    gy = clamp(gy, 0, h - 1);
  } else if (padding == "reflection") {
    gx = clamp(reflect(gx, w), 0, w - 1);
    gy = clamp(reflect(gy, h), 0, h - 1);
  }
  T planes = reshape(x, {nb, ch, h * w});
  // The value at integer coordinates (ix, iy), zero outside the plane.
  auto tap = [&](const T &ix, const T &iy) {
    T inside = logicalAnd(
        logicalAnd(ge(ix, scalarLike(0, ix)), le(ix, scalarLike(w - 1, ix))),
        logicalAnd(ge(iy, scalarLike(0, iy)), le(iy, scalarLike(h - 1, iy))));
    T idx =
        cast(clamp(iy, 0, h - 1) * static_cast<double>(w) + clamp(ix, 0, w - 1),
             DType::I64);
    T v = gather(planes, 2, expand(idx, {nb, ch, pix}));
    return where(inside, v, T::zeros({}, x.dtype(), x.device()));
  };
  T y;
  if (mode == "nearest") {
    y = tap(round(gx), round(gy));
  } else {
    T x0 = floor(gx), y0 = floor(gy);
    T wx = gx - x0, wy = gy - y0;
    y = tap(x0, y0) * ((1.0 - wx) * (1.0 - wy)) +
        tap(x0 + 1.0, y0) * (wx * (1.0 - wy)) +
        tap(x0, y0 + 1.0) * ((1.0 - wx) * wy) +
        tap(x0 + 1.0, y0 + 1.0) * (wx * wy);
  }
  c.set(0, reshape(y, {nb, ch, gd[1], gd[2]}));
}

} // namespace

void kiln::onnx::detail::addNNOps(OpTable &t) {
  t["Conv"] = {convOp};
  t["ConvInteger"] = {convIntegerOp, 10};
  t["QLinearConv"] = {qLinearConvOp, 10};
  t["ConvTranspose"] = {convTransposeOp};
  t["MaxPool"] = pool(true);
  t["AveragePool"] = pool(false);
  t["GlobalAveragePool"] = globalPool(false);
  t["GlobalMaxPool"] = globalPool(true);
  t["BatchNormalization"] = {batchNormOp};
  t["InstanceNormalization"] = {instanceNormOp};
  t["LayerNormalization"] = {layerNormOp, 17};
  t["NegativeLogLikelihoodLoss"] = {nllOp, 12};
  t["SoftmaxCrossEntropyLoss"] = {softmaxCrossEntropyOp, 12};
  t["Pad"] = {padOp};
  t["DepthToSpace"] = {depthToSpaceOp};
  t["SpaceToDepth"] = {spaceToDepthOp};
  t["OneHot"] = {oneHotOp, 9};
  t["Trilu"] = {triluOp, 14};
  t["LRN"] = {lrnOp};
  t["Resize"] = {resizeOp, 10};
  t["Upsample"] = {resizeOp, 7};
  t["RNN"] = recurrent(1);
  t["GRU"] = recurrent(3);
  t["LSTM"] = recurrent(4);
  t["MaxUnpool"] = {maxUnpoolOp, 9};
  t["BitShift"] = {bitShiftOp, 11};
  t["DFT"] = {dftOp, 17};
  t["GridSample"] = {gridSampleOp, 16};
}
