//===- Workloads.cpp - The rows of tensor-bench ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each workload builds its inputs on the host with a fixed seed, computes
// the hand-written reference once, then for every backend and thread count:
// uploads the inputs, runs the graph once and checks it (that first run also
// compiles), and only then times it. A Kiln error is caught per row and
// printed in it, so that one missing feature does not hide the other rows.
//
//===----------------------------------------------------------------------===//

#include "Workloads.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace bench;
namespace k = kiln;
using k::DispatchDevice;
using k::Tensor;

Sizes Sizes::quick() {
  Sizes s;
  s.ewN = 65536;
  s.reduceN = 262144;
  s.softmaxRows = 64;
  s.softmaxCols = 256;
  s.lnRows = 128;
  s.lnCols = 256;
  s.mm = 128;
  s.mbgM = 128;
  s.mbgK = 64;
  s.mbgN = 256;
  s.mlpBatch = 32;
  s.mlpIn = 64;
  s.mlpHidden = 256;
  s.deepBlocks = 3;
  s.deepBatch = 32;
  s.deepDim = 64;
  s.overheadIters = 1000;
  s.ewOpN = 65536;
  s.triadN = 1 << 22;
  // One layer: the graphs keep every kind of kernel at half the compile.
  s.gpt = {256, 1, 2, 32, 16};
  s.gptBatch = 4;
  s.gptPrompt = 4;
  s.gptDecodeTokens = 24;
  s.llama.layers = 1;
  s.llama.hidden = 64;
  s.llama.intermediate = 96;
  s.llama.heads = 4;
  s.llama.kvHeads = 2;
  s.llama.maxPositions = 32;
  s.llamaBatch = 2;
  s.llamaContext = 16;
  s.llamaPrompt = 4;
  s.llamaDecodeTokens = 12;
  return s;
}

const std::vector<std::string> &bench::allWorkloads() {
  static const std::vector<std::string> names = {"ew_chain",
                                                 "reduce_sum",
                                                 "softmax",
                                                 "layernorm",
                                                 "matmul",
                                                 "matmul_bias_gelu",
                                                 "conv2d",
                                                 "resnet18_infer",
                                                 "resnet_train_step",
                                                 "mlp_train_step",
                                                 "deep_mlp_memory",
                                                 "gpt_train_step",
                                                 "gpt_decode",
                                                 "llama_train_step",
                                                 "llama_decode",
#ifdef KILN_BENCH_ONNX
                                                 "onnx_resnet18",
                                                 "onnx_gpt2",
#endif
                                                 "compile",
                                                 "dynamic",
                                                 "overhead",
                                                 "python",
                                                 "ew_ops"};
  return names;
}

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::vector<float> uniform(int64_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  fillUniform(v.data(), n, seed, lo, hi);
  return v;
}

Tensor upload(const std::vector<float> &v, k::Shape shape,
              const DispatchDevice &dev) {
  return Tensor::fromVector<float>(v, std::move(shape), dev);
}

/// A parameter: uploaded, then tracked with `dev`'s strategy, as nn's own
/// parameters are.
Tensor parameter(const std::vector<float> &v, k::Shape shape,
                 const DispatchDevice &dev) {
  Tensor t = upload(v, std::move(shape), dev.backend());
  t.requireGrad(dev.checkpointing());
  return t;
}

/// "" when every element is within atol + rtol * |want|, else the worst
/// element. `maxErr` gets the largest absolute error.
std::string compare(const float *got, const float *want, int64_t n,
                    double atol, double rtol, double *maxErr = nullptr) {
  double worst = 0, worstExcess = -1;
  int64_t at = -1, bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g = got[i], w = want[i];
    double err = std::fabs(g - w);
    if (std::isnan(g) != std::isnan(w))
      err = INFINITY;
    else if (std::isnan(g))
      err = 0;
    worst = std::max(worst, err);
    double excess = err - (atol + rtol * std::fabs(w));
    if (excess > 0) {
      ++bad;
      if (excess > worstExcess) {
        worstExcess = excess;
        at = i;
      }
    }
  }
  if (maxErr)
    *maxErr = worst;
  if (!bad)
    return "";
  return std::to_string(bad) + " of " + std::to_string(n) +
         " values off, worst at [" + std::to_string(at) + "]: got " +
         fmt("%.7g", got[at]) + ", want " + fmt("%.7g", want[at]);
}

std::string compare(const std::vector<float> &got,
                    const std::vector<float> &want, double atol, double rtol,
                    double *maxErr = nullptr) {
  if (got.size() != want.size())
    return "got " + std::to_string(got.size()) + " values, want " +
           std::to_string(want.size());
  return compare(got.data(), want.data(), static_cast<int64_t>(got.size()),
                 atol, rtol, maxErr);
}

/// One line of an exception's message, for the table.
std::string oneLine(const std::string &s) {
  std::string out;
  for (char c : s)
    out += (c == '\n' ? ' ' : c);
  return out;
}

/// `count` entries of C = A[m,k] @ B[k,n] in double, with the scale of
/// their terms (sum |a||b|) for the tolerance.
struct MatmulSamples {
  std::vector<int64_t> i, j;
  std::vector<double> value, absSum;
};
MatmulSamples sampleMatmul(const std::vector<float> &a,
                           const std::vector<float> &b, int64_t m, int64_t kk,
                           int64_t n, int count) {
  MatmulSamples s;
  uint64_t state = 12345;
  for (int c = 0; c < count; ++c) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t i = static_cast<int64_t>((state >> 33) % m);
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t j = static_cast<int64_t>((state >> 33) % n);
    if (c == 0)
      i = j = 0;
    if (c == 1) {
      i = m - 1;
      j = n - 1;
    }
    double v = 0, abs = 0;
    for (int64_t p = 0; p < kk; ++p) {
      double t = double(a[i * kk + p]) * b[p * n + j];
      v += t;
      abs += std::fabs(t);
    }
    s.i.push_back(i);
    s.j.push_back(j);
    s.value.push_back(v);
    s.absSum.push_back(abs);
  }
  return s;
}

double geluTanhD(double x) {
  return 0.5 * x *
         (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/// Checks sampled entries of an [m, n] result against `s`, after `epilogue`
/// (identity for a plain matmul).
std::string checkSamples(const std::vector<float> &got, int64_t n,
                         const MatmulSamples &s,
                         const std::function<double(double, int64_t)> &epi) {
  for (size_t c = 0; c < s.i.size(); ++c) {
    double want = epi(s.value[c], s.j[c]);
    double g = got[s.i[c] * n + s.j[c]];
    // fp32 accumulation over k: a few ulps of the largest partial sums.
    double tol = 2e-5 * s.absSum[c] + 1e-5 * std::fabs(want) + 1e-6;
    if (!(std::fabs(g - want) <= tol))
      return "C[" + std::to_string(s.i[c]) + "," + std::to_string(s.j[c]) +
             "] = " + fmt("%.7g", g) + ", want " + fmt("%.7g", want);
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The graphs, shared by the rows and by the compile children
//===----------------------------------------------------------------------===//

Tensor ewChainGraph(const Tensor &a, const Tensor &b, const Tensor &c) {
  return k::gelu(a * b + c, /*tanhApprox=*/true) * 0.5 + a;
}

Tensor matmulBiasGeluGraph(const Tensor &x, const Tensor &w, const Tensor &b) {
  return k::gelu(k::matmul(x, w) + b, /*tanhApprox=*/true);
}

Tensor overheadGraph(const Tensor &a, const Tensor &b) {
  Tensor x = a * b;
  x = x + a;
  x = x - b;
  x = x * 0.5;
  x = k::relu(x);
  x = x + 1.0;
  x = k::sqrt(x);
  x = x * a;
  x = x + b;
  return -x;
}

struct MlpHost {
  int64_t batch, in, hidden;
  std::vector<float> x, target, w1, b1, w2, b2;
  MlpHost(int64_t batch, int64_t in, int64_t hidden)
      : batch(batch), in(in), hidden(hidden) {
    float bound1 = 1.0f / std::sqrt(float(in)),
          bound2 = 1.0f / std::sqrt(float(hidden));
    x = uniform(batch * in, 21, -1, 1);
    target = uniform(batch * in, 22, -1, 1);
    w1 = uniform(in * hidden, 23, -bound1, bound1);
    b1 = uniform(hidden, 24, -bound1, bound1);
    w2 = uniform(hidden * in, 25, -bound2, bound2);
    b2 = uniform(in, 26, -bound2, bound2);
  }
  /// Matmul FLOPs of one step: two forward matmuls, and backward's dW2,
  /// dh and dW1 (x is not tracked, so there is no dx).
  double stepFlops() const { return 5.0 * 2.0 * batch * in * hidden; }
};

/// x -> Linear -> gelu_tanh -> Linear -> MSE, trained with SGD(lr 0.01).
struct MlpModel {
  k::nn::Linear l1, l2;
  Tensor x, target;
  std::unique_ptr<k::optim::SGD> sgd;

  MlpModel(const MlpHost &h, const DispatchDevice &dev)
      : l1(h.in, h.hidden, dev, 1), l2(h.hidden, h.in, dev, 3) {
    // Same values on every backend, and the hand-written step's values.
    l1.weight = parameter(h.w1, {h.in, h.hidden}, dev);
    *l1.bias = parameter(h.b1, {h.hidden}, dev);
    l2.weight = parameter(h.w2, {h.hidden, h.in}, dev);
    *l2.bias = parameter(h.b2, {h.in}, dev);
    x = upload(h.x, {h.batch, h.in}, dev.backend());
    target = upload(h.target, {h.batch, h.in}, dev.backend());
    std::vector<Tensor *> params = l1.parameters();
    for (Tensor *p : l2.parameters())
      params.push_back(p);
    sgd = std::make_unique<k::optim::SGD>(params, 0.01);
  }

  Tensor loss() const {
    Tensor d = l2.forward(k::gelu(l1.forward(x), true)) - target;
    return k::mean(d * d);
  }

  /// Forward, backward and the SGD update, materialized by one sync.
  void step() {
    Tensor l = loss();
    {
      k::Gradients g = k::backward(l);
      sgd->step(g);
    }
    k::sync({l, l1.weight, *l1.bias, l2.weight, *l2.bias});
  }
};

struct DeepHost {
  int64_t blocks, batch, dim;
  std::vector<float> x;
  std::vector<std::vector<float>> w, b;
  DeepHost(int64_t blocks, int64_t batch, int64_t dim)
      : blocks(blocks), batch(batch), dim(dim) {
    float bound = 1.0f / std::sqrt(float(dim));
    x = uniform(batch * dim, 31, -1, 1);
    for (int64_t i = 0; i < blocks; ++i) {
      w.push_back(uniform(dim * dim, 100 + 2 * i, -bound, bound));
      b.push_back(uniform(dim, 101 + 2 * i, -bound, bound));
    }
  }
  double stepFlops() const {
    // Forward matmul, then dW and dx of each block (dx of block 0 too: the
    // residual stream reaches the input, which is not tracked, but the
    // other blocks need it).
    return 3.0 * 2.0 * blocks * batch * dim * dim;
  }
};

/// 24 blocks of y = x + gelu_tanh(Linear(LayerNorm(x))).
struct DeepModel {
  std::vector<k::nn::LayerNorm> norms;
  std::vector<k::nn::Linear> linears;
  Tensor x;

  DeepModel(const DeepHost &h, const DispatchDevice &dev) {
    for (int64_t i = 0; i < h.blocks; ++i) {
      norms.emplace_back(h.dim, dev);
      linears.emplace_back(h.dim, h.dim, dev, 1000 + i);
      linears.back().weight = parameter(h.w[i], {h.dim, h.dim}, dev);
      *linears.back().bias = parameter(h.b[i], {h.dim}, dev);
    }
    x = upload(h.x, {h.batch, h.dim}, dev.backend());
  }

  Tensor loss() const {
    Tensor y = x;
    for (size_t i = 0; i < linears.size(); ++i)
      y = y + k::gelu(linears[i].forward(norms[i].forward(y)), true);
    return k::mean(y * y);
  }

  /// The loss and every gradient, materialized together.
  std::vector<Tensor> step() const {
    Tensor l = loss();
    k::Gradients g = k::backward(l);
    std::vector<Tensor> out = {l, g.get(linears.front().weight),
                               g.get(linears.back().weight)};
    for (const Tensor &t : g.all())
      out.push_back(t);
    k::sync(out);
    return out;
  }
};

/// One workload's graph on one device with its inputs uploaded: step()
/// records the graph and materializes it. The compile children use these.
struct Case {
  std::function<void()> step;
};

/// `dynamic`: the batch dim (dim 0 of the data, not of parameters) is
/// marked dynamic. `inputs` collects the inputs uploaded; when it holds
/// some already (another case's), the new case reads the same buffers
/// through inputs of its own, so that two cases timed against each other
/// see the same memory.
Case makeCase(const std::string &w, const Sizes &s, const DispatchDevice &dev,
              bool halfBatch, bool dynamic = false,
              std::vector<Tensor> *inputs = nullptr) {
  auto b = [&](int64_t n) { return halfBatch ? n / 2 : n; };
  auto keep = std::make_shared<std::vector<Tensor>>();
  size_t reused = inputs ? inputs->size() : 0;
  auto up = [&](int64_t n, k::Shape shape, uint64_t seed) {
    size_t i = keep->size();
    keep->push_back(i < reused ? Tensor::from_backend(
                                     (*inputs)[i].try_into_backend<k::Cpu>(),
                                     dev)
                               : upload(uniform(n, seed, -1, 1),
                                        std::move(shape), dev));
    if (inputs && i >= reused)
      inputs->push_back(keep->back());
    return keep->back();
  };
  auto data = [&](int64_t n, k::Shape shape, uint64_t seed) {
    Tensor t = up(n, std::move(shape), seed);
    if (dynamic)
      t.markDynamic(0);
    return t;
  };
  if (w == "ew_chain") {
    int64_t n = b(s.ewN);
    Tensor x = data(n, {n}, 1), y = data(n, {n}, 2), z = data(n, {n}, 3);
    return {[=] { ewChainGraph(x, y, z).sync(); }};
  }
  if (w == "reduce_sum") {
    int64_t n = b(s.reduceN);
    Tensor x = data(n, {n}, 1);
    return {[=] { k::sum(x).sync(); }};
  }
  if (w == "softmax") {
    int64_t r = b(s.softmaxRows), c = s.softmaxCols;
    Tensor x = data(r * c, {r, c}, 1);
    return {[=] { k::softmax(x, -1).sync(); }};
  }
  if (w == "layernorm") {
    int64_t r = b(s.lnRows), c = s.lnCols;
    Tensor x = data(r * c, {r, c}, 1), g = up(c, {c}, 2), be = up(c, {c}, 3);
    return {[=] { k::layerNorm(x, g, be, 1e-5).sync(); }};
  }
  if (w == "matmul") {
    int64_t n = s.mm, m = b(n);
    Tensor x = data(m * n, {m, n}, 1), y = up(n * n, {n, n}, 2);
    return {[=] { k::matmul(x, y).sync(); }};
  }
  if (w == "matmul_bias_gelu") {
    int64_t m = b(s.mbgM), kk = s.mbgK, n = s.mbgN;
    Tensor x = data(m * kk, {m, kk}, 1), y = up(kk * n, {kk, n}, 2),
           bias = up(n, {n}, 3);
    return {[=] { matmulBiasGeluGraph(x, y, bias).sync(); }};
  }
  DispatchDevice ad =
      DispatchDevice::autodiff(dev, k::CheckpointingStrategy::Balanced);
  if (w == "mlp_train_step") {
    auto model = std::make_shared<MlpModel>(
        MlpHost(b(s.mlpBatch), s.mlpIn, s.mlpHidden), ad);
    if (dynamic) {
      model->x.markDynamic(0);
      model->target.markDynamic(0);
    }
    return {[=] { model->step(); }};
  }
  if (w == "deep_mlp_memory") {
    auto model = std::make_shared<DeepModel>(
        DeepHost(s.deepBlocks, b(s.deepBatch), s.deepDim), ad);
    if (dynamic)
      model->x.markDynamic(0);
    return {[=] { model->step(); }};
  }
  if (w == "gpt_train_step")
    return {gptTrainCase(s, dev, b(s.gptBatch), dynamic)};
  throw k::Error("no graph named " + w);
}

/// The graphs the compile and dynamic rows compile. A --quick run leaves
/// out the GPT, whose compile (seconds) gpt_train_step already makes.
std::vector<std::string> compileWorkloads(bool quick) {
  std::vector<std::string> names = {
      "ew_chain",       "reduce_sum",      "softmax",
      "layernorm",      "matmul",          "matmul_bias_gelu",
      "mlp_train_step", "deep_mlp_memory", "gpt_train_step"};
  if (quick)
    names.pop_back();
  return names;
}

} // namespace

std::string bench::fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string bench::compareScaled(const std::vector<float> &got,
                                 const std::vector<float> &want, double tol,
                                 const std::string &what) {
  double scale = 0;
  for (float w : want)
    scale = std::max(scale, double(std::fabs(w)));
  std::string bad = compare(got, want, tol * std::max(scale, 1e-30), 0);
  return bad.empty() ? "" : what + ": " + bad;
}

//===----------------------------------------------------------------------===//
// Suite plumbing
//===----------------------------------------------------------------------===//

void Suite::run(const std::string &w) {
  if (w == "ew_chain")
    ewChain();
  else if (w == "reduce_sum")
    reduceSum();
  else if (w == "softmax")
    softmax();
  else if (w == "layernorm")
    layerNorm();
  else if (w == "matmul")
    matmul();
  else if (w == "matmul_bias_gelu")
    matmulBiasGelu();
  else if (w == "conv2d")
    conv2d();
  else if (w == "resnet18_infer")
    resnet18Infer();
  else if (w == "resnet_train_step")
    resnetTrainStep();
  else if (w == "mlp_train_step")
    mlpTrainStep();
  else if (w == "deep_mlp_memory")
    deepMlpMemory();
  else if (w == "gpt_train_step") {
    gptTrainStep();
    gptDataParallel();
  }
  else if (w == "gpt_decode")
    gptDecode();
  else if (w == "llama_train_step")
    llamaTrainStep();
  else if (w == "llama_decode")
    llamaDecode();
#ifdef KILN_BENCH_ONNX
  else if (w == "onnx_resnet18")
    onnxResnet18();
  else if (w == "onnx_gpt2")
    onnxGpt2();
#endif
  else if (w == "compile")
    compile();
  else if (w == "dynamic")
    dynamic();
  else if (w == "overhead")
    overhead();
  else if (w == "python")
    python();
  else if (w == "ew_ops")
    ewOps();
}

void Suite::emit(const Record &r) {
  table.row(r);
  records.push_back(r);
}

double Suite::idealMs(double bytes, int threads) const {
  auto it = machine.bytesPerSec.find(threads);
  return it == machine.bytesPerSec.end() ? NAN : bytes / it->second * 1e3;
}

double Suite::peakFraction(double flops, double ms, int threads) const {
  auto it = machine.flopsPerSec.find(threads);
  return it == machine.flopsPerSec.end() ? NAN
                                         : flops / (ms * 1e-3) / it->second;
}

void Suite::strategyRows(
    const std::string &workload,
    const std::function<int64_t(Record &, const DispatchDevice &, int, int,
                                const k::CheckpointingStrategy &,
                                const StrategyBaseline &)> &row,
    bool balancedOnly) {
  for (const auto &[name, dev] : devs)
    for (int t : opts.threads) {
      StrategyBaseline base;
      for (int which = 0; which < 3; ++which) {
        Record r;
        r.workload = workload;
        r.backend = name;
        const char *label[] = {"disabled", "balanced", "budget"};
        r.add("strategy", std::string(label[which]));
        guardedRow(r, t, [&, &dev = dev] {
          if (balancedOnly && which != 1) {
            r.status = "skipped: --quick runs the Balanced row only";
            return;
          }
          int64_t budget = 0;
          std::optional<k::CheckpointingStrategy> strategy =
              strategyOfRow(which, base.peak, budget);
          if (!strategy) {
            r.status = "skipped: needs the Disabled and Balanced peaks";
            return;
          }
          int64_t peakNow = row(r, dev, t, which, *strategy, base);
          if (!peakNow)
            return;
          if (which < 2) {
            base.peak[which] = peakNow;
            base.ms[which] = r.stats.median();
          } else {
            r.add("budget_MiB", budget / 1048576.0, "%.1f");
            r.add("under_budget",
                  std::string(peakNow <= budget ? "yes" : "NO"));
          }
        });
      }
    }
}

void Suite::kilnRows(const std::string &workload,
                     const std::function<void(Record &, const DispatchDevice &,
                                              int)> &body,
                     const std::vector<std::string> &only) {
  for (const auto &[name, dev] : devs) {
    if (!only.empty() &&
        std::find(only.begin(), only.end(), name) == only.end())
      continue;
    for (int t : opts.threads) {
      Record r;
      r.workload = workload;
      r.backend = name;
      guardedRow(r, t, [&, &dev = dev] { body(r, dev, t); });
    }
  }
}

void Suite::guardedRow(Record &r, int t, const std::function<void()> &body) {
  r.threads = t;
  try {
    k::setNumThreads(t);
    body();
  } catch (const std::exception &e) {
    r.stats.ms.clear();
    r.ratio.reset();
    r.vsHand.reset();
    r.status = "ERROR: " + oneLine(e.what());
  }
  emit(r);
}

bool Suite::check(Record &r, const std::function<std::string()> &fn) {
  std::string bad = fn();
  if (bad.empty())
    return true;
  r.status = "WRONG: " + oneLine(bad);
  return false;
}

void Suite::time(Record &r, const std::function<void()> &step) {
  r.stats = timeRuns(opts.warmup, opts.runs, step);
}

void Suite::memoryBound(Record &r, double bytes,
                        const std::map<int, double> &hand) {
  if (r.stats.ms.empty())
    return;
  double ms = r.stats.median();
  r.ratio = idealMs(bytes, r.threads) / ms;
  r.ratioOf = "bandwidth-ideal time / time";
  auto it = hand.find(r.threads);
  if (it != hand.end())
    r.vsHand = it->second / ms;
  r.add("GB/s", bytes / (ms * 1e-3) / 1e9, "%.1f");
}

//===----------------------------------------------------------------------===//
// Memory-bound workloads
//===----------------------------------------------------------------------===//

void Suite::handRows(const std::string &workload,
                     const std::function<std::string(int)> &check,
                     const std::function<void(int)> &step,
                     const std::function<void(Record &)> &ratio,
                     std::map<int, double> &hand, const std::string &backend) {
  bool blas = backend == "blas";
  if (blas && !haveBlas())
    return;
  for (int t : opts.threads) {
    Record r;
    r.workload = workload;
    r.backend = backend;
    r.threads = t;
    if (this->check(r, [&] { return check(t); })) {
      time(r, [&] { step(t); });
      hand[t] = r.stats.median();
      ratio(r);
      if (!blas)
        r.vsHand = 1.0;
    }
    emit(r);
  }
}

void Suite::addVsBlas(Record &r, const std::map<int, double> &blas) {
  auto it = blas.find(r.threads);
  if (it != blas.end() && !r.stats.ms.empty())
    r.add("vs_blas", it->second / r.stats.median(), "%.3f");
}

void Suite::ewChain() {
  const int64_t n = opts.sizes.ewN;
  const double bytes = 4.0 * 4 * n;
  table.legend("ew_chain",
               "out = gelu_tanh(a*b + c)*0.5 + a, N=" + std::to_string(n) +
                   "; ratio = bandwidth-ideal time (3 reads + 1 write) / "
                   "time; vs_hand = hand loop time / time");
  std::vector<float> a = uniform(n, 1, -2, 2), b = uniform(n, 2, -2, 2),
                     c = uniform(n, 3, -2, 2), want(n), out(n);
  // Computed in double, so that the hand loop is checked too.
  parallelFor(2, n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      want[i] = float(geluTanhD(double(a[i]) * b[i] + c[i]) * 0.5 + a[i]);
  });
  std::map<int, double> hand;
  handRows(
      "ew_chain",
      [&](int t) {
        refEwChain(a.data(), b.data(), c.data(), out.data(), n, t);
        return compare(out, want, 1e-5, 1e-5);
      },
      [&](int t) { refEwChain(a.data(), b.data(), c.data(), out.data(), n, t); },
      [&](Record &r) { memoryBound(r, bytes, {}); }, hand);
  kilnRows("ew_chain", [&](Record &r, const DispatchDevice &dev, int) {
    Tensor ta = upload(a, {n}, dev), tb = upload(b, {n}, dev),
           tc = upload(c, {n}, dev);
    Tensor keep;
    double err = 0;
    if (!check(r, [&] {
          return compare(ewChainGraph(ta, tb, tc).toVector<float>(), want,
                         1e-4, 1e-4, &err);
        }))
      return;
    time(r, [&] {
      keep = Tensor(); // the previous result's buffer may be reused
      keep = ewChainGraph(ta, tb, tc);
      keep.sync();
    });
    memoryBound(r, bytes, hand);
    r.add("max_err", err, "%.1e");
  });
}

void Suite::reduceSum() {
  const int64_t n = opts.sizes.reduceN;
  const double bytes = 4.0 * n;
  table.legend("reduce_sum", "sum of N=" + std::to_string(n) +
                                 " floats; ratio = bandwidth-ideal time (1 "
                                 "read) / time");
  std::vector<float> x = uniform(n, 4, 0, 1);
  double exact = 0;
  for (float v : x)
    exact += v;
  auto close = [&](double got) -> std::string {
    if (std::fabs(got - exact) <= 1e-4 * std::fabs(exact))
      return "";
    return "sum " + fmt("%.9g", got) + ", want " + fmt("%.9g", exact);
  };
  std::map<int, double> hand;
  volatile float sink = 0;
  handRows(
      "reduce_sum", [&](int t) { return close(refReduceSum(x.data(), n, t)); },
      [&](int t) { sink = refReduceSum(x.data(), n, t); },
      [&](Record &r) { memoryBound(r, bytes, {}); }, hand);
  kilnRows("reduce_sum", [&](Record &r, const DispatchDevice &dev, int) {
    Tensor tx = upload(x, {n}, dev);
    float got = 0;
    if (!check(r, [&] {
          got = k::sum(tx).item<float>();
          return close(got);
        }))
      return;
    time(r, [&] { sink = k::sum(tx).item<float>(); });
    memoryBound(r, bytes, hand);
    r.add("rel_err", std::fabs(got - exact) / std::fabs(exact), "%.1e");
  });
}

void Suite::softmax() {
  const int64_t rows = opts.sizes.softmaxRows, cols = opts.sizes.softmaxCols;
  const double bytes = 2.0 * 4 * rows * cols;
  table.legend("softmax", "row softmax of X[" + std::to_string(rows) + "," +
                              std::to_string(cols) +
                              "]; ratio = bandwidth-ideal time (1 read + 1 "
                              "write) / time");
  std::vector<float> x = uniform(rows * cols, 5, -4, 4), want(rows * cols),
                     out(rows * cols);
  // Reference in double, so that the hand loop is checked too.
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = &x[r * cols];
    double m = *std::max_element(xr, xr + cols), s = 0;
    for (int64_t i = 0; i < cols; ++i)
      s += std::exp(double(xr[i]) - m);
    for (int64_t i = 0; i < cols; ++i)
      want[r * cols + i] = float(std::exp(double(xr[i]) - m) / s);
  }
  std::map<int, double> hand;
  handRows(
      "softmax",
      [&](int t) {
        refSoftmax(x.data(), out.data(), rows, cols, t);
        return compare(out, want, 1e-9, 1e-5);
      },
      [&](int t) { refSoftmax(x.data(), out.data(), rows, cols, t); },
      [&](Record &r) { memoryBound(r, bytes, {}); }, hand);
  kilnRows("softmax", [&](Record &r, const DispatchDevice &dev, int) {
    Tensor tx = upload(x, {rows, cols}, dev);
    Tensor keep;
    double err = 0;
    if (!check(r, [&] {
          return compare(k::softmax(tx, -1).toVector<float>(), want, 1e-8,
                         1e-4, &err);
        }))
      return;
    time(r, [&] {
      keep = Tensor();
      keep = k::softmax(tx, -1);
      keep.sync();
    });
    memoryBound(r, bytes, hand);
    r.add("max_err", err, "%.1e");
  });
}

void Suite::layerNorm() {
  const int64_t rows = opts.sizes.lnRows, cols = opts.sizes.lnCols;
  const double bytes = 2.0 * 4 * rows * cols;
  table.legend("layernorm",
               "X[" + std::to_string(rows) + "," + std::to_string(cols) +
                   "], gamma, beta, eps 1e-5; ratio = bandwidth-ideal time "
                   "(1 read + 1 write) / time");
  std::vector<float> x = uniform(rows * cols, 6, -2, 2),
                     g = uniform(cols, 7, 0.5, 1.5),
                     be = uniform(cols, 8, -0.5, 0.5), want(rows * cols),
                     out(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = &x[r * cols];
    double mean = 0, var = 0;
    for (int64_t i = 0; i < cols; ++i)
      mean += xr[i];
    mean /= cols;
    for (int64_t i = 0; i < cols; ++i)
      var += (xr[i] - mean) * (xr[i] - mean);
    var /= cols;
    double rstd = 1.0 / std::sqrt(var + 1e-5);
    for (int64_t i = 0; i < cols; ++i)
      want[r * cols + i] = float((xr[i] - mean) * rstd * g[i] + be[i]);
  }
  std::map<int, double> hand;
  handRows(
      "layernorm",
      [&](int t) {
        refLayerNorm(x.data(), g.data(), be.data(), out.data(), rows, cols,
                     1e-5f, t);
        return compare(out, want, 1e-5, 1e-5);
      },
      [&](int t) {
        refLayerNorm(x.data(), g.data(), be.data(), out.data(), rows, cols,
                     1e-5f, t);
      },
      [&](Record &r) { memoryBound(r, bytes, {}); }, hand);
  kilnRows("layernorm", [&](Record &r, const DispatchDevice &dev, int) {
    Tensor tx = upload(x, {rows, cols}, dev), tg = upload(g, {cols}, dev),
           tb = upload(be, {cols}, dev);
    Tensor keep;
    double err = 0;
    if (!check(r, [&] {
          return compare(k::layerNorm(tx, tg, tb, 1e-5).toVector<float>(),
                         want, 1e-4, 1e-4, &err);
        }))
      return;
    time(r, [&] {
      keep = Tensor();
      keep = k::layerNorm(tx, tg, tb, 1e-5);
      keep.sync();
    });
    memoryBound(r, bytes, hand);
    r.add("max_err", err, "%.1e");
  });
}

//===----------------------------------------------------------------------===//
// Compute-bound workloads
//===----------------------------------------------------------------------===//

void Suite::matmul() {
  const int64_t n = opts.sizes.mm;
  const double flops = 2.0 * n * n * n;
  table.legend("matmul",
               "[" + std::to_string(n) + "]^2 @ [" + std::to_string(n) +
                   "]^2; ratio = FLOP/s / FMA peak; vs_hand = blocked-loop "
                   "time / time (context only, not the reference); blas = "
                   "OpenBLAS sgemm, vs_blas = its time / time");
  std::vector<float> a = uniform(n * n, 9, -1, 1), b = uniform(n * n, 10, -1, 1),
                     out(n * n);
  MatmulSamples samples = sampleMatmul(a, b, n, n, n, 256);
  auto identity = [](double v, int64_t) { return v; };
  auto peak = [&](Record &r) {
    if (r.stats.ms.empty())
      return;
    r.ratio = peakFraction(flops, r.stats.median(), r.threads);
    r.ratioOf = "FLOP/s / FMA peak";
    r.add("GFLOP/s", flops / (r.stats.median() * 1e-3) / 1e9, "%.1f");
  };
  std::map<int, double> hand;
  handRows(
      "matmul",
      [&](int t) {
        refMatmulBlocked(a.data(), b.data(), out.data(), n, n, n, t);
        return checkSamples(out, n, samples, identity);
      },
      [&](int t) {
        refMatmulBlocked(a.data(), b.data(), out.data(), n, n, n, t);
      },
      peak, hand);
  std::map<int, double> blas;
  handRows(
      "matmul",
      [&](int t) {
        refMatmulBlas(a.data(), false, b.data(), false, out.data(), n, n, n, t);
        return checkSamples(out, n, samples, identity);
      },
      [&](int t) {
        refMatmulBlas(a.data(), false, b.data(), false, out.data(), n, n, n, t);
      },
      peak, blas, "blas");
  kilnRows("matmul", [&](Record &r, const DispatchDevice &dev, int t) {
    Tensor ta = upload(a, {n, n}, dev), tb = upload(b, {n, n}, dev);
    Tensor keep;
    if (!check(r, [&] {
          return checkSamples(k::matmul(ta, tb).toVector<float>(), n, samples,
                              identity);
        }))
      return;
    time(r, [&] {
      keep = Tensor();
      keep = k::matmul(ta, tb);
      keep.sync();
    });
    peak(r);
    if (hand.count(t))
      r.vsHand = hand[t] / r.stats.median();
    addVsBlas(r, blas);
  });
}

void Suite::matmulBiasGelu() {
  const int64_t m = opts.sizes.mbgM, kk = opts.sizes.mbgK, n = opts.sizes.mbgN;
  const double flops = 2.0 * m * kk * n;
  table.legend("matmul_bias_gelu",
               "gelu_tanh(X[" + std::to_string(m) + "," + std::to_string(kk) +
                   "] @ W[" + std::to_string(kk) + "," + std::to_string(n) +
                   "] + b); ratio = time / plain matmul time of the same "
                   "shape on the same backend; vs_hand = blocked loop + "
                   "epilogue time / time (context)");
  std::vector<float> x = uniform(m * kk, 11, -1, 1),
                     w = uniform(kk * n, 12, -1, 1), b = uniform(n, 13, -1, 1),
                     out(m * n);
  MatmulSamples samples = sampleMatmul(x, w, m, kk, n, 256);
  auto epilogue = [&](double v, int64_t j) { return geluTanhD(v + b[j]); };
  auto handStep = [&](int t) {
    refMatmulBlocked(x.data(), w.data(), out.data(), m, kk, n, t);
    parallelFor(t, m, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        for (int64_t j = 0; j < n; ++j)
          out[i * n + j] = refGeluTanh(out[i * n + j] + b[j]);
    });
  };
  std::map<int, double> hand;
  handRows(
      "matmul_bias_gelu",
      [&](int t) {
        handStep(t);
        return checkSamples(out, n, samples, epilogue);
      },
      handStep,
      [&](Record &r) {
        r.ratioOf = "time / plain matmul time (same shape)";
        double plain = timeRuns(opts.warmup, opts.runs, [&] {
                         refMatmulBlocked(x.data(), w.data(), out.data(), m,
                                          kk, n, r.threads);
                       }).median();
        r.ratio = r.stats.median() / plain;
        r.add("plain_ms", plain, "%.2f");
        r.add("of_peak", peakFraction(flops, r.stats.median(), r.threads),
              "%.3f");
      },
      hand);
  kilnRows("matmul_bias_gelu", [&](Record &r, const DispatchDevice &dev,
                                   int t) {
    Tensor tx = upload(x, {m, kk}, dev), tw = upload(w, {kk, n}, dev),
           tb = upload(b, {n}, dev);
    Tensor keep;
    if (!check(r, [&] {
          return checkSamples(matmulBiasGeluGraph(tx, tw, tb).toVector<float>(),
                              n, samples, epilogue);
        }))
      return;
    time(r, [&] {
      keep = Tensor();
      keep = matmulBiasGeluGraph(tx, tw, tb);
      keep.sync();
    });
    keep = Tensor();
    Stats plain = timeRuns(opts.warmup, opts.runs, [&] {
      keep = Tensor();
      keep = k::matmul(tx, tw);
      keep.sync();
    });
    r.ratio = r.stats.median() / plain.median();
    r.ratioOf = "time / plain matmul time (same shape)";
    r.add("plain_ms", plain.median(), "%.2f");
    r.add("of_peak", peakFraction(flops, r.stats.median(), t), "%.3f");
    if (hand.count(t))
      r.vsHand = hand[t] / r.stats.median();
  });
}

void Suite::mlpTrainStep() {
  const Sizes &s = opts.sizes;
  MlpHost h(s.mlpBatch, s.mlpIn, s.mlpHidden);
  const double flops = h.stepFlops();
  table.legend("mlp_train_step",
               "x[" + std::to_string(h.batch) + "," + std::to_string(h.in) +
                   "] -> Linear -> gelu_tanh -> Linear -> MSE -> backward -> "
                   "SGD(0.01), under each checkpointing strategy (budget: "
                   "halfway between the Disabled and Balanced peaks, or 1.5x "
                   "Disabled's when they are equal); ratio = "
                   "step matmul FLOPs (5 matmuls) / time / FMA peak; vs_hand "
                   "= hand step (blocked matmuls) time / time; blas = the "
                   "hand step with sgemm matmuls, vs_blas = its time / time; "
                   "peak_MiB = the device allocator's peak over one step, "
                   "parameters included");
  // The reference: loss and gradients by hand, from the same weights.
  std::vector<float> dw1(h.in * h.hidden), db1(h.hidden), dw2(h.hidden * h.in),
      db2(h.in);
  double wantLoss =
      refMlpGrads(h.x.data(), h.target.data(), h.w1.data(), h.b1.data(),
                  h.w2.data(), h.b2.data(), dw1.data(), db1.data(), dw2.data(),
                  db2.data(), h.batch, h.in, h.hidden, 2);
  auto peak = [&](Record &r) {
    if (r.stats.ms.empty())
      return;
    r.ratio = peakFraction(flops, r.stats.median(), r.threads);
    r.ratioOf = "step matmul FLOPs / time / FMA peak";
  };
  // What is wrong with a step's loss and gradients (dW1, db1, dW2, db2)
  // against the reference's, or "".
  auto checkStep =
      [&](double loss,
          std::array<const std::vector<float> *, 4> got) -> std::string {
    if (!(std::fabs(loss - wantLoss) <= 1e-4 * std::fabs(wantLoss)))
      return "loss " + fmt("%.7g", loss) + ", want " + fmt("%.7g", wantLoss);
    const std::vector<float> *refs[] = {&dw1, &db1, &dw2, &db2};
    const char *names[] = {"dW1", "db1", "dW2", "db2"};
    for (int i = 0; i < 4; ++i) {
      std::string bad = compareScaled(*got[i], *refs[i], 1e-3, names[i]);
      if (!bad.empty())
        return bad;
    }
    return "";
  };
  // The hand-written step, training its own copy of the model: its matmuls
  // blocked loops ("hand" rows, the reference itself) or sgemm calls
  // ("blas" rows, checked against the reference).
  auto handStepRows = [&](bool useBlas, std::map<int, double> &times) {
    MlpHost p = h;
    std::vector<float> g1(dw1.size()), gb1(db1.size()), g2(dw2.size()),
        gb2(db2.size());
    auto grads = [&](int t) {
      return refMlpGrads(p.x.data(), p.target.data(), p.w1.data(), p.b1.data(),
                         p.w2.data(), p.b2.data(), g1.data(), gb1.data(),
                         g2.data(), gb2.data(), p.batch, p.in, p.hidden, t,
                         useBlas);
    };
    handRows(
        "mlp_train_step",
        [&](int t) -> std::string {
          if (!useBlas)
            return "";
          p = h; // the previous row's timed steps trained p
          double loss = grads(t);
          return checkStep(loss, {&g1, &gb1, &g2, &gb2});
        },
        [&](int t) {
          grads(t);
          refSgd(p.w1.data(), g1.data(), g1.size(), 0.01f, t);
          refSgd(p.b1.data(), gb1.data(), gb1.size(), 0.01f, t);
          refSgd(p.w2.data(), g2.data(), g2.size(), 0.01f, t);
          refSgd(p.b2.data(), gb2.data(), gb2.size(), 0.01f, t);
        },
        peak, times, useBlas ? "blas" : "hand");
  };
  std::map<int, double> hand, blas;
  handStepRows(false, hand);
  handStepRows(true, blas);
  // Each row checks the step's loss and gradients first.
  strategyRows("mlp_train_step", [&](Record &r, const DispatchDevice &dev,
                                     int t, int,
                                     const k::CheckpointingStrategy &strategy,
                                     const StrategyBaseline &) -> int64_t {
    MlpModel model(h, DispatchDevice::autodiff(dev, strategy));
    if (!check(r, [&]() -> std::string {
          Tensor l = model.loss();
          k::Gradients g = k::backward(l);
          std::vector<Tensor> want = {l, g.get(model.l1.weight),
                                      g.get(*model.l1.bias),
                                      g.get(model.l2.weight),
                                      g.get(*model.l2.bias)};
          k::sync(want);
          std::vector<float> got[4];
          for (int i = 0; i < 4; ++i)
            got[i] = want[i + 1].toVector<float>();
          return checkStep(l.item<float>(),
                           {&got[0], &got[1], &got[2], &got[3]});
        }))
      return 0;
    // The step's peak, from the device allocator, before timing.
    DispatchDevice backend = dev.backend();
    k::resetPeakMemory(backend);
    model.step();
    int64_t peakNow = k::memoryStats(backend).peakBytes;
    time(r, [&] { model.step(); });
    peak(r);
    if (hand.count(t))
      r.vsHand = hand[t] / r.stats.median();
    addVsBlas(r, blas);
    r.add("GFLOP/s", flops / (r.stats.median() * 1e-3) / 1e9, "%.1f");
    r.add("peak_MiB", peakNow / 1048576.0, "%.1f");
    return peakNow;
  });
}

void Suite::deepMlpMemory() {
  const Sizes &s = opts.sizes;
  DeepHost h(s.deepBlocks, s.deepBatch, s.deepDim);
  table.legend(
      "deep_mlp_memory",
      std::to_string(h.blocks) + " blocks of x + gelu_tanh(Linear" +
          std::to_string(h.dim) + "(layernorm(x))), batch " +
          std::to_string(h.batch) +
          ", one forward + backward; ratio = peak bytes / peak bytes of "
          "Disabled (same backend, threads); time_ratio likewise; peaks are "
          "the device allocator's, parameters and gradients included; "
          "step_ratio = (peak - base) / that of Disabled, where base is what "
          "was live when the step began (parameters, biases, input); the "
          "balanced/disabled row times the two strategies' steps in "
          "alternation, ratio = the median of their per-round time ratios");
  std::vector<const float *> ws, bs;
  for (int64_t i = 0; i < h.blocks; ++i) {
    ws.push_back(h.w[i].data());
    bs.push_back(h.b[i].data());
  }
  double wantLoss = refDeepMlpLoss(h.x.data(), ws.data(), bs.data(), h.blocks,
                                   h.batch, h.dim, 1e-5f, 2);
  // Gradients of the first and last Linear weight from the first Disabled
  // row that passed; every other row must agree with it.
  std::vector<float> refFirst, refLast;
  std::string refName;

  // The time ratio again, the Disabled and Balanced steps run in
  // alternation, so that the machine's load (which drifts between rows)
  // weighs on both alike.
  auto interleavedTimeRatio = [&](const std::string &name,
                                  const DispatchDevice &dev, int t) {
    Record r;
    r.workload = "deep_mlp_memory";
    r.backend = name;
    r.add("strategy", std::string("balanced/disabled"));
    guardedRow(r, t, [&] {
      DeepModel disabled(
          h, DispatchDevice::autodiff(dev, k::CheckpointingStrategy::Disabled));
      DeepModel balanced(
          h, DispatchDevice::autodiff(dev, k::CheckpointingStrategy::Balanced));
      auto stepMs = [](DeepModel &m) {
        double t0 = nowMs();
        m.step().clear();
        return nowMs() - t0;
      };
      for (int i = 0; i < std::max(1, opts.warmup); ++i) {
        stepMs(disabled);
        stepMs(balanced);
      }
      // Rounds alternate the order (Disabled first, then Balanced first), so
      // that neither strategy always runs on a warmer cache.
      Stats disabledMs, ratios;
      for (int i = 0; i < opts.runs; ++i) {
        double d, b;
        if (i % 2 == 0) {
          d = stepMs(disabled);
          b = stepMs(balanced);
        } else {
          b = stepMs(balanced);
          d = stepMs(disabled);
        }
        disabledMs.ms.push_back(d);
        r.stats.ms.push_back(b);
        ratios.ms.push_back(b / d);
      }
      r.ratio = ratios.median();
      r.ratioOf = "Balanced step time / Disabled step time, per interleaved "
                  "round (median)";
      r.add("time_ratio_min", ratios.min(), "%.3f");
      r.add("time_ratio_max", ratios.max(), "%.3f");
      r.add("disabled_ms", disabledMs.median(), "%.1f");
    });
  };

  for (const auto &d : devs) {
    const std::string &name = d.first;
    const DispatchDevice &dev = d.second;
    for (int t : opts.threads) {
      int64_t peakDisabled = 0, peakBalanced = 0, stepDisabled = 0;
      double msDisabled = 0;
      for (int which = 0; which < 3; ++which) {
        Record r;
        r.workload = "deep_mlp_memory";
        r.backend = name;
        r.threads = t;
        const char *label[] = {"disabled", "balanced", "budget"};
        r.add("strategy", std::string(label[which]));
        try {
          k::setNumThreads(t);
          k::CheckpointingStrategy strategy =
              which == 0 ? k::CheckpointingStrategy::Disabled
                         : k::CheckpointingStrategy::Balanced;
          int64_t budget = 0;
          if (which == 2) {
            if (!peakDisabled || !peakBalanced) {
              r.status = "skipped: needs the Disabled and Balanced peaks";
              emit(r);
              continue;
            }
            budget = (peakDisabled + peakBalanced) / 2;
            if (peakBalanced >= peakDisabled) // nothing between them
              budget = peakDisabled * 3 / 4;
            strategy = k::CheckpointingStrategy::Budget(budget);
          }
          DispatchDevice ad = DispatchDevice::autodiff(dev, strategy);
          DeepModel model(h, ad);
          DispatchDevice backend = dev.backend();
          std::vector<Tensor> out;
          int64_t peak = 0, base = 0;
          auto step = [&] {
            out.clear();
            base = k::memoryStats(backend).currentBytes;
            k::resetPeakMemory(backend);
            out = model.step();
            peak = std::max(peak, k::memoryStats(backend).peakBytes);
          };
          bool ok = check(r, [&]() -> std::string {
            step();
            float loss = out[0].item<float>();
            if (!(std::fabs(loss - wantLoss) <= 1e-3 * std::fabs(wantLoss)))
              return "loss " + fmt("%.7g", loss) + ", want " +
                     fmt("%.7g", wantLoss);
            std::vector<float> first = out[1].toVector<float>(),
                               last = out[2].toVector<float>();
            if (refFirst.empty()) {
              if (which != 0)
                return "";
              refFirst = first;
              refLast = last;
              refName = name + " disabled";
              return "";
            }
            std::string bad = compareScaled(first, refFirst, 2e-3,
                                            "dW[0] vs " + refName);
            if (bad.empty())
              bad = compareScaled(last, refLast, 2e-3, "dW[last] vs " + refName);
            return bad;
          });
          if (ok) {
            time(r, step);
            out.clear();
            double ms = r.stats.median();
            if (which == 0) {
              peakDisabled = peak;
              stepDisabled = peak - base;
              msDisabled = ms;
            } else if (which == 1) {
              peakBalanced = peak;
            }
            if (peakDisabled) {
              r.ratio = double(peak) / double(peakDisabled);
              r.ratioOf = "peak bytes / peak bytes of Disabled";
              r.add("time_ratio", ms / msDisabled, "%.3f");
              if (stepDisabled > 0)
                r.add("step_ratio", double(peak - base) / double(stepDisabled),
                      "%.3f");
            }
            r.add("peak_MiB", double(peak) / (1 << 20), "%.1f");
            r.add("base_MiB", double(base) / (1 << 20), "%.1f");
            r.addHidden("peak_bytes", double(peak));
            r.addHidden("base_bytes", double(base));
            if (which == 2) {
              r.add("budget_MiB", double(budget) / (1 << 20), "%.1f");
              r.addHidden("budget_bytes", double(budget));
              r.addBool("under_budget", peak <= budget);
            }
            r.add("of_peak", peakFraction(h.stepFlops(), ms, t), "%.3f");
          }
        } catch (const std::exception &e) {
          r.stats.ms.clear();
          r.ratio.reset();
          r.status = "ERROR: " + oneLine(e.what());
        }
        emit(r);
      }
      if (msDisabled > 0 && peakBalanced > 0)
        interleavedTimeRatio(name, dev, t);
    }
  }
}

//===----------------------------------------------------------------------===//
// Compile latency, in child processes
//===----------------------------------------------------------------------===//

namespace {

/// key=value pairs of one line the child wrote.
std::map<std::string, std::string> parseLine(const std::string &line) {
  std::map<std::string, std::string> kv;
  std::istringstream in(line);
  std::string word;
  in >> kv["workload"];
  while (in >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      continue;
    std::string key = word.substr(0, eq);
    if (key == "error") { // the message runs to the end of the line
      std::string rest;
      std::getline(in, rest);
      kv[key] = word.substr(eq + 1) + rest;
      break;
    }
    kv[key] = word.substr(eq + 1);
  }
  return kv;
}

/// Runs this executable again with `args` and KILN_CACHE_DIR=`cacheDir`.
int spawnSelf(const std::vector<std::string> &args,
              const std::string &cacheDir) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (std::strncmp(*e, "KILN_CACHE_DIR=", 15) != 0)
      env.push_back(*e);
  env.push_back("KILN_CACHE_DIR=" + cacheDir);
  std::vector<char *> argv, envp;
  std::string self = "/proc/self/exe";
  argv.push_back(self.data());
  std::vector<std::string> copy = args;
  for (std::string &a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string &e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(),
                  envp.data()) != 0)
    return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

std::optional<kiln::CheckpointingStrategy>
bench::strategyOfRow(int which, const int64_t peaks[2], int64_t &budget) {
  budget = 0;
  if (which == 0)
    return k::CheckpointingStrategy::Disabled;
  if (which == 1)
    return k::CheckpointingStrategy::Balanced;
  if (!peaks[0] || !peaks[1])
    return std::nullopt;
  budget = peaks[1] < peaks[0] ? (peaks[0] + peaks[1]) / 2 : peaks[0] * 3 / 2;
  return k::CheckpointingStrategy::Budget(budget);
}

namespace {

/// The process's CPU time in the kernel so far, in ms: on a first call,
/// mostly the page faults of fresh memory (the kernel zeroing each page;
/// on a virtual machine whose host has not backed the pages yet, far
/// slower than a memset).
double systemMs() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

/// The process's page faults so far (each a fresh 4 KiB or 2 MiB page).
int64_t pageFaults() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt + ru.ru_majflt;
}

} // namespace

int bench::runCompileChild(const Options &opts, const std::string &mode,
                           const std::string &outPath) {
  std::ofstream out(outPath);
  if (!out)
    return 2;
  k::setNumThreads(opts.threads.empty() ? 1 : opts.threads.front());
  DispatchDevice dev = DispatchDevice::cpu();
  auto counters = [&] { return k::backendCounters(dev); };
  for (const std::string &w : compileWorkloads(opts.quick)) {
    try {
      Case c = makeCase(w, opts.sizes, dev, false);
      k::BackendCounters c0 = counters();
      k::resetPeakMemory(dev);
      int64_t held = k::memoryStats(dev).currentBytes;
      double s0 = systemMs();
      int64_t f0 = pageFaults();
      double t0 = nowMs();
      c.step();
      double first = nowMs() - t0;
      double firstSys = systemMs() - s0;
      int64_t firstFaults = pageFaults() - f0;
      k::BackendCounters c1 = counters();
      out << w << " first_ms=" << first
          << " first_compiles=" << c1.compiles - c0.compiles
          << " first_disk_hits=" << c1.diskHits - c0.diskHits
          << " first_sys_ms=" << firstSys
          << " first_faults=" << firstFaults << " step_mib="
          << (k::memoryStats(dev).peakBytes - held) / 1048576.0;
      s0 = systemMs();
      t0 = nowMs();
      c.step();
      double repeat = nowMs() - t0;
      double repeatSys = systemMs() - s0;
      k::BackendCounters c2 = counters();
      out << " repeat_ms=" << repeat << " repeat_sys_ms=" << repeatSys
          << " repeat_compiles=" << c2.compiles - c1.compiles
          << " kernels=" << c2.executedOps - c1.executedOps;
      if (mode == "cold") {
        Case half = makeCase(w, opts.sizes, dev, true);
        k::BackendCounters c3 = counters();
        t0 = nowMs();
        half.step();
        double ms = nowMs() - t0;
        k::BackendCounters c4 = counters();
        out << " new_batch_ms=" << ms
            << " new_batch_compiles=" << c4.compiles - c3.compiles;
      }
      if (mode == "dynamic") {
        // The batch dim marked dynamic: the first call compiles, a new
        // batch size (half, then a quarter) compiles nothing.
        Case full = makeCase(w, opts.sizes, dev, false, true);
        full.step();
        k::BackendCounters c3 = counters();
        Case half = makeCase(w, opts.sizes, dev, true, true);
        half.step();
        k::BackendCounters c4 = counters();
        out << " dynamic_new_batch_compiles=" << c4.compiles - c3.compiles;
      }
      out << "\n";
    } catch (const std::exception &e) {
      out << "\n" << w << " error=" << oneLine(e.what()) << "\n";
    }
    out.flush();
  }
  return 0;
}

void Suite::compile() {
  table.legend("compile",
               "first call on Cpu in a fresh process with an empty cache "
               "dir (median/min/max over " +
                   std::to_string(opts.compileRuns) +
                   " processes); ratio = first call with a warm disk cache "
                   "(another process) / cold first call; compile_ms = first "
                   "call - repeat; *_compiles = executables built; "
                   "marked_new_batch_compiles: the batch dim marked dynamic "
                   "(markDynamic), a new batch size; kernels = kernel "
                   "launches of a step; warm_extra_ms = warm first call - "
                   "repeat, in one process; warm_ms_per_kernel = that / "
                   "kernels; warm_fault_ms = the warm first call's extra "
                   "system time / threads (page faults of fresh memory), "
                   "warm_faults = their count; _net = without them");
  if (!cpuSelected("compile"))
    return;
  if (opts.quick)
    table.note(
        "compile: --quick leaves the GPT out (gpt_train_step compiles it)");
  namespace fs = std::filesystem;
  for (int t : opts.threads) {
    // workload -> the key=value lines of each cold and warm child.
    std::map<std::string, std::vector<std::map<std::string, std::string>>> cold,
        warm, marked;
    std::string failure;
    for (int run = 0; run < opts.compileRuns && failure.empty(); ++run) {
      std::error_code ec;
      fs::path dir = fs::temp_directory_path() /
                     ("tensor-bench-cache-" + std::to_string(::getpid()) +
                      "-" + std::to_string(run));
      fs::remove_all(dir, ec);
      fs::create_directories(dir, ec);
      // The dynamic child runs once, in a cache dir of its own.
      std::vector<const char *> modes = {"cold", "warm"};
      if (run == 0)
        modes.push_back("dynamic");
      for (const char *mode : modes) {
        fs::path file = dir.string() + "." + mode + ".txt";
        std::vector<std::string> args = {"--compile-child", mode,
                                         "--child-out",     file.string(),
                                         "--threads",       std::to_string(t)};
        if (opts.quick)
          args.push_back("--quick");
        bool isDynamic = std::string(mode) == "dynamic";
        int rc = spawnSelf(args, dir.string() + (isDynamic ? "-dynamic" : ""));
        std::ifstream in(file);
        std::string line;
        while (std::getline(in, line))
          if (!line.empty()) {
            auto kv = parseLine(line);
            (isDynamic                     ? marked
             : std::string(mode) == "cold" ? cold
                                           : warm)[kv["workload"]]
                .push_back(kv);
          }
        fs::remove(file, ec);
        if (rc != 0)
          failure = std::string("the ") + mode + " child exited with " +
                    std::to_string(rc);
      }
      fs::remove_all(dir, ec);
      fs::remove_all(dir.string() + "-dynamic", ec);
    }
    for (const std::string &w : compileWorkloads(opts.quick)) {
      Record r;
      r.workload = "compile:" + w;
      r.backend = "cpu";
      r.threads = t;
      auto &cs = cold[w];
      auto &ws = warm[w];
      std::string error;
      for (auto *v : {&cs, &ws})
        for (auto &kv : *v)
          if (kv.count("error") && error.empty())
            error = kv["error"];
      if (!error.empty() || cs.empty()) {
        r.status = "ERROR: " + (error.empty() ? failure : error);
        emit(r);
        continue;
      }
      auto num = [](std::map<std::string, std::string> &kv,
                    const std::string &key) {
        return kv.count(key) ? std::atof(kv[key].c_str()) : NAN;
      };
      Stats first, repeat, warmFirst, warmExtraMs, warmFaultMs, warmFaults;
      double compiles = 0, repeatCompiles = 0, newBatchCompiles = 0,
             warmCompiles = 0, warmDisk = 0, kernels = 0;
      for (auto &kv : cs) {
        first.ms.push_back(num(kv, "first_ms"));
        repeat.ms.push_back(num(kv, "repeat_ms"));
        compiles = std::max(compiles, num(kv, "first_compiles"));
        repeatCompiles = std::max(repeatCompiles, num(kv, "repeat_compiles"));
        newBatchCompiles =
            std::max(newBatchCompiles, num(kv, "new_batch_compiles"));
      }
      for (auto &kv : ws) {
        warmFirst.ms.push_back(num(kv, "first_ms"));
        // First call minus repeat in the same process, so that one
        // process's slower memory does not count against another's.
        warmExtraMs.ms.push_back(num(kv, "first_ms") - num(kv, "repeat_ms"));
        warmFaults.ms.push_back(num(kv, "first_faults"));
        warmFaultMs.ms.push_back(num(kv, "first_sys_ms") -
                                 num(kv, "repeat_sys_ms"));
        warmCompiles = std::max(warmCompiles, num(kv, "first_compiles"));
        warmDisk = std::max(warmDisk, num(kv, "first_disk_hits"));
        kernels = std::max(kernels, num(kv, "kernels"));
      }
      r.stats = first;
      double compileMs = first.median() - repeat.median();
      r.add("compile_ms", compileMs, "%.1f");
      r.add("compiles", int64_t(compiles));
      if (compiles > 0)
        r.add("ms_per_compile", compileMs / compiles, "%.1f");
      r.add("repeat_compiles", int64_t(repeatCompiles));
      r.add("new_batch_compiles", int64_t(newBatchCompiles));
      for (auto &kv : marked[w])
        if (kv.count("dynamic_new_batch_compiles"))
          r.add("marked_new_batch_compiles",
                int64_t(num(kv, "dynamic_new_batch_compiles")));
      if (!warmFirst.ms.empty()) {
        r.ratio = warmFirst.median() / first.median();
        r.ratioOf = "warm-disk-cache first call / cold first call";
        double warmExtra = warmExtraMs.median();
        r.add("warm_ms", warmFirst.median(), "%.1f");
        r.add("warm_compiles", int64_t(warmCompiles));
        r.add("disk_hits", int64_t(warmDisk));
        if (warmDisk > 0 && kernels > 0) {
          r.add("kernels", int64_t(kernels));
          r.add("warm_extra_ms", warmExtra, "%.1f");
          r.add("warm_ms_per_kernel", warmExtra / kernels, "%.2f");
          // The first call's extra kernel time (faulting in fresh memory,
          // spread over the threads) is not Kiln's: what is left is.
          double faults = warmFaultMs.median() / t;
          r.add("warm_fault_ms", faults, "%.1f");
          r.add("warm_faults", int64_t(warmFaults.median()));
          r.add("warm_extra_net_ms", warmExtra - faults, "%.1f");
        }
      }
      r.add("repeat_ms", repeat.median(), "%.1f");
      if (repeatCompiles != 0)
        r.status = "WRONG: the repeated step compiled " +
                   std::to_string(int64_t(repeatCompiles)) + " times";
      emit(r);
    }
  }
}

//===----------------------------------------------------------------------===//
// Dynamic against static batch dims
//===----------------------------------------------------------------------===//

bool Suite::cpuSelected(const char *rows) {
  for (const auto &d : devs)
    if (d.first == "cpu")
      return true;
  table.note(std::string(rows) + " rows need the cpu backend; skipped");
  return false;
}

void Suite::dynamic() {
  table.legend("dynamic",
               "each compile workload on Cpu with its batch dim marked "
               "dynamic (markDynamic), timed in turn with the static graph "
               "in one run; ratio = static median / dynamic median (1: as "
               "fast)");
  if (!cpuSelected("dynamic"))
    return;
  if (opts.quick)
    table.note(
        "dynamic: --quick leaves the GPT out (gpt_train_step compiles it)");
  DispatchDevice dev = DispatchDevice::cpu();
  for (int t : opts.threads) {
    k::setNumThreads(t);
    for (const std::string &w : compileWorkloads(opts.quick)) {
      Record r;
      r.workload = "dynamic:" + w;
      r.backend = "cpu";
      r.threads = t;
      try {
        std::vector<Tensor> inputs;
        Case fixed = makeCase(w, opts.sizes, dev, false, false, &inputs);
        Case marked = makeCase(w, opts.sizes, dev, false, true, &inputs);
        fixed.step();
        marked.step();
        k::BackendCounters c0 = k::backendCounters(dev);
        // Interleaved, each first in every other round, so that both see
        // the same machine and neither always follows the other.
        Stats a, b;
        for (int i = 0; i < opts.runs; ++i) {
          int warm = i < 2 ? opts.warmup : 0;
          auto time = [&](Stats &into, const Case &c) {
            Stats st = timeRuns(warm, 1, c.step);
            into.ms.insert(into.ms.end(), st.ms.begin(), st.ms.end());
          };
          if (i % 2) {
            time(b, marked);
            time(a, fixed);
          } else {
            time(a, fixed);
            time(b, marked);
          }
        }
        r.stats = b;
        r.ratio = a.median() / b.median();
        r.ratioOf = "static / dynamic";
        r.add("static_ms", a.median(), "%.2f");
        int64_t compiles = k::backendCounters(dev).compiles - c0.compiles;
        r.add("compiles", compiles);
        if (compiles != 0)
          r.status = "WRONG: a repeated step compiled";
      } catch (const std::exception &e) {
        r.status = "ERROR: " + oneLine(e.what());
      }
      emit(r);
    }
  }
}

//===----------------------------------------------------------------------===//
// Per-materialization overhead
//===----------------------------------------------------------------------===//

void Suite::overhead() {
  const int64_t n = opts.sizes.overheadN, iters = opts.sizes.overheadIters;
  table.legend("overhead",
               "10-op elementwise graph on " + std::to_string(n) +
                   "-element tensors, materialized " + std::to_string(iters) +
                   " times per run (ms columns are per run); ratio = 20 us "
                   "(the budget) / us per materialization");
  std::vector<float> a = uniform(n, 14, 0.5, 1.5), b = uniform(n, 15, 0.5, 1.5),
                     want(n), out(n);
  refOverhead(a.data(), b.data(), want.data(), n);
  std::map<int, double> hand;
  auto perMat = [&](Record &r) {
    if (r.stats.ms.empty())
      return;
    double us = r.stats.median() * 1e3 / double(iters);
    r.ratio = 20.0 / us;
    r.ratioOf = "20 us / us per materialization";
    r.add("us_per_mat", us, "%.2f");
  };
  handRows(
      "overhead", [&](int) { return std::string(); },
      [&](int) {
        for (int64_t i = 0; i < iters; ++i)
          refOverhead(a.data(), b.data(), out.data(), n);
      },
      perMat, hand);
  kilnRows("overhead", [&](Record &r, const DispatchDevice &dev, int t) {
    Tensor ta = upload(a, {n}, dev), tb = upload(b, {n}, dev);
    if (!check(r, [&] {
          return compare(overheadGraph(ta, tb).toVector<float>(), want, 1e-6,
                         1e-6);
        }))
      return;
    k::BackendCounters c0 = k::backendCounters(dev);
    time(r, [&] {
      for (int64_t i = 0; i < iters; ++i)
        overheadGraph(ta, tb).sync();
    });
    k::BackendCounters c1 = k::backendCounters(dev);
    perMat(r);
    if (hand.count(t))
      r.vsHand = hand[t] / r.stats.median();
    r.add("compiles", c1.compiles - c0.compiles);
    double mats = double(c1.materializations - c0.materializations);
    if (mats > 0)
      r.add("hits_per_mat", double(c1.cacheHits - c0.cacheHits) / mats,
            "%.2f");
  });
}

//===----------------------------------------------------------------------===//
// Flex: every elementwise op on its own
//===----------------------------------------------------------------------===//

namespace {

enum class In { Gen, Gen2, Pos, Cond, Cond2 };

struct EwOp {
  std::string name;
  std::vector<In> inputs;
  std::function<Tensor(const std::vector<Tensor> &)> op;
  /// The expected value from the inputs, in double.
  std::function<double(const std::vector<double> &)> ref;
  /// Result element: 'f' f32, 'b' bool, 'h' f16, 'i' i32.
  char out = 'f';
  double tol = 1e-6;
};

double numpyRem(double x, double y) {
  double r = std::fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0)))
    r += y;
  return r;
}

std::vector<EwOp> ewOpTable() {
  using V = const std::vector<Tensor> &;
  using D = const std::vector<double> &;
  const std::vector<In> g = {In::Gen}, p = {In::Pos}, gg = {In::Gen, In::Gen2};
  const double tr = 2e-5; // transcendental tolerance (relative + absolute)
  std::vector<EwOp> ops = {
      {"neg", g, [](V x) { return -x[0]; }, [](D x) { return -x[0]; }},
      {"abs", g, [](V x) { return k::abs(x[0]); },
       [](D x) { return std::fabs(x[0]); }},
      {"exp", g, [](V x) { return k::exp(x[0]); },
       [](D x) { return std::exp(x[0]); }, 'f', tr},
      {"log", p, [](V x) { return k::log(x[0]); },
       [](D x) { return std::log(x[0]); }, 'f', tr},
      {"log1p", p, [](V x) { return k::log1p(x[0]); },
       [](D x) { return std::log1p(x[0]); }, 'f', tr},
      {"sqrt", p, [](V x) { return k::sqrt(x[0]); },
       [](D x) { return std::sqrt(x[0]); }},
      {"rsqrt", p, [](V x) { return k::rsqrt(x[0]); },
       [](D x) { return 1 / std::sqrt(x[0]); }, 'f', tr},
      {"recip", p, [](V x) { return k::recip(x[0]); },
       [](D x) { return 1 / x[0]; }, 'f', tr},
      {"sin", g, [](V x) { return k::sin(x[0]); },
       [](D x) { return std::sin(x[0]); }, 'f', tr},
      {"cos", g, [](V x) { return k::cos(x[0]); },
       [](D x) { return std::cos(x[0]); }, 'f', tr},
      {"tanh", g, [](V x) { return k::tanh(x[0]); },
       [](D x) { return std::tanh(x[0]); }, 'f', tr},
      {"sigmoid", g, [](V x) { return k::sigmoid(x[0]); },
       [](D x) { return 1 / (1 + std::exp(-x[0])); }, 'f', tr},
      {"erf", g, [](V x) { return k::erf(x[0]); },
       [](D x) { return std::erf(x[0]); }, 'f', tr},
      {"relu", g, [](V x) { return k::relu(x[0]); },
       [](D x) { return std::max(x[0], 0.0); }},
      {"gelu", g, [](V x) { return k::gelu(x[0]); },
       [](D x) { return 0.5 * x[0] * (1 + std::erf(x[0] / std::sqrt(2.0))); },
       'f', tr},
      {"gelu_tanh", g, [](V x) { return k::gelu(x[0], true); },
       [](D x) { return geluTanhD(x[0]); }, 'f', tr},
      {"silu", g, [](V x) { return k::silu(x[0]); },
       [](D x) { return x[0] / (1 + std::exp(-x[0])); }, 'f', tr},
      {"floor", g, [](V x) { return k::floor(x[0]); },
       [](D x) { return std::floor(x[0]); }, 'f', 0},
      {"ceil", g, [](V x) { return k::ceil(x[0]); },
       [](D x) { return std::ceil(x[0]); }, 'f', 0},
      {"round", g, [](V x) { return k::round(x[0]); },
       [](D x) { return std::nearbyint(x[0]); }, 'f', 0},
      {"sign", g, [](V x) { return k::sign(x[0]); },
       [](D x) { return double((x[0] > 0) - (x[0] < 0)); }, 'f', 0},
      {"clamp", g, [](V x) { return k::clamp(x[0], -1, 1); },
       [](D x) { return std::min(1.0, std::max(-1.0, x[0])); }},
      {"is_nan", g, [](V x) { return k::isNan(x[0]); },
       [](D x) { return double(std::isnan(x[0])); }, 'b', 0},
      {"add", gg, [](V x) { return x[0] + x[1]; },
       [](D x) { return x[0] + x[1]; }},
      {"sub", gg, [](V x) { return x[0] - x[1]; },
       [](D x) { return x[0] - x[1]; }},
      {"mul", gg, [](V x) { return x[0] * x[1]; },
       [](D x) { return x[0] * x[1]; }},
      {"div", {In::Gen, In::Pos}, [](V x) { return x[0] / x[1]; },
       [](D x) { return x[0] / x[1]; }},
      {"pow", {In::Pos, In::Gen}, [](V x) { return k::pow(x[0], x[1]); },
       [](D x) { return std::pow(x[0], x[1]); }, 'f', tr},
      {"maximum", gg, [](V x) { return k::maximum(x[0], x[1]); },
       [](D x) { return std::max(x[0], x[1]); }},
      {"minimum", gg, [](V x) { return k::minimum(x[0], x[1]); },
       [](D x) { return std::min(x[0], x[1]); }},
      {"rem", {In::Gen, In::Pos}, [](V x) { return k::rem(x[0], x[1]); },
       [](D x) { return numpyRem(x[0], x[1]); }, 'f', 1e-5},
      {"atan2", gg, [](V x) { return k::atan2(x[0], x[1]); },
       [](D x) { return std::atan2(x[0], x[1]); }, 'f', tr},
      {"eq", gg, [](V x) { return k::eq(x[0], x[1]); },
       [](D x) { return double(x[0] == x[1]); }, 'b', 0},
      {"ne", gg, [](V x) { return k::ne(x[0], x[1]); },
       [](D x) { return double(x[0] != x[1]); }, 'b', 0},
      {"lt", gg, [](V x) { return k::lt(x[0], x[1]); },
       [](D x) { return double(x[0] < x[1]); }, 'b', 0},
      {"le", gg, [](V x) { return k::le(x[0], x[1]); },
       [](D x) { return double(x[0] <= x[1]); }, 'b', 0},
      {"gt", gg, [](V x) { return k::gt(x[0], x[1]); },
       [](D x) { return double(x[0] > x[1]); }, 'b', 0},
      {"ge", gg, [](V x) { return k::ge(x[0], x[1]); },
       [](D x) { return double(x[0] >= x[1]); }, 'b', 0},
      {"not", {In::Cond}, [](V x) { return k::logicalNot(x[0]); },
       [](D x) { return double(!x[0]); }, 'b', 0},
      {"and", {In::Cond, In::Cond2},
       [](V x) { return k::logicalAnd(x[0], x[1]); },
       [](D x) { return double(x[0] && x[1]); }, 'b', 0},
      {"or", {In::Cond, In::Cond2},
       [](V x) { return k::logicalOr(x[0], x[1]); },
       [](D x) { return double(x[0] || x[1]); }, 'b', 0},
      {"where", {In::Cond, In::Gen, In::Gen2},
       [](V x) { return k::where(x[0], x[1], x[2]); },
       [](D x) { return x[0] ? x[1] : x[2]; }},
      {"cast_f16", g, [](V x) { return k::cast(x[0], k::DType::F16); },
       [](D x) { return x[0]; }, 'h', 1e-3},
      {"cast_i32", g, [](V x) { return k::cast(x[0], k::DType::I32); },
       [](D x) { return std::trunc(x[0]); }, 'i', 0},
  };
  return ops;
}

size_t bytesOf(In in) { return in == In::Cond || in == In::Cond2 ? 1 : 4; }
size_t bytesOf(char out) {
  return out == 'b' ? 1 : out == 'h' ? 2 : 4;
}

} // namespace

void Suite::ewOps() {
  const int64_t n = opts.sizes.ewOpN;
  table.legend("ew_ops", "Flex: each elementwise op alone on N=" +
                             std::to_string(n) +
                             " elements; ratio = median over runs of "
                             "bandwidth-ideal time (its reads + write, at "
                             "the bandwidth of a triad pass run just before "
                             "it) / time; vs_best_probe = the same at the "
                             "best probe bandwidth");
  bool flexSelected = false;
  for (const auto &d : devs)
    flexSelected |= d.first == "flex";
  if (!flexSelected) {
    table.note("ew_ops rows are for the flex backend; skipped");
    return;
  }
  std::vector<float> gen = uniform(n, 16, -3, 3), gen2 = uniform(n, 17, -3, 3),
                     pos = uniform(n, 18, 0.5, 2);
  std::vector<uint8_t> cond(n), cond2(n);
  for (int64_t i = 0; i < n; ++i) {
    cond[i] = gen[i] < gen2[i];
    cond2[i] = gen[i] > 0;
  }
  DispatchDevice flex = DispatchDevice::flex();
  std::map<In, Tensor> inputs;
  std::string setupError;
  try {
    inputs[In::Gen] = upload(gen, {n}, flex);
    inputs[In::Gen2] = upload(gen2, {n}, flex);
    inputs[In::Pos] = upload(pos, {n}, flex);
    inputs[In::Cond] =
        Tensor::fromData(k::DType::Bool, cond.data(), n, {n}, flex);
    inputs[In::Cond2] =
        Tensor::fromData(k::DType::Bool, cond2.data(), n, {n}, flex);
  } catch (const std::exception &e) {
    setupError = oneLine(e.what());
  }
  auto hostValue = [&](In in, int64_t i) -> double {
    switch (in) {
    case In::Gen:
      return gen[i];
    case In::Gen2:
      return gen2[i];
    case In::Pos:
      return pos[i];
    case In::Cond:
      return cond[i];
    case In::Cond2:
      return cond2[i];
    }
    return 0;
  };
  // The paired triad passes touch twice the last-level cache, so that each
  // op's operands come from memory, however large the cache (a smoke test
  // with --quick keeps them small).
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  TriadPass triad(opts.quick ? n
                             : std::max<int64_t>(
                                   n, 2 * int64_t(std::max(llc, 0L)) / 12));
  for (const EwOp &op : ewOpTable()) {
    double bytes = double(bytesOf(op.out)) * n;
    for (In in : op.inputs)
      bytes += double(bytesOf(in)) * n;
    kilnRows(
        "ew_op:" + op.name,
        [&](Record &r, const DispatchDevice &, int t) {
          if (!setupError.empty())
            throw k::Error(setupError);
          std::vector<Tensor> args;
          for (In in : op.inputs)
            args.push_back(inputs[in]);
          Tensor keep;
          if (!check(r, [&]() -> std::string {
                Tensor res = op.op(args);
                std::vector<double> got;
                std::vector<int64_t> at;
                // Every 4099th element and the last: enough to catch a
                // wrong kernel, cheap next to the op itself.
                for (int64_t i = 0; i < n; i += 4099)
                  at.push_back(i);
                at.push_back(n - 1);
                switch (op.out) {
                case 'f': {
                  std::vector<float> v = res.toVector<float>();
                  for (int64_t i : at)
                    got.push_back(v[i]);
                  break;
                }
                case 'b': {
                  std::vector<bool> v = res.toVector<bool>();
                  for (int64_t i : at)
                    got.push_back(v[i]);
                  break;
                }
                case 'h': {
                  std::vector<k::Half> v = res.toVector<k::Half>();
                  for (int64_t i : at)
                    got.push_back(v[i].toFloat());
                  break;
                }
                case 'i': {
                  std::vector<int32_t> v = res.toVector<int32_t>();
                  for (int64_t i : at)
                    got.push_back(v[i]);
                  break;
                }
                }
                for (size_t c = 0; c < at.size(); ++c) {
                  std::vector<double> xs;
                  for (In in : op.inputs)
                    xs.push_back(hostValue(in, at[c]));
                  double want = op.ref(xs);
                  if (!(std::fabs(got[c] - want) <=
                        op.tol * (1 + std::fabs(want))))
                    return "[" + std::to_string(at[c]) + "]: got " +
                           fmt("%.7g", got[c]) + ", want " +
                           fmt("%.7g", want);
                }
                return "";
              }))
            return;
          // Each timed run follows a triad pass of its own; the ratio is
          // the median over runs of (bandwidth-ideal time at that pass's
          // bandwidth) / time, so that a slow minute of the shared machine
          // moves both. vs_best_probe is the same against the best probe.
          auto run = [&] {
            keep = Tensor();
            keep = op.op(args);
            keep.sync();
          };
          for (int w = 0; w < opts.warmup; ++w)
            run();
          std::vector<double> ratios, bw;
          for (int i = 0; i < opts.runs; ++i) {
            bw.push_back(triad.bytesPerSec(t));
            double t0 = nowMs();
            run();
            double ms = nowMs() - t0;
            r.stats.ms.push_back(ms);
            ratios.push_back(bytes / bw.back() * 1e3 / ms);
          }
          memoryBound(r, bytes, {});
          double vsBest = r.ratio.value_or(NAN);
          r.ratio = Stats{ratios}.median();
          r.ratioOf = "bandwidth-ideal time at the paired triad pass / time";
          r.add("paired_GB/s", Stats{bw}.median() / 1e9, "%.1f");
          r.add("vs_best_probe", vsBest, "%.3f");
        },
        {"flex"});
  }
}
