//===- LLM.cpp - Llama, GPT-2 and Hugging Face checkpoints ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/LLM.h"

#include "DecodeStep.h"
#include "Safetensors.h"
#include "Sampling.h"

#include "kiln/API/Attention.h"

#include "llvm/Support/JSON.h"

#include <fstream>
#include <set>
#include <sstream>

using namespace kiln;
using namespace kiln::nn;

namespace {

void append(NamedParameters &to, const NamedParameters &more) {
  to.insert(to.end(), more.begin(), more.end());
}

/// [B, T, heads * hd] as [B, heads, T, hd] (a view).
DispatchTensor splitHeads(const DispatchTensor &x, int64_t heads, int64_t hd) {
  Shape s = x.shape();
  return x.reshape({s[0], s[1], heads, hd}).permute({0, 2, 1, 3});
}

/// [B, heads, T, hd] as [B, T, heads * hd].
DispatchTensor mergeHeads(const DispatchTensor &x) {
  Shape s = x.shape();
  return x.permute({0, 2, 1, 3}).reshape({s[0], s[2], s[1] * s[3]});
}

void checkIds(const std::string &who, const DispatchTensor &ids) {
  if (ids.shape().rank() != 2)
    throw Error(who + ": token ids must be [batch, time], got " +
                ids.shape().str());
}

void checkPrompt(const std::string &who, const std::vector<int64_t> &prompt,
                 int64_t n, int64_t vocab, int64_t capacity,
                 const SampleOptions &options) {
  if (prompt.empty())
    throw Error(who + ": the prompt is empty");
  for (int64_t t : prompt)
    if (t < 0 || t >= vocab)
      throw Error(who + ": prompt token " + std::to_string(t) +
                  " is out of range for a vocabulary of " +
                  std::to_string(vocab));
  if (n < 0)
    throw Error(who + ": cannot generate " + std::to_string(n) + " tokens");
  if (static_cast<int64_t>(prompt.size()) + n > capacity)
    throw Error(who + ": " + std::to_string(prompt.size()) + " + " +
                std::to_string(n) + " tokens exceed the " +
                std::to_string(capacity) + " positions of the model");
  detail::checkSampleOptions(who, options);
}

} // namespace

std::vector<DispatchTensor *> CausalLM::parameters() {
  std::vector<DispatchTensor *> p;
  for (const auto &[name, t] : namedParameters())
    p.push_back(t);
  return p;
}

DispatchTensor CausalLM::loss(const DispatchTensor &ids,
                              const DispatchTensor &targets) const {
  if (targets.shape() != ids.shape())
    throw Error("loss: targets " + targets.shape().str() +
                " must have the shape of the ids " + ids.shape().str());
  return tokenCrossEntropy(forward(ids), targets);
}

//===----------------------------------------------------------------------===//
// Llama
//===----------------------------------------------------------------------===//

static int64_t headDimOf(const LlamaConfig &c) {
  return c.headDim ? c.headDim : c.hidden / std::max<int64_t>(c.heads, 1);
}

LlamaAttention::LlamaAttention(const LlamaConfig &c,
                               const DispatchDevice &device, uint64_t seed)
    : q(c.hidden, c.heads * headDimOf(c), device, seed, false, true),
      k(c.hidden, c.kvHeads * headDimOf(c), device, seed + 2, false, true),
      v(c.hidden, c.kvHeads * headDimOf(c), device, seed + 4, false, true),
      o(c.heads * headDimOf(c), c.hidden, device, seed + 6, false, true),
      heads(c.heads), kvHeads(c.kvHeads), headDim(headDimOf(c)),
      theta(c.ropeTheta) {}

DispatchTensor LlamaAttention::forward(const DispatchTensor &x) const {
  DispatchTensor qh = rope(splitHeads(q.forward(x), heads, headDim), theta);
  DispatchTensor kh = rope(splitHeads(k.forward(x), kvHeads, headDim), theta);
  DispatchTensor vh = splitHeads(v.forward(x), kvHeads, headDim);
  AttentionOptions options;
  options.causal = true;
  return o.forward(mergeHeads(scaledDotProductAttention(qh, kh, vh, options)));
}

DispatchTensor LlamaAttention::decode(const DispatchTensor &x,
                                      const DispatchTensor &pos,
                                      DispatchTensor &keys,
                                      DispatchTensor &values,
                                      const Substitutes *weights) const {
  int64_t cap = keys.shape()[2];
  DispatchTensor qh =
      rope(splitHeads(linearWith(q, x, weights), heads, headDim), theta, pos);
  DispatchTensor kh =
      rope(splitHeads(linearWith(k, x, weights), kvHeads, headDim), theta, pos);
  DispatchTensor vh = splitHeads(linearWith(v, x, weights), kvHeads, headDim);
  DispatchTensor slots =
      DispatchTensor::arange(cap, DType::I64, x.device().backend());
  // The new key and value go to row `pos` of the caches; the query attends
  // to rows 0..pos.
  DispatchTensor here = (slots == pos).reshape({1, 1, cap, 1});
  keys = where(here, kh, keys);
  values = where(here, vh, values);
  AttentionOptions options;
  options.mask = (slots <= pos).reshape({1, 1, 1, cap});
  return linearWith(
      o, mergeHeads(scaledDotProductAttention(qh, keys, values, options)),
      weights);
}

NamedParameters LlamaAttention::namedParameters(const std::string &prefix) {
  return {{prefix + "q_proj.weight", &q.weight},
          {prefix + "k_proj.weight", &k.weight},
          {prefix + "v_proj.weight", &v.weight},
          {prefix + "o_proj.weight", &o.weight}};
}

LlamaBlock::LlamaBlock(const LlamaConfig &c, const DispatchDevice &device,
                       uint64_t seed)
    : inputNorm(c.hidden, device, c.rmsEps), attn(c, device, seed),
      postNorm(c.hidden, device, c.rmsEps),
      mlp(c.hidden, c.intermediate, device, seed + 10) {}

DispatchTensor LlamaBlock::forward(const DispatchTensor &x) const {
  DispatchTensor h = x + attn.forward(inputNorm.forward(x));
  return h + mlp.forward(postNorm.forward(h));
}

DispatchTensor LlamaBlock::decode(const DispatchTensor &x,
                                  const DispatchTensor &pos,
                                  DispatchTensor &keys, DispatchTensor &values,
                                  const Substitutes *weights) const {
  DispatchTensor h =
      x + attn.decode(inputNorm.forward(x), pos, keys, values, weights);
  DispatchTensor m = postNorm.forward(h);
  return h + linearWith(mlp.down,
                        silu(linearWith(mlp.gate, m, weights)) *
                            linearWith(mlp.up, m, weights),
                        weights);
}

NamedParameters LlamaBlock::namedParameters(const std::string &prefix) {
  NamedParameters p = inputNorm.namedParameters(prefix + "input_layernorm.");
  append(p, attn.namedParameters(prefix + "self_attn."));
  append(p, postNorm.namedParameters(prefix + "post_attention_layernorm."));
  append(p, mlp.namedParameters(prefix + "mlp."));
  return p;
}

static const LlamaConfig &checked(const LlamaConfig &c) {
  auto positive = [](int64_t v) { return v >= 1; };
  if (!positive(c.vocab) || !positive(c.hidden) || !positive(c.intermediate) ||
      !positive(c.layers) || !positive(c.heads) || !positive(c.kvHeads) ||
      !positive(c.maxPositions))
    throw Error("Llama: vocab, hidden, intermediate, layers, heads, kvHeads "
                "and maxPositions must be >= 1");
  if (c.heads % c.kvHeads)
    throw Error("Llama: " + std::to_string(c.kvHeads) +
                " key/value heads do not divide " + std::to_string(c.heads) +
                " heads");
  if (!c.headDim && c.hidden % c.heads)
    throw Error("Llama: " + std::to_string(c.heads) +
                " heads do not divide hidden " + std::to_string(c.hidden));
  if (headDimOf(c) % 2)
    throw Error("Llama: the head dim must be even for rope, got " +
                std::to_string(headDimOf(c)));
  return c;
}

Llama::Llama(const LlamaConfig &c, const DispatchDevice &device, uint64_t seed)
    : config(checked(c)), embed(c.vocab, c.hidden, device, seed, 0.02),
      norm(c.hidden, device, c.rmsEps), device_(device) {
  for (int64_t i = 0; i < c.layers; ++i)
    layers.emplace_back(c, device, seed + 100 * static_cast<uint64_t>(i + 1));
  if (!c.tiedEmbeddings)
    head.emplace(c.hidden, c.vocab, device, seed + 1, false, true);
}

DispatchTensor Llama::logits(const DispatchTensor &x,
                             const Substitutes *weights) const {
  DispatchTensor h = norm.forward(x);
  return head ? linearWith(*head, h, weights)
              : matmul(h, embed.weight.transpose(0, 1));
}

DispatchTensor Llama::forward(const DispatchTensor &ids) const {
  checkIds("Llama", ids);
  if (ids.shape()[1] > config.maxPositions)
    throw Error("Llama: " + std::to_string(ids.shape()[1]) +
                " tokens are more than the " +
                std::to_string(config.maxPositions) + " positions");
  DispatchTensor x = embed.forward(ids);
  for (const LlamaBlock &b : layers)
    x = b.forward(x);
  return logits(x);
}

std::vector<int64_t> Llama::generate(const std::vector<int64_t> &prompt,
                                     int64_t n, const SampleOptions &options) {
  checkPrompt("Llama::generate", prompt, n, config.vocab, config.maxPositions,
              options);
  NoGradGuard noGrad;
  DispatchDevice dev = device_.backend();
  const Substitutes *weights = nullptr;
  if (options.q8) {
    std::vector<const Linear *> linears;
    for (const LlamaBlock &b : layers)
      for (const Linear *l : {&b.attn.q, &b.attn.k, &b.attn.v, &b.attn.o,
                              &b.mlp.gate, &b.mlp.up, &b.mlp.down})
        linears.push_back(l);
    if (head)
      linears.push_back(&*head);
    weights = &q8_.refresh(linears);
  }
  int64_t cap = config.maxPositions;
  size_t depth = layers.size();
  std::vector<DispatchTensor> caches; // every layer's keys, then values
  for (size_t i = 0; i < 2 * depth; ++i)
    caches.push_back(DispatchTensor::zeros(
        {1, config.kvHeads, cap, headDimOf(config)}, DType::F32, dev));
  // One token at a position, and the caches, in; the logits after it and
  // the caches with its key and value out: the same graph at every
  // position, recorded once.
  detail::DecodeStep step([&](const std::vector<DispatchTensor> &in) {
    std::vector<DispatchTensor> out(1 + 2 * depth);
    std::copy(in.begin() + 2, in.end(), out.begin() + 1);
    DispatchTensor x = embed.forward(in[0]);
    for (size_t l = 0; l < depth; ++l)
      x = layers[l].decode(x, in[1], out[1 + l], out[1 + depth + l], weights);
    out[0] = logits(x, weights);
    return out;
  });
  int64_t position = 0;
  auto feed = [&](int64_t token) {
    std::vector<DispatchTensor> in = {
        DispatchTensor::fromVector<int64_t>({token}, {1, 1}, dev),
        DispatchTensor::fromVector<int64_t>({position++}, Shape{}, dev)};
    for (DispatchTensor &c : caches)
      in.push_back(std::move(c));
    std::vector<DispatchTensor> out = step(std::move(in));
    std::move(out.begin() + 1, out.end(), caches.begin());
    return out[0].toVector<float>();
  };
  std::mt19937_64 rng(options.seed);
  std::vector<float> next;
  for (int64_t t : prompt)
    next = feed(t);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(detail::sampleToken(next, options, rng));
    if (i + 1 < n)
      next = feed(out.back());
  }
  return out;
}

NamedParameters Llama::namedParameters() {
  NamedParameters p = embed.namedParameters("model.embed_tokens.");
  for (size_t i = 0; i < layers.size(); ++i)
    append(p, layers[i].namedParameters("model.layers." + std::to_string(i) +
                                        "."));
  append(p, norm.namedParameters("model.norm."));
  if (head)
    append(p, {{"lm_head.weight", &head->weight}});
  return p;
}

//===----------------------------------------------------------------------===//
// GPT-2
//===----------------------------------------------------------------------===//

static GPTConfig tied(GPTConfig c) {
  c.tiedHead = true;
  return c;
}

GPT2::GPT2(const GPTConfig &config, const DispatchDevice &device, uint64_t seed)
    : gpt(tied(config), device, seed) {}

DispatchTensor GPT2::forward(const DispatchTensor &ids) const {
  checkIds("GPT2", ids);
  return gpt.forward(ids);
}

std::vector<int64_t> GPT2::generate(const std::vector<int64_t> &prompt,
                                    int64_t n, const SampleOptions &options) {
  checkPrompt("GPT2::generate", prompt, n, gpt.config.vocab, gpt.config.context,
              options);
  std::vector<int64_t> all = gpt.generate(prompt, n, options);
  return std::vector<int64_t>(all.begin() + static_cast<int64_t>(prompt.size()),
                              all.end());
}

NamedParameters GPT2::namedParameters() {
  static const std::vector<std::pair<std::string, std::string>> renames = {
      {"wte.", "transformer.wte."},
      {"wpe.", "transformer.wpe."},
      {"lnf.", "transformer.ln_f."},
      {"blocks.", "transformer.h."},
      {".ln1.", ".ln_1."},
      {".ln2.", ".ln_2."},
      {".attn.qkv.", ".attn.c_attn."},
      {".attn.proj.", ".attn.c_proj."},
      {".fc.", ".mlp.c_fc."},
      {".fc2.", ".mlp.c_proj."}};
  NamedParameters p = gpt.namedParameters();
  for (auto &[name, t] : p)
    for (const auto &[from, to] : renames) {
      size_t at = name.find(from);
      if (at != std::string::npos && (from[0] == '.' || at == 0))
        name.replace(at, from.size(), to);
    }
  return p;
}

//===----------------------------------------------------------------------===//
// fromPretrained
//===----------------------------------------------------------------------===//

namespace {

std::string readFile(const std::string &path, const std::string &what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("fromPretrained: cannot open " + what + " " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

llvm::json::Object parseObject(const std::string &path,
                               const std::string &what) {
  std::string text = readFile(path, what);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    throw Error("fromPretrained: " + path +
                " is not JSON: " + llvm::toString(parsed.takeError()));
  llvm::json::Object *o = parsed->getAsObject();
  if (!o)
    throw Error("fromPretrained: " + path + " is not a JSON object");
  return std::move(*o);
}

/// Reads config fields by name, with errors that name the file and field.
struct ConfigReader {
  const llvm::json::Object &o;
  std::string path;

  int64_t integer(const char *key, std::optional<int64_t> fallback = {}) const {
    const llvm::json::Value *v = o.get(key);
    if (!v || v->kind() == llvm::json::Value::Null) {
      if (fallback)
        return *fallback;
      throw Error("fromPretrained: " + path + " has no \"" + key + "\"");
    }
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i < 0)
      throw Error("fromPretrained: \"" + std::string(key) + "\" in " + path +
                  " must be an integer >= 0");
    return *i;
  }
  double number(const char *key, double fallback) const {
    const llvm::json::Value *v = o.get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return fallback;
    std::optional<double> d = v->getAsNumber();
    if (!d)
      throw Error("fromPretrained: \"" + std::string(key) + "\" in " + path +
                  " must be a number");
    return *d;
  }
  bool boolean(const char *key, bool fallback) const {
    const llvm::json::Value *v = o.get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return fallback;
    std::optional<bool> b = v->getAsBoolean();
    if (!b)
      throw Error("fromPretrained: \"" + std::string(key) + "\" in " + path +
                  " must be true or false");
    return *b;
  }
};

/// The weight files: the shards the index lists (each once, in order), or
/// model.safetensors.
std::vector<std::string> weightFiles(const std::string &dir) {
  std::string index = dir + "/model.safetensors.index.json";
  if (!std::ifstream(index)) {
    std::string single = dir + "/model.safetensors";
    if (!std::ifstream(single))
      throw Error("fromPretrained: " + dir +
                  " has neither model.safetensors nor "
                  "model.safetensors.index.json");
    return {single};
  }
  llvm::json::Object o = parseObject(index, "the shard index");
  const llvm::json::Object *map = o.getObject("weight_map");
  if (!map)
    throw Error("fromPretrained: " + index + " has no \"weight_map\" object");
  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const auto &[name, file] : *map) {
    std::optional<llvm::StringRef> f = file.getAsString();
    if (!f || f->empty() || f->contains('/') || f->contains('\\'))
      throw Error("fromPretrained: " + index + " maps '" + name.str() +
                  "' to no file name in the directory");
    if (seen.insert(f->str()).second)
      files.push_back(dir + "/" + f->str());
  }
  if (files.empty())
    throw Error("fromPretrained: " + index + " lists no shards");
  return files;
}

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

std::unique_ptr<CausalLM> nn::fromPretrained(const std::string &dir,
                                             const DispatchDevice &device) {
  std::string configPath = dir + "/config.json";
  llvm::json::Object o = parseObject(configPath, "the config");
  ConfigReader r{o, configPath};
  std::optional<llvm::StringRef> type = o.getString("model_type");
  if (!type)
    throw Error("fromPretrained: " + configPath + " has no \"model_type\"");
  std::unique_ptr<CausalLM> model;
  std::function<bool(const std::string &)> ignorable;
  if (*type == "llama") {
    LlamaConfig c;
    c.vocab = r.integer("vocab_size");
    c.hidden = r.integer("hidden_size");
    c.intermediate = r.integer("intermediate_size");
    c.layers = r.integer("num_hidden_layers");
    c.heads = r.integer("num_attention_heads");
    c.kvHeads = r.integer("num_key_value_heads", c.heads);
    c.headDim = r.integer("head_dim", 0);
    c.ropeTheta = r.number("rope_theta", 10000.0);
    // Newer configs keep rope's settings in "rope_parameters".
    if (const llvm::json::Object *rp = o.getObject("rope_parameters")) {
      ConfigReader rr{*rp, configPath + " (rope_parameters)"};
      c.ropeTheta = rr.number("rope_theta", c.ropeTheta);
      std::optional<llvm::StringRef> kind = rp->getString("rope_type");
      if (kind && *kind != "default")
        throw Error("fromPretrained: " + configPath + " asks for rope_type \"" +
                    kind->str() + "\", which Kiln does not have");
    }
    c.rmsEps = r.number("rms_norm_eps", 1e-6);
    c.tiedEmbeddings = r.boolean("tie_word_embeddings", false);
    c.maxPositions = r.integer("max_position_embeddings", 2048);
    if (const llvm::json::Value *scaling = o.get("rope_scaling");
        scaling && scaling->kind() != llvm::json::Value::Null)
      throw Error("fromPretrained: " + configPath +
                  " asks for rope_scaling, which Kiln does not have");
    if (r.boolean("attention_bias", false) || r.boolean("mlp_bias", false))
      throw Error("fromPretrained: " + configPath +
                  " asks for attention or MLP biases, which Kiln's Llama "
                  "does not have");
    model = std::make_unique<Llama>(c, device);
    // A tied head may still be stored; rope's frequencies are not weights.
    ignorable = [tiedHead = c.tiedEmbeddings](const std::string &name) {
      return (tiedHead && name == "lm_head.weight") ||
             endsWith(name, ".rotary_emb.inv_freq");
    };
  } else if (*type == "gpt2") {
    GPTConfig c;
    c.vocab = r.integer("vocab_size");
    c.context = r.integer("n_positions");
    c.dim = r.integer("n_embd");
    c.layers = r.integer("n_layer");
    c.heads = r.integer("n_head");
    if (r.number("layer_norm_epsilon", 1e-5) != 1e-5)
      throw Error("fromPretrained: " + configPath +
                  " asks for a layer_norm_epsilon other than 1e-5");
    if (o.get("n_inner") &&
        o.get("n_inner")->kind() != llvm::json::Value::Null &&
        r.integer("n_inner") != 4 * c.dim)
      throw Error("fromPretrained: " + configPath +
                  " asks for an n_inner other than 4 n_embd");
    model = std::make_unique<GPT2>(c, device);
    // The attention's causal-mask buffers of older checkpoints, and the
    // tied head.
    ignorable = [](const std::string &name) {
      return name == "lm_head.weight" || endsWith(name, ".attn.bias") ||
             endsWith(name, ".attn.masked_bias");
    };
  } else {
    throw Error("fromPretrained: model_type \"" + type->str() + "\" in " +
                configPath + " is not one Kiln reads (llama, gpt2)");
  }
  std::vector<std::string> files = weightFiles(dir);
  NamedParameters params = model->namedParameters();
  // GPT-2 checkpoints saved from GPT2Model lack the "transformer." prefix.
  if (*type == "gpt2") {
    bool bare = false;
    for (const std::string &f : files) {
      std::string head = readFile(f, "the weights");
      for (const detail::SafetensorsTensor &t :
           detail::parseSafetensors(head, f))
        if (t.name.rfind("h.0.", 0) == 0 || t.name == "wte.weight")
          bare = true;
      break;
    }
    if (bare)
      for (auto &[name, t] : params)
        name = name.substr(std::string("transformer.").size());
  }
  detail::loadSafetensors(params, files, "fromPretrained", ignorable);
  return model;
}
