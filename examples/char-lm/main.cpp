//===- main.cpp - A byte-level language model trained with Kiln -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Trains a byte-level GPT (or, with --model mlp, an MLP over the last 16
// bytes) on a text, by default Kiln's own source tree, then samples from
// it. Each step is recorded lazily and materialized by one device sync: the
// forward pass, the backward pass (differentiated on the IR), gradient
// clipping and the AdamW updates compile once, then run from the cache.
//
//   char-lm [--model gpt|mlp] [--device cpu|flex|cuda] [--text FILE]
//           [--steps N] [--batch B] [--layers L] [--heads H] [--dim D]
//           [--context T] [--lr LR] [--save FILE] [--load FILE]
//           [--sample N] [--prompt TEXT] [--temperature T] [--seed S]
//           [--quiet]
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"
#include "kiln/Support/Random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace kiln;

namespace {

struct Options {
  std::string model = "gpt", device = "cpu", text, save, load;
  std::string prompt = "DispatchTensor ";
  int steps = 300, batch = 16, sample = 400;
  int64_t layers = 4, heads = 4, dim = 256, context = 128;
  double lr = 1e-3, temperature = 0.8;
  uint64_t seed = 1;
  bool quiet = false;
  /// One rank of an MPI job (mpirun -np N char-lm --data-parallel): each
  /// rank trains on its share of a batch of N x --batch rows.
  bool dataParallel = false;
};

[[noreturn]] void usage(int status) {
  std::fprintf(
      status ? stderr : stdout,
      "usage: char-lm [--model gpt|mlp] [--device cpu|flex|cuda] [--text "
      "FILE]\n"
      "               [--steps N] [--batch B] [--layers L] [--heads H] "
      "[--dim D]\n"
      "               [--context T] [--lr LR] [--save FILE] [--load FILE]\n"
      "               [--sample N] [--prompt TEXT] [--temperature T] "
      "[--seed S] [--quiet]\n"
      "               [--data-parallel]\n");
  std::exit(status);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "char-lm: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto count = [&](int64_t least) {
      std::string v = next();
      char *end = nullptr;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (end == v.c_str() || *end || n < least) {
        std::fprintf(stderr, "char-lm: %s needs an integer >= %lld, got '%s'\n",
                     a.c_str(), static_cast<long long>(least), v.c_str());
        std::exit(2);
      }
      return static_cast<int64_t>(n);
    };
    if (a == "--model")
      o.model = next();
    else if (a == "--device")
      o.device = next();
    else if (a == "--text")
      o.text = next();
    else if (a == "--steps")
      o.steps = static_cast<int>(count(0));
    else if (a == "--batch")
      o.batch = static_cast<int>(count(1));
    else if (a == "--layers")
      o.layers = count(1);
    else if (a == "--heads")
      o.heads = count(1);
    else if (a == "--dim")
      o.dim = count(1);
    else if (a == "--context")
      o.context = count(2);
    else if (a == "--lr")
      o.lr = std::atof(next().c_str());
    else if (a == "--save")
      o.save = next();
    else if (a == "--load")
      o.load = next();
    else if (a == "--sample")
      o.sample = static_cast<int>(count(0));
    else if (a == "--prompt")
      o.prompt = next();
    else if (a == "--temperature")
      o.temperature = std::atof(next().c_str());
    else if (a == "--seed")
      o.seed = static_cast<uint64_t>(count(0));
    else if (a == "--quiet")
      o.quiet = true;
    else if (a == "--data-parallel")
      o.dataParallel = true;
    else
      usage(a == "--help" ? 0 : 2);
  }
  if (o.model != "gpt" && o.model != "mlp") {
    std::fprintf(stderr, "char-lm: --model takes gpt or mlp, not '%s'\n",
                 o.model.c_str());
    std::exit(2);
  }
  if (o.prompt.empty())
    o.prompt = " ";
  return o;
}

/// Appends every source file under `dir` (recursively) to `out`.
void readSources(const std::string &dir, std::string &out) {
  DIR *d = opendir(dir.c_str());
  if (!d)
    return;
  std::vector<std::string> names;
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.')
      names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string &n : names) {
    std::string path = dir + "/" + n;
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      readSources(path, out);
      continue;
    }
    auto ends = [&](const char *s) {
      size_t l = std::strlen(s);
      return n.size() > l && n.compare(n.size() - l, l, s) == 0;
    };
    if (ends(".cpp") || ends(".h") || ends(".td")) {
      std::ifstream in(path);
      std::stringstream ss;
      ss << in.rdbuf();
      out += ss.str();
    }
  }
}

std::string loadText(const Options &o, int64_t window) {
  std::string text;
  if (!o.text.empty()) {
    std::ifstream in(o.text, std::ios::binary);
    if (!in)
      throw Error("cannot read " + o.text);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  } else {
    for (const char *sub : {"/include", "/lib", "/tools", "/examples"})
      readSources(std::string(KILN_SOURCE_DIR) + sub, text);
  }
  if (static_cast<int64_t>(text.size()) < 4 * (window + 1))
    throw Error("the text has only " + std::to_string(text.size()) +
                " bytes; give a larger --text");
  return text;
}

DispatchDevice deviceNamed(const std::string &name) {
  if (name == "flex")
    return DispatchDevice::flex();
  if (name == "cpu")
    return DispatchDevice::cpu();
  if (name == "cuda")
    return DispatchDevice::cuda(0);
  throw Error("unknown device '" + name + "' (flex, cpu or cuda)");
}

/// Inputs and targets of one batch: B windows of the text.
struct Batch {
  std::vector<int64_t> inputs, targets;
};

/// A model of the next byte: what the training loop needs of it.
class Model {
public:
  virtual ~Model() = default;
  /// The bytes a training example reads, and the targets it predicts per
  /// window of `window()` + 1 bytes.
  virtual int64_t window() const = 0;
  virtual Batch batch(const std::string &text,
                      const std::vector<size_t> &at) const = 0;
  virtual DispatchTensor loss(const Batch &b, int64_t rows,
                              const DispatchDevice &d) const = 0;
  virtual std::string sample(const std::string &prompt, int n, uint64_t seed,
                             double temperature) = 0;
  virtual nn::NamedParameters namedParameters() = 0;
};

class GPTModel : public Model {
public:
  GPTModel(const nn::GPTConfig &c, const DispatchDevice &d, uint64_t seed)
      : gpt(c, d, seed) {}
  int64_t window() const override { return gpt.config.context; }
  Batch batch(const std::string &text,
              const std::vector<size_t> &at) const override {
    Batch b;
    int64_t t = window();
    for (size_t start : at)
      for (int64_t i = 0; i < t; ++i) {
        b.inputs.push_back(static_cast<unsigned char>(text[start + i]));
        b.targets.push_back(static_cast<unsigned char>(text[start + i + 1]));
      }
    return b;
  }
  DispatchTensor loss(const Batch &b, int64_t rows,
                      const DispatchDevice &d) const override {
    int64_t t = window();
    return gpt.loss(
        DispatchTensor::fromVector<int64_t>(b.inputs, {rows, t}, d),
        DispatchTensor::fromVector<int64_t>(b.targets, {rows, t}, d));
  }
  std::string sample(const std::string &prompt, int n, uint64_t seed,
                     double temperature) override {
    std::vector<int64_t> p;
    for (unsigned char c : prompt)
      p.push_back(c);
    std::vector<int64_t> out = gpt.generate(p, n, {temperature, 40, seed});
    return std::string(out.begin(), out.end());
  }
  nn::NamedParameters namedParameters() override {
    return gpt.namedParameters();
  }

  nn::GPT gpt;
};

/// The MLP of Kiln's first demo: the embeddings of the last 16 bytes,
/// concatenated, through a gelu layer of 512 to the next byte's logits.
class MLPModel : public Model {
public:
  static constexpr int64_t kContext = 16, kEmbed = 24, kHidden = 512;
  MLPModel(const DispatchDevice &d, uint64_t seed)
      : embed(256, kEmbed, d, seed),
        hidden(kContext * kEmbed, kHidden, d, seed + 1),
        out(kHidden, 256, d, seed + 3) {}
  int64_t window() const override { return kContext; }
  Batch batch(const std::string &text,
              const std::vector<size_t> &at) const override {
    Batch b;
    for (size_t start : at) {
      for (int64_t i = 0; i < kContext; ++i)
        b.inputs.push_back(static_cast<unsigned char>(text[start + i]));
      b.targets.push_back(static_cast<unsigned char>(text[start + kContext]));
    }
    return b;
  }
  DispatchTensor logits(const DispatchTensor &context) const {
    int64_t rows = context.shape()[0];
    DispatchTensor e =
        embed.forward(context).reshape({rows, kContext * kEmbed});
    return out.forward(gelu(hidden.forward(e), /*tanhApprox=*/true));
  }
  DispatchTensor loss(const Batch &b, int64_t rows,
                      const DispatchDevice &d) const override {
    return crossEntropy(
        logits(
            DispatchTensor::fromVector<int64_t>(b.inputs, {rows, kContext}, d)),
        DispatchTensor::fromVector<int64_t>(b.targets, {rows}, d));
  }
  std::string sample(const std::string &prompt, int n, uint64_t seed,
                     double temperature) override {
    NoGradGuard noGrad;
    DispatchDevice d = embed.weight.device().backend();
    std::string s = std::string(kContext, ' ') + prompt;
    std::mt19937_64 rng(seed);
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> ctx;
      for (size_t k = s.size() - kContext; k < s.size(); ++k)
        ctx.push_back(static_cast<unsigned char>(s[k]));
      std::vector<float> p = softmax(logits(DispatchTensor::fromVector<int64_t>(
                                         ctx, {1, kContext}, d)) *
                                         (1.0 / std::max(temperature, 1e-3)),
                                     1)
                                 .toVector<float>();
      std::discrete_distribution<int> pick(p.begin(), p.end());
      s.push_back(static_cast<char>(pick(rng)));
    }
    return s.substr(kContext);
  }
  nn::NamedParameters namedParameters() override {
    nn::NamedParameters p = embed.namedParameters("embed.");
    for (auto &q : hidden.namedParameters("hidden."))
      p.push_back(q);
    for (auto &q : out.namedParameters("out."))
      p.push_back(q);
    return p;
  }

  nn::Embedding embed;
  nn::Linear hidden, out;
};

void progress(int step, int steps, float loss, double tokensPerSec,
              int64_t compiled, int64_t cached) {
  const int width = 24;
  int filled = steps ? static_cast<int>(double(step) / steps * width) : width;
  std::printf("step %4d/%d [%.*s%*s] loss %.4f  %7.0f tok/s  kernels: %lld "
              "compiled, %lld from cache\n",
              step, steps, filled, "########################", width - filled,
              "", loss, tokensPerSec, static_cast<long long>(compiled),
              static_cast<long long>(cached));
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  try {
    // Under mpirun every rank runs this program; rank 0 prints.
    if (o.dataParallel && !distributed::init())
      std::fprintf(stderr, "char-lm: --data-parallel without an MPI launcher: "
                           "one rank\n");
    const int rank = distributed::rank(), ranks = distributed::size();
    const bool lead = rank == 0;
    const int globalBatch = o.batch * ranks;
    DispatchDevice base = deviceNamed(o.device);
    DispatchDevice device =
        DispatchDevice::autodiff(base, CheckpointingStrategy::Balanced);
    std::unique_ptr<Model> model;
    if (o.model == "gpt")
      model = std::make_unique<GPTModel>(
          nn::GPTConfig{256, o.layers, o.heads, o.dim, o.context}, device,
          o.seed);
    else
      model = std::make_unique<MLPModel>(device, o.seed);
    std::string text = loadText(o, model->window());
    nn::NamedParameters params = model->namedParameters();
    std::vector<DispatchTensor *> trainable;
    for (auto &p : params)
      trainable.push_back(p.second);
    optim::AdamW adamw(trainable, o.lr, 0.9, 0.95, 1e-8, 0.1);
    if (lead)
      std::printf(
        "char-lm: a %s of %zu parameters on %s, %zu bytes of text, "
        "batch %d x %lld bytes, %d steps\n",
        o.model.c_str(),
        [&] {
          size_t n = 0;
          for (auto &p : params)
            n += p.second->numel();
          return n;
        }(),
        base.str().c_str(), text.size(), globalBatch,
        static_cast<long long>(model->window()), o.steps);
    if (lead && ranks > 1)
      std::printf("data parallel: %d ranks of %d rows each\n", ranks,
                  o.batch);

    // The last tenth of the text is held out: a fixed evaluation set of 4
    // batches, from the same seed every run.
    size_t split = text.size() - text.size() / 10;
    size_t span = static_cast<size_t>(model->window()) + 1;
    random::SplitMix64 rng{o.seed};
    std::vector<Batch> evalBatches;
    {
      random::SplitMix64 evalRng{12345};
      for (int k = 0; k < 4; ++k) {
        std::vector<size_t> at;
        for (int b = 0; b < o.batch; ++b)
          at.push_back(evalRng.between(split, text.size() - span));
        evalBatches.push_back(model->batch(text, at));
      }
    }
    auto evalLoss = [&] {
      NoGradGuard noGrad;
      double sum = 0;
      for (const Batch &b : evalBatches)
        sum += model->loss(b, o.batch, base).item<float>();
      return sum / evalBatches.size();
    };

    // A checkpoint holds the parameters, AdamW's moments and its step
    // count, so that --load resumes training where --save left it.
    DispatchTensor stepCount =
        DispatchTensor::zeros({1}, DType::I64, base).sync();
    nn::NamedParameters checkpoint = params;
    for (auto &s : adamw.namedState(params))
      checkpoint.push_back(s);
    checkpoint.emplace_back("adamw.steps", &stepCount);
    if (!o.load.empty()) {
      nn::load(checkpoint, o.load);
      adamw.steps = stepCount.item<int64_t>();
      double loaded = evalLoss();
      if (lead)
        std::printf("loaded %s (after %lld steps): eval loss %.4f\n",
                    o.load.c_str(), static_cast<long long>(adamw.steps),
                    loaded);
    }
    // Every rank starts from rank 0's model.
    distributed::broadcastParameters(trainable);
    double first = evalLoss();
    if (lead)
      std::printf("eval loss before training %.4f\n", first);

    BackendCounters start = backendCounters(base);
    int warmup = std::min(20, std::max(o.steps / 10, 1));
    for (int step = 1; step <= o.steps; ++step) {
      // Every rank draws the whole batch and keeps its share: the job
      // trains on the batch one process of --batch N x ranks would.
      std::vector<size_t> at;
      for (int b = 0; b < globalBatch; ++b)
        at.push_back(rng.between(0, split - span));
      at = std::vector<size_t>(at.begin() + rank * o.batch,
                               at.begin() + (rank + 1) * o.batch);
      Batch batch = model->batch(text, at);
      auto t0 = std::chrono::steady_clock::now();
      adamw.lr = optim::warmupCosine(step, warmup, o.steps, o.lr, o.lr / 10);
      DispatchTensor loss = model->loss(batch, o.batch, base);
      Gradients grads = backward(loss);
      if (ranks > 1) {
        // Averaged over the ranks inside the step's graph, bucket by bucket
        // while backward runs; the printed loss is the job's.
        grads = distributed::averageGradients(grads);
        loss = distributed::allReduce(loss, distributed::ReduceOp::Mean);
      }
      adamw.step(optim::clipGradNorm(grads, 1.0));
      base.sync(); // loss, parameters and AdamW state in one graph
      float l = loss.item<float>();
      double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
      if (lead && (!o.quiet || step == o.steps)) {
        BackendCounters now = backendCounters(base);
        progress(step, o.steps, l,
                 static_cast<double>(batch.targets.size()) * ranks / secs,
                 now.compiles - start.compiles,
                 now.cacheHits - start.cacheHits);
      }
    }
    double last = evalLoss();
    if (!lead) {
      distributed::finalize();
      return 0;
    }
    std::printf("eval loss %.4f -> %.4f (%.0f%% lower)\n", first, last,
                100.0 * (first - last) / first);
    // The line the demo's test reads.
    std::printf("loss %.4f -> %.4f\n", first, last);

    if (!o.save.empty()) {
      stepCount = DispatchTensor::fromVector<int64_t>({adamw.steps}, {1}, base);
      nn::save(checkpoint, o.save);
      std::printf("saved %s: eval loss %.4f\n", o.save.c_str(), last);
    }
    if (o.sample > 0) {
      std::string s = model->sample(o.prompt, o.sample, o.seed, o.temperature);
      std::printf("---- sample ----\n%s\n----------------\n", s.c_str());
    }
    distributed::finalize();
    return 0;
  } catch (const Error &e) {
    std::fprintf(stderr, "char-lm: error: %s\n", e.what());
    return 1;
  }
}
