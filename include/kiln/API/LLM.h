//===- LLM.h - Llama, GPT-2 and Hugging Face checkpoints --------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Decoder-only language models laid out as Hugging Face's transformers
// lays them out, so that a model directory (config.json and
// model.safetensors, or shards listed in model.safetensors.index.json)
// loads by name: nn::fromPretrained. Each model gives logits [B, T, vocab]
// for token ids [B, T], and generates with a key/value cache, one decoding
// graph per token whose position is data (rope's offset, the cache slot),
// so a generate call compiles a bounded number of executables for any
// prompt length.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_LLM_H
#define KILN_API_LLM_H

#include "kiln/API/Transformer.h"

#include <memory>

namespace kiln::nn {

/// What fromPretrained returns: a model of next-token logits.
class CausalLM {
public:
  virtual ~CausalLM() = default;
  /// Logits [B, T, vocab] of token ids [B, T] (i64 or i32).
  virtual DispatchTensor forward(const DispatchTensor &ids) const = 0;
  /// `n` new tokens after `prompt` (not the prompt itself). Temperature 0
  /// is greedy; otherwise top-k, then top-p, then a draw with `seed`; with
  /// q8, the projections' weights are q8 (a tied head stays f32).
  virtual std::vector<int64_t> generate(const std::vector<int64_t> &prompt,
                                        int64_t n,
                                        const SampleOptions &options = {}) = 0;
  /// The parameters under their Hugging Face names.
  virtual NamedParameters namedParameters() = 0;
  virtual int64_t vocab() const = 0;
  std::vector<DispatchTensor *> parameters();
  /// Mean cross-entropy of the next-token predictions of ids [B, T]:
  /// targets [B, T].
  DispatchTensor loss(const DispatchTensor &ids,
                      const DispatchTensor &targets) const;
};

/// LlamaConfig's fields.
struct LlamaConfig {
  int64_t vocab = 32000, hidden = 4096, intermediate = 11008, layers = 32;
  int64_t heads = 32, kvHeads = 32;
  int64_t headDim = 0; ///< 0: hidden / heads
  double ropeTheta = 10000.0, rmsEps = 1e-6;
  bool tiedEmbeddings = false;
  /// The longest sequence: the capacity of generate()'s cache.
  int64_t maxPositions = 2048;
};

/// Llama's self-attention: bias-free [out, in] projections q_proj, k_proj,
/// v_proj and o_proj, rope (half-split) on the queries and keys, and
/// grouped-query attention when kvHeads < heads.
class LlamaAttention {
public:
  LlamaAttention(const LlamaConfig &c, const DispatchDevice &device,
                 uint64_t seed);
  /// Causal attention over x [B, T, hidden] at positions 0..T-1.
  DispatchTensor forward(const DispatchTensor &x) const;
  /// One token x [1, 1, hidden] at position `pos` (a rank-0 i64 tensor):
  /// writes its key and value into the caches [1, kvHeads, cap, headDim]
  /// (rebound to the updated ones) and attends over positions 0..pos.
  DispatchTensor decode(const DispatchTensor &x, const DispatchTensor &pos,
                        DispatchTensor &keys, DispatchTensor &values,
                        const Substitutes *weights = nullptr) const;
  NamedParameters namedParameters(const std::string &prefix);

  Linear q, k, v, o;
  int64_t heads, kvHeads, headDim;
  double theta;
};

/// x + attn(input_layernorm(x)), then + mlp(post_attention_layernorm(x)).
class LlamaBlock {
public:
  LlamaBlock(const LlamaConfig &c, const DispatchDevice &device, uint64_t seed);
  DispatchTensor forward(const DispatchTensor &x) const;
  DispatchTensor decode(const DispatchTensor &x, const DispatchTensor &pos,
                        DispatchTensor &keys, DispatchTensor &values,
                        const Substitutes *weights = nullptr) const;
  NamedParameters namedParameters(const std::string &prefix);

  RMSNorm inputNorm;
  LlamaAttention attn;
  RMSNorm postNorm;
  SwiGLU mlp;
};

/// Llama: embed_tokens, the blocks, a final RMSNorm and lm_head (or the
/// embedding, tied). Random init: N(0, 0.02) embeddings, U(+-1/sqrt(in))
/// projections.
class Llama : public CausalLM {
public:
  Llama(const LlamaConfig &config, const DispatchDevice &device,
        uint64_t seed = 0);
  DispatchTensor forward(const DispatchTensor &ids) const override;
  std::vector<int64_t> generate(const std::vector<int64_t> &prompt, int64_t n,
                                const SampleOptions &options = {}) override;
  /// "model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
  /// ..., "model.norm.weight", "lm_head.weight" (unless tied).
  NamedParameters namedParameters() override;
  int64_t vocab() const override { return config.vocab; }
  /// The attention's head dim (config.headDim, or hidden / heads).
  int64_t attnHeadDim() const { return layers.front().attn.headDim; }

  LlamaConfig config;
  Embedding embed;
  std::vector<LlamaBlock> layers;
  RMSNorm norm;
  std::optional<Linear> head;

private:
  DispatchTensor logits(const DispatchTensor &x,
                        const Substitutes *weights = nullptr) const;
  DispatchDevice device_;
  Q8Weights q8_;
};

/// GPT-2 as Hugging Face lays it out: nn::GPT with a head tied to the token
/// embedding. Its Conv1D weights are [in, out], as nn::Linear's.
class GPT2 : public CausalLM {
public:
  GPT2(const GPTConfig &config, const DispatchDevice &device,
       uint64_t seed = 0);
  DispatchTensor forward(const DispatchTensor &ids) const override;
  std::vector<int64_t> generate(const std::vector<int64_t> &prompt, int64_t n,
                                const SampleOptions &options = {}) override;
  /// "transformer.wte.weight", "transformer.h.0.attn.c_attn.weight", ...
  NamedParameters namedParameters() override;
  int64_t vocab() const override { return gpt.config.vocab; }

  GPT gpt;
};

/// Reads a Hugging Face model directory: config.json (model_type "llama"
/// or "gpt2") and model.safetensors, or the shards that
/// model.safetensors.index.json lists; f32, f16 or bf16 weights become f32
/// parameters on `device`. An unknown model_type, an unreadable file, or a
/// missing, extra or wrongly shaped tensor is a kiln::Error that names it;
/// no model is returned half-loaded.
std::unique_ptr<CausalLM> fromPretrained(const std::string &dir,
                                         const DispatchDevice &device);

} // namespace kiln::nn

#endif // KILN_API_LLM_H
