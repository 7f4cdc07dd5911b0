//===- Llama.cpp - The Llama workloads of tensor-bench --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// llama_train_step: a Llama-style decoder (grouped-query attention, rope,
// RMSNorm, SwiGLU) trained with clipping and AdamW; llama_decode: the same
// model generating with its key/value cache.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Workloads.h"

#include <cmath>
#include <random>

using namespace bench;
namespace k = kiln;
using k::DispatchDevice;
using Tensor = k::DispatchTensor;

namespace {

/// Random tokens [batch, context] and the next token of each, from `seed`.
std::pair<Tensor, Tensor> llamaBatch(int64_t vocab, int64_t batch,
                                     int64_t context,
                                     const DispatchDevice &dev) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> token(0, vocab - 1);
  std::vector<int64_t> x, y;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<int64_t> seq(context + 1);
    for (int64_t &v : seq)
      v = token(rng);
    x.insert(x.end(), seq.begin(), seq.end() - 1);
    y.insert(y.end(), seq.begin() + 1, seq.end());
  }
  return {Tensor::fromVector<int64_t>(x, {batch, context}, dev.backend()),
          Tensor::fromVector<int64_t>(y, {batch, context}, dev.backend())};
}

/// 6 N B T for the N parameters outside the embedding, and 12 L T d B T
/// for attention's two products.
double llamaFlops(k::nn::Llama &model, int64_t batch, int64_t context) {
  double n = 0;
  for (const auto &[name, p] : model.namedParameters())
    if (name.rfind("model.embed_tokens.", 0) != 0)
      n += static_cast<double>(p->numel());
  double tokens = static_cast<double>(batch * context);
  return 6 * n * tokens + 12.0 * model.config.layers * context *
                              model.config.heads * model.attnHeadDim() * tokens;
}

} // namespace

void Suite::llamaTrainStep() {
  const Sizes &s = opts.sizes;
  k::nn::LlamaConfig c = s.llama;
  int64_t batch = s.llamaBatch, context = s.llamaContext;
  table.legend(
      "llama_train_step",
      "Llama-style decoder (" + std::to_string(c.layers) + " layers, hidden " +
          std::to_string(c.hidden) + ", " + std::to_string(c.heads) +
          " query and " + std::to_string(c.kvHeads) +
          " key/value heads, rope, RMSNorm, SwiGLU " +
          std::to_string(c.intermediate) + ", untied head; context " +
          std::to_string(context) + ", batch " + std::to_string(batch) +
          "): loss, backward, clipping at 1.0, AdamW (3e-4, 0.9/0.95, wd "
          "0.1), Balanced checkpointing; ratio = FLOPs (6 N B T + 12 L T d "
          "B T) / time / FMA peak; the first step's loss is checked against "
          "Flex's");
  double want = 0;
  {
    k::nn::Llama ref(c, DispatchDevice::flex(), 1);
    auto [x, y] = llamaBatch(c.vocab, batch, context, DispatchDevice::flex());
    k::NoGradGuard noGrad;
    want = ref.loss(x, y).item<float>();
  }
  kilnRows("llama_train_step", [&](Record &r, const DispatchDevice &dev,
                                   int t) {
    DispatchDevice ad =
        DispatchDevice::autodiff(dev, k::CheckpointingStrategy::Balanced);
    k::nn::Llama model(c, ad, 1);
    k::optim::AdamW adamw(model.parameters(), 3e-4, 0.9, 0.95, 1e-8, 0.1);
    auto [x, y] = llamaBatch(c.vocab, batch, context, dev);
    auto step = [&] {
      Tensor loss = model.loss(x, y);
      adamw.step(k::optim::clipGradNorm(k::backward(loss), 1.0));
      dev.sync();
      return loss.item<float>();
    };
    double flops = llamaFlops(model, batch, context);
    double t0 = nowMs();
    float first = step();
    double firstMs = nowMs() - t0;
    if (!check(r, [&]() -> std::string {
          if (std::fabs(first - want) <= 1e-4 * std::fabs(want))
            return "";
          return "loss " + fmt("%.7g", first) + ", Flex's " + fmt("%.7g", want);
        }))
      return;
    step();
    k::resetPeakMemory(dev);
    k::BackendCounters c1 = k::backendCounters(dev);
    time(r, [&] { step(); });
    double ms = r.stats.median();
    r.ratio = peakFraction(flops, ms, t);
    r.ratioOf = "FLOPs / time / FMA peak";
    r.add("tok/s", batch * context / (ms * 1e-3), "%.0f");
    r.add("GFLOP/s", flops / (ms * 1e-3) / 1e9, "%.1f");
    r.add("peak_MiB", k::memoryStats(dev).peakBytes / 1048576.0, "%.1f");
    r.add("first_step_ms", firstMs, "%.0f");
    int64_t later = k::backendCounters(dev).compiles - c1.compiles;
    r.add("later_compiles", later);
    if (later != 0)
      r.status = "WRONG: a repeated step compiled";
  });
}

void Suite::llamaDecode() {
  const Sizes &s = opts.sizes;
  k::nn::LlamaConfig c = s.llama;
  table.legend("llama_decode",
               "the llama_train_step model at batch 1: a prompt of " +
                   std::to_string(s.llamaPrompt) + " tokens, then " +
                   std::to_string(s.llamaDecodeTokens) +
                   " tokens (temperature 0.8, top-k 40, top-p 0.9) with the "
                   "key/value cache, f32 weights or q8 blocks of 32 "
                   "dequantized inside the matmuls; ms = one warm generate "
                   "call; tok/s = sampled tokens / time; compiles = "
                   "executables the first call built; ratio (q8 rows) = f32 "
                   "time / q8 time");
  std::vector<int64_t> prompt;
  for (int64_t i = 0; i < s.llamaPrompt; ++i)
    prompt.push_back((i * 37 + 11) % c.vocab);
  F32Times f32ms;
  for (bool q8 : {false, true})
    kilnRows("llama_decode", [&](Record &r, const DispatchDevice &dev, int t) {
      r.add("weights", std::string(q8 ? "q8" : "f32"));
      k::nn::Llama model(c, dev, 1);
      k::nn::SampleOptions o;
      o.temperature = 0.8;
      o.topK = 40;
      o.topP = 0.9;
      o.seed = 5;
      o.q8 = q8;
      decodeRow(
          r, dev, t, q8, s.llamaDecodeTokens,
          [&] { return model.generate(prompt, s.llamaDecodeTokens, o); },
          f32ms);
    });
}
