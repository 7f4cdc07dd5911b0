//===- Attention.cpp - Scaled dot-product attention -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The queries of a key/value group are stacked into one [G * T, D] matrix
// per key/value head (a view of q when q is contiguous), so each group is
// one matmul against its head read in place; the scores are then viewed as
// [B, Hkv, G, T, S] for the mask, which broadcasts over G. The mask and the
// softmax fuse into one row kernel; the scale is q's.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/Attention.h"

#include "kiln/Support/Error.h"

#include <cmath>
#include <limits>

using namespace kiln;

namespace {

[[noreturn]] void fail(const std::string &what, const Tensor &q,
                       const Tensor &k, const Tensor &v) {
  throw Error("scaled_dot_product_attention: " + what + "; q " +
              q.shape().str() + ", k " + k.shape().str() + ", v " +
              v.shape().str());
}

/// `mask` (broadcastable to [B, H, T, S]) viewed as [B', Hkv', G', T', S']
/// to broadcast against scores [B, Hkv, G, T, S].
Tensor groupedMask(const Tensor &mask, int64_t hkv, int64_t g, const Tensor &q,
                   const Tensor &k, const Tensor &v) {
  Shape s = mask.shape();
  if (s.rank() > 4)
    fail("the mask must have rank <= 4, got " + s.str(), q, k, v);
  std::vector<int64_t> dims(4 - s.rank(), 1);
  for (int64_t d : s.dims())
    dims.push_back(d);
  int64_t h = dims[1];
  if (h != 1 && h != hkv * g)
    fail("the mask's head dim " + std::to_string(h) + " is neither 1 nor " +
             std::to_string(hkv * g),
         q, k, v);
  return mask.reshape(
      {dims[0], h == 1 ? 1 : hkv, h == 1 ? 1 : g, dims[2], dims[3]});
}

/// The most negative finite value of a float dtype.
double lowestFinite(DType dtype) {
  switch (dtype.kind()) {
  case DTypeKind::F16:
    return -65504.0;
  case DTypeKind::BF16:
    return -3.3895313892515355e38;
  case DTypeKind::F64:
    return std::numeric_limits<double>::lowest();
  default:
    return std::numeric_limits<float>::lowest();
  }
}

} // namespace

Tensor kiln::scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                       const Tensor &v,
                                       const AttentionOptions &options) {
  Shape qs = q.shape(), ks = k.shape(), vs = v.shape();
  if (qs.rank() != 4 || ks.rank() != 4 || vs.rank() != 4)
    fail("q, k and v must be [B, H, T, D], [B, Hkv, S, D] and [B, Hkv, S, Dv]",
         q, k, v);
  int64_t b = qs[0], h = qs[1], t = qs[2], d = qs[3];
  int64_t hkv = ks[1], s = ks[2];
  if (ks[0] != b || vs[0] != b)
    fail("the batch dims differ", q, k, v);
  if (ks[3] != d)
    fail("q and k differ in their last dim", q, k, v);
  if (vs[1] != hkv || vs[2] != s)
    fail("k and v differ in heads or length", q, k, v);
  if (hkv < 1 || h % hkv != 0)
    fail(std::to_string(hkv) + " key/value heads do not divide " +
             std::to_string(h) + " query heads",
         q, k, v);
  if (options.mask && !options.mask->dtype().isBool() &&
      options.mask->dtype() != q.dtype())
    fail("a float mask must have q's dtype " + q.dtype().str() + ", got " +
             options.mask->dtype().str(),
         q, k, v);
  int64_t g = h / hkv;
  double scale =
      options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(d));
  // [B, Hkv, G * T, D] x [B, Hkv, D, S]: the heads of a group share K. The
  // scale multiplies q, not the scores: the scores' gradient, T times
  // larger than q's, then needs no pass of its own.
  Tensor scaled = q * scale;
  Tensor scores =
      matmul(scaled.reshape({b, hkv, g * t, d}), k.transpose(-2, -1));
  scores = scores.reshape({b, hkv, g, t, s});
  // Masked scores are the dtype's lowest finite value rather than -inf:
  // their exp is 0 all the same, a row with every key masked is uniform
  // rather than NaN, and the Cpu exp runs 8 times slower on -inf.
  const double lowest = lowestFinite(q.dtype());
  if (options.mask) {
    Tensor m = groupedMask(*options.mask, hkv, g, q, k, v);
    scores = m.dtype().isBool() ? maskFill(scores, !m, lowest) : scores + m;
  }
  if (options.causal) {
    Tensor rows =
        Tensor::arange(t, DType::I64, q.device().backend()).reshape({t, 1});
    Tensor cols =
        Tensor::arange(s, DType::I64, q.device().backend()).reshape({1, s});
    scores = maskFill(scores, cols > rows, lowest);
  }
  Tensor weights = softmax(scores, -1).reshape({b, hkv, g * t, s});
  return matmul(weights, v).reshape({b, h, t, vs[3]});
}
