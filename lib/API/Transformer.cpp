//===- Transformer.cpp - Attention, transformer blocks and a GPT ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/Transformer.h"

#include "DecodeStep.h"
#include "Sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace kiln;
using namespace kiln::nn;

namespace {

void append(std::vector<DispatchTensor *> &to,
            const std::vector<DispatchTensor *> &more) {
  to.insert(to.end(), more.begin(), more.end());
}

void append(NamedParameters &to, const NamedParameters &more) {
  to.insert(to.end(), more.begin(), more.end());
}

/// Q, K and V of x [B, T, dim], each [B, heads, T, head_dim]: views of the
/// one projection (reshape, permute, split), which the matmuls read in place.
std::vector<DispatchTensor> splitHeads(const DispatchTensor &qkv, int64_t b,
                                       int64_t t, int64_t heads, int64_t hd) {
  DispatchTensor h = qkv.reshape({b, t, 3, heads, hd}).permute({2, 0, 3, 1, 4});
  std::vector<DispatchTensor> parts = split(h, {1, 1, 1}, 0);
  for (DispatchTensor &p : parts)
    p = p.squeeze({0});
  return parts;
}

} // namespace

//===----------------------------------------------------------------------===//
// MultiheadAttention
//===----------------------------------------------------------------------===//

MultiheadAttention::MultiheadAttention(int64_t dim, int64_t heads,
                                       const DispatchDevice &device,
                                       uint64_t seed)
    : qkv(dim, 3 * dim, device, seed), proj(dim, dim, device, seed + 2),
      dim(dim), heads(heads) {
  if (heads < 1 || dim % heads != 0)
    throw Error("MultiheadAttention: " + std::to_string(heads) +
                " heads do not divide dim " + std::to_string(dim));
}

const DispatchTensor &
MultiheadAttention::causalMask(int64_t t, const DispatchDevice &d) const {
  auto it = masks_.find(t);
  if (it != masks_.end())
    return it->second;
  std::vector<bool> future(static_cast<size_t>(t * t));
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = i + 1; j < t; ++j)
      future[static_cast<size_t>(i * t + j)] = true;
  DispatchTensor mask = DispatchTensor::fromVector(future, {t, t}, d.backend());
  return masks_.emplace(t, mask.sync()).first->second;
}

DispatchTensor MultiheadAttention::forward(const DispatchTensor &x) const {
  Shape s = x.shape();
  if (s.rank() != 3 || s[2] != dim)
    throw Error("MultiheadAttention: the input must be [batch, time, " +
                std::to_string(dim) + "], got " + s.str());
  int64_t b = s[0], t = s[1], hd = dim / heads;
  std::vector<DispatchTensor> qkvParts =
      splitHeads(qkv.forward(x), b, t, heads, hd);
  // The scale, the mask and the softmax fuse into one row kernel.
  DispatchTensor att = matmul(qkvParts[0], qkvParts[1].transpose(-2, -1)) *
                       (1.0 / std::sqrt(static_cast<double>(hd)));
  att = softmax(maskFill(att, causalMask(t, x.device()),
                         -std::numeric_limits<double>::infinity()),
                -1);
  DispatchTensor y =
      matmul(att, qkvParts[2]).permute({0, 2, 1, 3}).reshape({b, t, dim});
  return proj.forward(y);
}

DispatchTensor MultiheadAttention::decode(const DispatchTensor &x,
                                          const DispatchTensor &pos,
                                          DispatchTensor &keys,
                                          DispatchTensor &values,
                                          const Substitutes *weights) const {
  int64_t hd = dim / heads, cap = keys.shape()[2];
  std::vector<DispatchTensor> qkvParts =
      splitHeads(linearWith(qkv, x, weights), 1, 1, heads, hd);
  DispatchTensor slots =
      DispatchTensor::arange(cap, DType::I64, x.device().backend());
  // The new key and value go to row `pos` of the caches; the query attends
  // to rows 0..pos.
  DispatchTensor here = (slots == pos).reshape({1, 1, cap, 1});
  keys = where(here, qkvParts[1], keys);
  values = where(here, qkvParts[2], values);
  DispatchTensor att = matmul(qkvParts[0], keys.transpose(-2, -1)) *
                       (1.0 / std::sqrt(static_cast<double>(hd)));
  DispatchTensor future = (slots > pos).reshape({1, 1, 1, cap});
  att = softmax(maskFill(att, future, -std::numeric_limits<double>::infinity()),
                -1);
  DispatchTensor y =
      matmul(att, values).permute({0, 2, 1, 3}).reshape({1, 1, dim});
  return linearWith(proj, y, weights);
}

std::vector<DispatchTensor *> MultiheadAttention::parameters() {
  std::vector<DispatchTensor *> p = qkv.parameters();
  append(p, proj.parameters());
  return p;
}

NamedParameters MultiheadAttention::namedParameters(const std::string &prefix) {
  NamedParameters p = qkv.namedParameters(prefix + "qkv.");
  append(p, proj.namedParameters(prefix + "proj."));
  return p;
}

//===----------------------------------------------------------------------===//
// TransformerBlock
//===----------------------------------------------------------------------===//

TransformerBlock::TransformerBlock(int64_t dim, int64_t heads,
                                   const DispatchDevice &device, uint64_t seed)
    : ln1(dim, device), ln2(dim, device), attn(dim, heads, device, seed),
      fc(dim, 4 * dim, device, seed + 4), fc2(4 * dim, dim, device, seed + 6) {}

DispatchTensor TransformerBlock::mlp(const DispatchTensor &x,
                                     const Substitutes *weights) const {
  return linearWith(fc2, gelu(linearWith(fc, x, weights), /*tanhApprox=*/true),
                    weights);
}

DispatchTensor TransformerBlock::forward(const DispatchTensor &x) const {
  DispatchTensor h = x + attn.forward(ln1.forward(x));
  return h + mlp(ln2.forward(h), nullptr);
}

DispatchTensor TransformerBlock::decode(const DispatchTensor &x,
                                        const DispatchTensor &pos,
                                        DispatchTensor &keys,
                                        DispatchTensor &values,
                                        const Substitutes *weights) const {
  DispatchTensor h =
      x + attn.decode(ln1.forward(x), pos, keys, values, weights);
  return h + mlp(ln2.forward(h), weights);
}

std::vector<DispatchTensor *> TransformerBlock::parameters() {
  std::vector<DispatchTensor *> p = ln1.parameters();
  append(p, attn.parameters());
  append(p, ln2.parameters());
  append(p, fc.parameters());
  append(p, fc2.parameters());
  return p;
}

NamedParameters TransformerBlock::namedParameters(const std::string &prefix) {
  NamedParameters p = ln1.namedParameters(prefix + "ln1.");
  append(p, attn.namedParameters(prefix + "attn."));
  append(p, ln2.namedParameters(prefix + "ln2."));
  append(p, fc.namedParameters(prefix + "fc."));
  append(p, fc2.namedParameters(prefix + "fc2."));
  return p;
}

//===----------------------------------------------------------------------===//
// GPT
//===----------------------------------------------------------------------===//

GPT::GPT(const GPTConfig &c, const DispatchDevice &device, uint64_t seed)
    : config(c), wte(c.vocab, c.dim, device, seed, 0.02),
      wpe(c.context, c.dim, device, seed + 1, 0.02), lnf(c.dim, device),
      // A tied head reads wte; its own weight is a placeholder.
      head(c.tiedHead ? 1 : c.dim, c.tiedHead ? 1 : c.vocab, device, seed + 2,
           /*bias=*/false),
      device_(device) {
  if (c.layers < 1 || c.context < 1)
    throw Error("GPT: layers and context must be >= 1, got " +
                std::to_string(c.layers) + " and " + std::to_string(c.context));
  for (int64_t i = 0; i < c.layers; ++i)
    blocks.emplace_back(c.dim, c.heads, device,
                        seed + 100 * static_cast<uint64_t>(i + 1));
}

DispatchTensor GPT::forward(const DispatchTensor &tokens) const {
  Shape s = tokens.shape();
  if (s.rank() != 2)
    throw Error("GPT: tokens must be [batch, time], got " + s.str());
  if (s[1] > config.context)
    throw Error("GPT: " + std::to_string(s[1]) +
                " tokens are more than the context of " +
                std::to_string(config.context));
  DispatchTensor positions =
      DispatchTensor::arange(s[1], DType::I64, tokens.device().backend());
  DispatchTensor x = wte.forward(tokens) + wpe.forward(positions);
  for (const TransformerBlock &b : blocks)
    x = b.forward(x);
  return logits(lnf.forward(x), nullptr);
}

DispatchTensor GPT::logits(const DispatchTensor &x,
                           const Substitutes *weights) const {
  if (config.tiedHead)
    return matmul(x, wte.weight.transpose(0, 1));
  return linearWith(head, x, weights);
}

DispatchTensor GPT::loss(const DispatchTensor &tokens,
                         const DispatchTensor &targets) const {
  if (targets.shape() != tokens.shape())
    throw Error("GPT::loss: targets " + targets.shape().str() +
                " must have the shape of the tokens " + tokens.shape().str());
  return tokenCrossEntropy(forward(tokens), targets);
}

DispatchTensor nn::tokenCrossEntropy(const DispatchTensor &logits,
                                     const DispatchTensor &targets) {
  Shape s = logits.shape();
  if (s.rank() != 3 || targets.shape() != Shape({s[0], s[1]}))
    throw Error("tokenCrossEntropy: logits must be [B, T, vocab] and "
                "targets [B, T], got " +
                s.str() + " and " + targets.shape().str());
  DispatchTensor logp = logSoftmax(logits, -1);
  return -mean(sum(logp * oneHot(targets, s[2], logp.dtype()), {2}));
}

std::vector<DispatchTensor *> GPT::parameters() {
  std::vector<DispatchTensor *> p;
  for (const auto &[name, t] : namedParameters())
    p.push_back(t);
  return p;
}

NamedParameters GPT::namedParameters() {
  NamedParameters p = wte.namedParameters("wte.");
  append(p, wpe.namedParameters("wpe."));
  for (size_t i = 0; i < blocks.size(); ++i)
    append(p, blocks[i].namedParameters("blocks." + std::to_string(i) + "."));
  append(p, lnf.namedParameters("lnf."));
  if (!config.tiedHead)
    append(p, head.namedParameters("head."));
  return p;
}

DispatchTensor nn::linearWith(const Linear &l, const DispatchTensor &x,
                              const Substitutes *weights) {
  if (weights) {
    auto it = weights->find(&l.weight);
    if (it != weights->end()) {
      DispatchTensor y = matmul(x, dequantize(it->second));
      return l.bias ? y + *l.bias : y;
    }
  }
  return l.forward(x);
}

const Substitutes &
Q8Weights::refresh(const std::vector<const Linear *> &linears) {
  // Every weight that changed since it was quantized, in one graph.
  std::vector<DispatchTensor> made;
  for (const Linear *l : linears) {
    DispatchTensor w = l->outIn ? l->weight.transpose(0, 1) : l->weight;
    // Blocks of 16 take the output dims of 16 multiples that 32 does not
    // divide (Llama's SwiGLU 688), which decode reads as whole vectors too.
    int64_t block = w.shape()[1] % 32 == 0 ? 32 : 16;
    if (w.shape()[1] % block != 0)
      continue;
    auto it = from_.find(&l->weight);
    if (it != from_.end() && it->second.lock() == l->weight.kind.node)
      continue;
    DispatchTensor q =
        quantize(w.detach(), QuantScheme::q8Block(block, DTypeKind::F32));
    q8_[&l->weight] = q;
    from_[&l->weight] = l->weight.kind.node;
    made.push_back(q);
  }
  if (!made.empty())
    kiln::sync(made);
  return q8_;
}

const Substitutes &GPT::q8Weights() {
  std::vector<const Linear *> linears;
  for (const TransformerBlock &b : blocks)
    for (const Linear *l : {&b.attn.qkv, &b.attn.proj, &b.fc, &b.fc2})
      linears.push_back(l);
  if (!config.tiedHead)
    linears.push_back(&head);
  return q8_.refresh(linears);
}

std::vector<int64_t> GPT::generate(const std::vector<int64_t> &prompt,
                                   int64_t n, const SampleOptions &options) {
  if (prompt.empty())
    throw Error("GPT::generate: the prompt is empty");
  for (int64_t t : prompt)
    if (t < 0 || t >= config.vocab)
      throw Error("GPT::generate: prompt token " + std::to_string(t) +
                  " is out of range for a vocabulary of " +
                  std::to_string(config.vocab));
  if (n < 0)
    throw Error("GPT::generate: cannot sample " + std::to_string(n) +
                " tokens");
  detail::checkSampleOptions("GPT::generate", options);
  NoGradGuard noGrad;
  DispatchDevice dev = device_.backend();
  const Substitutes *weights = options.q8 ? &q8Weights() : nullptr;
  int64_t cap = config.context, hd = config.dim / config.heads;
  size_t depth = blocks.size();
  std::vector<DispatchTensor> caches(2 * depth); // keys, then values
  auto resetCaches = [&] {
    for (DispatchTensor &c : caches)
      c = DispatchTensor::zeros({1, config.heads, cap, hd}, DType::F32, dev);
  };
  resetCaches();
  // The token and its position, and the caches, in; the logits after it
  // and the caches with its key and value out: recorded once.
  detail::DecodeStep step([&](const std::vector<DispatchTensor> &in) {
    std::vector<DispatchTensor> out(1 + 2 * depth);
    std::copy(in.begin() + 2, in.end(), out.begin() + 1);
    DispatchTensor x = wte.forward(in[0]) + embedding(wpe.weight, in[1]);
    for (size_t l = 0; l < depth; ++l)
      x = blocks[l].decode(x, in[1], out[1 + l], out[1 + depth + l], weights);
    out[0] = this->logits(lnf.forward(x), weights);
    return out;
  });

  std::vector<int64_t> fed; // the tokens in the caches, in order
  // Feeds one token at the next position and returns the logits after it.
  auto feedOne = [&](int64_t token) {
    auto pos = static_cast<int64_t>(fed.size());
    std::vector<DispatchTensor> in = {
        DispatchTensor::fromVector<int64_t>({token}, {1, 1}, dev),
        DispatchTensor::fromVector<int64_t>({pos}, {1}, dev)};
    for (DispatchTensor &c : caches)
      in.push_back(std::move(c));
    std::vector<DispatchTensor> out = step(std::move(in));
    std::move(out.begin() + 1, out.end(), caches.begin());
    fed.push_back(token);
    return out[0].toVector<float>();
  };
  // Past the context, the caches restart from the last context / 2 tokens
  // (positions count from 0 again, as in training).
  auto feed = [&](int64_t token) {
    if (static_cast<int64_t>(fed.size()) == cap) {
      std::vector<int64_t> keep(fed.end() - cap / 2, fed.end());
      fed.clear();
      resetCaches();
      for (int64_t k : keep)
        feedOne(k);
    }
    return feedOne(token);
  };

  std::mt19937_64 rng(options.seed);
  auto sample = [&](const std::vector<float> &logits) {
    return detail::sampleToken(logits, options, rng);
  };

  std::vector<int64_t> out = prompt;
  std::vector<float> logits;
  for (int64_t t : prompt)
    logits = feed(t);
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(sample(logits));
    if (i + 1 < n)
      logits = feed(out.back());
  }
  return out;
}
