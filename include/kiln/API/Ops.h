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

// Elementwise unary.
Tensor neg(const Tensor &x);
Tensor abs(const Tensor &x);
Tensor exp(const Tensor &x);
Tensor log(const Tensor &x);
Tensor log1p(const Tensor &x);
Tensor sqrt(const Tensor &x);
Tensor rsqrt(const Tensor &x);
Tensor recip(const Tensor &x);
Tensor sin(const Tensor &x);
Tensor cos(const Tensor &x);
Tensor tan(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor sigmoid(const Tensor &x);
Tensor erf(const Tensor &x);
Tensor relu(const Tensor &x);
/// Exact gelu, or the tanh approximation when `tanhApprox`.
Tensor gelu(const Tensor &x, bool tanhApprox = false);
Tensor silu(const Tensor &x);
/// PyTorch's activations of those names: log(sigmoid(x)),
/// x * relu6(x + 3) / 6 and x * tanh(softplus(x)).
Tensor logSigmoid(const Tensor &x);
Tensor hardswish(const Tensor &x);
Tensor mish(const Tensor &x);
/// x where x > 0, else negativeSlope * x.
Tensor leakyRelu(const Tensor &x, double negativeSlope = 0.01);
/// x where x > 0, else alpha * (e^x - 1).
Tensor elu(const Tensor &x, double alpha = 1.0);
/// log(1 + e^(beta x)) / beta, or x where beta x > threshold (beta > 0).
Tensor softplus(const Tensor &x, double beta = 1.0, double threshold = 20.0);
Tensor floor(const Tensor &x);
Tensor ceil(const Tensor &x);
Tensor round(const Tensor &x);
Tensor sign(const Tensor &x);
Tensor clamp(const Tensor &x, double min, double max);
Tensor isNan(const Tensor &x);
Tensor logicalNot(const Tensor &x);

// Elementwise binary, with numpy broadcasting.
Tensor add(const Tensor &x, const Tensor &y);
Tensor sub(const Tensor &x, const Tensor &y);
Tensor mul(const Tensor &x, const Tensor &y);
Tensor div(const Tensor &x, const Tensor &y);
Tensor pow(const Tensor &x, const Tensor &y);
Tensor maximum(const Tensor &x, const Tensor &y);
Tensor minimum(const Tensor &x, const Tensor &y);
Tensor rem(const Tensor &x, const Tensor &y);
Tensor atan2(const Tensor &y, const Tensor &x);
Tensor pow(const Tensor &x, double y);

// Comparison and logic (results are bool).
Tensor eq(const Tensor &x, const Tensor &y);
Tensor ne(const Tensor &x, const Tensor &y);
Tensor lt(const Tensor &x, const Tensor &y);
Tensor le(const Tensor &x, const Tensor &y);
Tensor gt(const Tensor &x, const Tensor &y);
Tensor ge(const Tensor &x, const Tensor &y);
Tensor logicalAnd(const Tensor &x, const Tensor &y);
Tensor logicalOr(const Tensor &x, const Tensor &y);
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
/// The i64 indices that sort x along `axis`: stable (ties keep their
/// order), NaN above every number. A runtime step on Flex and Cpu.
Tensor argsort(const Tensor &x, int64_t axis = -1, bool descending = false);
/// The sorted values (a gather of argsort's indices: their gradient flows
/// back to where each value came from).
Tensor sort(const Tensor &x, int64_t axis = -1, bool descending = false);
/// The k largest (or smallest) values along `axis`, sorted, and their
/// i64 indices; ties keep their order.
std::pair<Tensor, Tensor> topk(const Tensor &x, int64_t k, int64_t axis = -1,
                               bool largest = true);
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
/// Transposed convolutions (the gradient of conv2d or conv1d with respect
/// to its input, as a layer): weight [C_in, C_out / groups, kernel...], bias
/// [C_out]; each output size is (in - 1) * stride - 2 * padding +
/// dilation * (k - 1) + output_padding + 1.
struct ConvTransposeOptions {
  std::vector<int64_t> stride, padding, outputPadding, dilation; ///< 1, 0, 0, 1
  int64_t groups = 1;
};
Tensor convTranspose2d(const Tensor &x, const Tensor &weight,
                       const std::optional<Tensor> &bias = std::nullopt,
                       ConvTransposeOptions options = {});
Tensor convTranspose1d(const Tensor &x, const Tensor &weight,
                       const std::optional<Tensor> &bias = std::nullopt,
                       ConvTransposeOptions options = {});
Tensor maxPool2d(const Tensor &x, std::vector<int64_t> kernel,
                 std::vector<int64_t> stride = {},
                 std::vector<int64_t> padding = {0, 0});
Tensor avgPool2d(const Tensor &x, std::vector<int64_t> kernel,
                 std::vector<int64_t> stride = {},
                 std::vector<int64_t> padding = {0, 0},
                 bool countIncludePad = true);
/// 1-D or 2-D pooling of [N, C, spatial...], one kernel entry per spatial
/// dim (kiln.max_pool, kiln.avg_pool): empty lists mean a stride of the
/// kernel, no padding and no dilation. With `ceilMode` the last partial
/// window is kept when it starts inside the input or its low padding. The
/// divisor of an average counts the padding with `countIncludePad`
/// (average pooling has no dilation).
struct PoolOptions {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceilMode = false;
  bool countIncludePad = true;
};
Tensor maxPool(const Tensor &x, PoolOptions options);
Tensor avgPool(const Tensor &x, PoolOptions options);
/// The maxima and, as i64, the flat index into the input plane (h * W + w)
/// of the first maximum of each window: PyTorch's return_indices.
std::pair<Tensor, Tensor> maxPoolWithIndices(const Tensor &x,
                                             PoolOptions options);
/// Resizes [N, C, L] or [N, C, H, W] as PyTorch's interpolate: to `size`,
/// or by `scale` (the sizes then floor(in * scale), and the coordinates
/// mapped by the scale itself); mode "nearest" or "linear" (bilinear in
/// 2-D), with or without aligned corners (kiln.interpolate).
struct InterpolateOptions {
  std::vector<int64_t> size;
  std::vector<double> scale;
  std::string mode = "nearest";
  bool alignCorners = false;
};
Tensor interpolate(const Tensor &x, InterpolateOptions options);
Tensor layerNorm(const Tensor &x, const std::optional<Tensor> &weight,
                 const std::optional<Tensor> &bias, double eps = 1e-5);
/// Normalizes each channel (dim 1) of x [N, C, ...] with the statistics
/// mean and var [C]: (x - mean) / sqrt(var + eps) * weight + bias
/// (kiln.batch_norm; evaluation mode, with the running statistics).
Tensor batchNorm(const Tensor &x, const Tensor &mean, const Tensor &var,
                 const std::optional<Tensor> &weight,
                 const std::optional<Tensor> &bias, double eps = 1e-5);
/// Batch normalization in training mode: with x's own per-channel mean and
/// biased variance over every dim but 1, as graph ops. When given, the
/// running statistics are rebound to (1 - momentum) * running + momentum *
/// the batch's (unbiased variance), also graph ops, outside the gradient:
/// nothing goes to the host.
Tensor batchNormTraining(const Tensor &x, Tensor *runningMean,
                         Tensor *runningVar,
                         const std::optional<Tensor> &weight,
                         const std::optional<Tensor> &bias,
                         double momentum = 0.1, double eps = 1e-5);
/// Normalizes each sample's `groups` groups of channels of x [N, C, ...]
/// over the group's channels and positions, then scales and shifts each
/// channel by weight and bias [C] (kiln.group_norm).
Tensor groupNorm(const Tensor &x, int64_t groups,
                 const std::optional<Tensor> &weight = std::nullopt,
                 const std::optional<Tensor> &bias = std::nullopt,
                 double eps = 1e-5);
/// Each sample's channels normalized on their own: group_norm with one
/// group per channel.
Tensor instanceNorm(const Tensor &x,
                    const std::optional<Tensor> &weight = std::nullopt,
                    const std::optional<Tensor> &bias = std::nullopt,
                    double eps = 1e-5);
/// Mean and maximum over the windows that cut the H and W of x [N, C, H, W]
/// into size[0] x size[1] cells, as PyTorch's adaptive pooling.
Tensor adaptiveAvgPool2d(const Tensor &x, std::vector<int64_t> size);
Tensor adaptiveMaxPool2d(const Tensor &x, std::vector<int64_t> size);
/// Zeroes each element with probability p and scales the rest by 1/(1-p).
/// The mask is a function of (seed + offset, element index): `offset`, a
/// rank-0 i64 tensor, is read at run time, so a loop that advances it (as
/// nn::Dropout does) draws a new mask each step from one compiled graph.
/// x / sqrt(mean(x^2, last dim) + eps) * weight, as Llama's RMSNorm;
/// weight, when given, is 1-D of the last dim's size.
Tensor rmsNorm(const Tensor &x, const std::optional<Tensor> &weight,
               double eps = 1e-6);
/// The rotary position embedding of x [..., T, D] (D even): row t of dim
/// -2 is at position t + offset (a rank-0 i64 tensor read at run time, so
/// a decoding loop compiles once), and each pair of the last dim turns by
/// position * theta^(-2k / D). The pairs are (k, k + D/2), as Hugging
/// Face's Llama, or (2k, 2k + 1) when `interleaved`.
Tensor rope(const Tensor &x, double theta = 10000.0,
            const std::optional<Tensor> &offset = std::nullopt,
            bool interleaved = false);
Tensor dropout(const Tensor &x, double p, uint64_t seed,
               const std::optional<Tensor> &offset = std::nullopt);
/// How a loss combines its elements.
enum class LossReduction { None, Sum, Mean };

struct CrossEntropyOptions {
  /// Labels equal to it lose 0 and do not count toward the mean.
  int64_t ignoreIndex = -100;
  /// e in [0, 1]: the target is (1 - e) on the label plus e / C on each class.
  double labelSmoothing = 0.0;
  LossReduction reduction = LossReduction::Mean;
};

/// Softmax cross-entropy of logits [N, C, d...] (classes on dim 1) and
/// class indices [N, d...], as PyTorch's: the mean over the counted
/// elements by default, their sum, or each element's loss.
Tensor crossEntropy(const Tensor &logits, const Tensor &labels,
                    const CrossEntropyOptions &options = {});

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
