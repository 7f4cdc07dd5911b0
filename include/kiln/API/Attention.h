//===- Attention.h - Scaled dot-product attention ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_ATTENTION_H
#define KILN_API_ATTENTION_H

#include "kiln/API/Ops.h"

#include <optional>

namespace kiln {

/// How scaledDotProductAttention masks and scales.
struct AttentionOptions {
  /// Broadcastable to [B, H, T, S]. A bool mask keeps the positions that
  /// are true (PyTorch's convention); a float mask is added to the scores.
  std::optional<Tensor> mask;
  /// Query i attends to keys 0..i (PyTorch's is_causal, aligned at the top
  /// left); together with `mask`, both apply.
  bool causal = false;
  /// 1 / sqrt(D) when unset.
  std::optional<double> scale;
};

/// softmax(q k^T * scale + mask) v for q [B, H, T, D], k [B, Hkv, S, D] and
/// v [B, Hkv, S, Dv], giving [B, H, T, Dv]. Grouped-query attention when
/// Hkv divides H (Hkv < H): query head h reads key/value head h / (H / Hkv),
/// as Hugging Face's repeat_kv, but K and V are never copied: the queries
/// of a group are one matmul against their shared head. Cross attention
/// when S != T. Masked scores become the dtype's lowest finite value, as
/// in Hugging Face's models: a row whose keys are all masked weighs them
/// uniformly.
Tensor scaledDotProductAttention(const Tensor &q, const Tensor &k,
                                 const Tensor &v,
                                 const AttentionOptions &options = {});

} // namespace kiln

#endif // KILN_API_ATTENTION_H
