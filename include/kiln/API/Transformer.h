//===- Transformer.h - Attention, transformer blocks and a GPT --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A decoder-only transformer from the layers of NN.h. Every shape op
// between the matmuls is a view (the head split is a reshape and a permute
// of the QKV projection, the merge a permute and a reshape), and no shape
// is written in terms of the batch, so that a graph with its batch dim
// marked dynamic compiles once for every batch size. Decoding keeps a
// key/value cache of [1, heads, context, head_dim] per layer and runs one
// graph per token whose position is data, so that a whole generate() call
// compiles a bounded number of executables.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_TRANSFORMER_H
#define KILN_API_TRANSFORMER_H

#include "kiln/API/NN.h"

#include <map>

namespace kiln::nn {

/// Tensors to use in place of some parameters, by the parameter's address:
/// decoding with q8 copies of the matmul weights.
using Substitutes = std::map<const DispatchTensor *, DispatchTensor>;

/// l's output for x, with l's weight replaced by its q8 substitute when
/// `weights` has one (dequantized inside the matmul, which unpacks it while
/// packing).
DispatchTensor linearWith(const Linear &l, const DispatchTensor &x,
                          const Substitutes *weights);

/// q8 copies (blocks of 32 along the output dim, or of 16 when the output
/// dim is not whole blocks of 32; f32 scales) of the weights of linear
/// layers, stored [in, out] whatever the layer's layout, each made again
/// only when its weight was rebound (by training) since.
class Q8Weights {
public:
  /// The substitutes of `linears`' weights; a weight whose output dim is
  /// not whole blocks of 16 stays f32 (it has none).
  const Substitutes &refresh(const std::vector<const Linear *> &linears);

private:
  std::map<const DispatchTensor *, std::weak_ptr<detail::Node>> from_;
  Substitutes q8_;
};

/// Causal multi-head self-attention over x [B, T, dim]: one [dim, 3 dim]
/// projection gives Q, K and V, softmax(Q K^T / sqrt(head_dim)) with the
/// future masked weighs V, and a [dim, dim] projection merges the heads.
class MultiheadAttention {
public:
  MultiheadAttention(int64_t dim, int64_t heads, const DispatchDevice &device,
                     uint64_t seed);
  DispatchTensor forward(const DispatchTensor &x) const;
  /// One decoding step: x [1, 1, dim] at position `pos` (an i64 [1] tensor)
  /// writes its key and value into `keys` and `values` ([1, heads, cap,
  /// head_dim], rebound to the updated caches) and attends over positions
  /// 0..pos of them.
  DispatchTensor decode(const DispatchTensor &x, const DispatchTensor &pos,
                        DispatchTensor &keys, DispatchTensor &values,
                        const Substitutes *weights = nullptr) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix);

  Linear qkv, proj;
  int64_t dim, heads;

private:
  /// The [T, T] mask of the future (true above the diagonal), per T.
  const DispatchTensor &causalMask(int64_t t, const DispatchDevice &d) const;
  mutable std::map<int64_t, DispatchTensor> masks_;
};

/// Pre-LayerNorm block: x + attn(ln1(x)), then + fc2(gelu_tanh(fc(ln2(x)))).
class TransformerBlock {
public:
  TransformerBlock(int64_t dim, int64_t heads, const DispatchDevice &device,
                   uint64_t seed);
  DispatchTensor forward(const DispatchTensor &x) const;
  DispatchTensor decode(const DispatchTensor &x, const DispatchTensor &pos,
                        DispatchTensor &keys, DispatchTensor &values,
                        const Substitutes *weights = nullptr) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix);

  LayerNorm ln1, ln2;
  MultiheadAttention attn;
  Linear fc, fc2;

private:
  DispatchTensor mlp(const DispatchTensor &x, const Substitutes *weights) const;
};

struct GPTConfig {
  int64_t vocab = 256, layers = 4, heads = 4, dim = 256, context = 128;
  /// The logits read the token embedding (GPT-2's tied head) instead of a
  /// head of their own.
  bool tiedHead = false;
};

/// Mean cross-entropy of logits [B, T, vocab] against token ids [B, T],
/// picked with a one-hot product rather than a gather (whose gradient
/// would scatter into a zeroed [B, T, vocab] buffer), and without a
/// reshape that names B (a dynamic batch stays dynamic).
DispatchTensor tokenCrossEntropy(const DispatchTensor &logits,
                                 const DispatchTensor &targets);

/// How generate() samples.
struct SampleOptions {
  double temperature = 1.0; ///< 0: the most likely token
  int64_t topK = 0;         ///< 0: every token
  uint64_t seed = 0;
  /// Decode with q8 weights (blocks of 32, f32 scales), dequantized inside
  /// the matmuls that read them (a weight whose rows are not whole blocks
  /// stays f32).
  bool q8 = false;
  /// Nucleus sampling: the fewest most likely tokens whose probability
  /// (after temperature and top-k) reaches topP; 1: every token.
  double topP = 1.0;
};

/// A byte-level GPT: token and position embeddings (N(0, 0.02)), `layers`
/// blocks, a final LayerNorm and a [dim, vocab] head without bias.
class GPT {
public:
  GPT(const GPTConfig &config, const DispatchDevice &device, uint64_t seed);

  /// Logits [B, T, vocab] of tokens [B, T] (i64 or i32, T <= context).
  DispatchTensor forward(const DispatchTensor &tokens) const;
  /// Mean cross-entropy of the next-token predictions: targets [B, T].
  DispatchTensor loss(const DispatchTensor &tokens,
                      const DispatchTensor &targets) const;
  /// `prompt` followed by `n` sampled tokens. Decoding keeps a key/value
  /// cache and runs one graph per token (the position is data), so the
  /// whole call compiles at most three executables: the cache's zeros,
  /// the q8 weights and the step. Past the context, the cache restarts
  /// from the last context / 2 tokens.
  std::vector<int64_t> generate(const std::vector<int64_t> &prompt, int64_t n,
                                const SampleOptions &options = {});

  std::vector<DispatchTensor *> parameters();
  /// Module paths: "wte.weight", "blocks.0.attn.qkv.weight", ...
  NamedParameters namedParameters();

  GPTConfig config;
  Embedding wte, wpe;
  std::vector<TransformerBlock> blocks;
  LayerNorm lnf;
  Linear head; ///< unused, and not a parameter, with tiedHead

private:
  DispatchTensor logits(const DispatchTensor &x,
                        const Substitutes *weights) const;

  /// q8 copies of the matmul weights for decoding.
  const Substitutes &q8Weights();

  DispatchDevice device_;
  Q8Weights q8_;
};

} // namespace kiln::nn

#endif // KILN_API_TRANSFORMER_H
