//===- main.cpp - A character-level language model trained with Kiln -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Predicts the next byte of a text from the 16 before it: an embedding, a
// two-layer MLP with gelu, and softmax cross-entropy, trained with Adam.
// The default text is Kiln's own source tree, so nothing is downloaded.
//
//   char-lm [--device flex|cpu|cuda] [--text FILE] [--steps N] [--batch B]
//           [--quiet]
//
// Each step is recorded lazily and materialized by one device sync: the
// forward pass, the backward pass (differentiated on the IR), and the Adam
// updates compile once and then run from the kernel cache.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace kiln;

namespace {

struct Options {
  std::string device = "cpu", text;
  int steps = 2500, batch = 64;
  bool quiet = false;
};

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
    if (a == "--device")
      o.device = next();
    else if (a == "--text")
      o.text = next();
    else if (a == "--steps")
      o.steps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--batch")
      o.batch = std::max(1, std::atoi(next().c_str()));
    else if (a == "--quiet")
      o.quiet = true;
    else {
      std::fprintf(stderr,
                   "usage: char-lm [--device flex|cpu|cuda] [--text FILE] "
                   "[--steps N] [--batch B] [--quiet]\n");
      std::exit(a == "--help" ? 0 : 2);
    }
  }
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

std::string loadText(const Options &o) {
  std::string text;
  if (!o.text.empty()) {
    std::ifstream in(o.text);
    if (!in)
      throw Error("cannot read " + o.text);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  } else {
    for (const char *sub : {"/include", "/lib", "/tools", "/examples"})
      readSources(std::string(KILN_SOURCE_DIR) + sub, text);
  }
  if (text.size() < 1000)
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

constexpr int64_t kContext = 16, kEmbed = 24, kHidden = 512;

struct Model {
  nn::Embedding embed;
  nn::Linear hidden, out;

  Model(int64_t vocab, const DispatchDevice &d)
      : embed(vocab, kEmbed, d, 1), hidden(kContext * kEmbed, kHidden, d, 2),
        out(kHidden, vocab, d, 4) {}

  DispatchTensor logits(const DispatchTensor &context) const {
    int64_t b = context.shape()[0];
    DispatchTensor e = embed.forward(context).reshape({b, kContext * kEmbed});
    return out.forward(gelu(hidden.forward(e), /*tanhApprox=*/true));
  }

  std::vector<DispatchTensor *> parameters() {
    std::vector<DispatchTensor *> p = embed.parameters();
    for (DispatchTensor *q : hidden.parameters())
      p.push_back(q);
    for (DispatchTensor *q : out.parameters())
      p.push_back(q);
    return p;
  }
};

void progress(int step, int steps, float loss, double tokensPerSec,
              int64_t compiled, int64_t cached) {
  const int width = 30;
  int filled = static_cast<int>(double(step) / steps * width);
  std::printf("step %4d/%d [%.*s%*s] loss %.4f  %8.0f tok/s  kernels: %lld "
              "compiled, %lld from cache\n",
              step, steps, filled, "##############################",
              width - filled, "", loss, tokensPerSec,
              static_cast<long long>(compiled), static_cast<long long>(cached));
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  try {
    DispatchDevice base = deviceNamed(o.device);
    DispatchDevice device =
        DispatchDevice::autodiff(base, CheckpointingStrategy::Balanced);
    std::string text = loadText(o);

    // Bytes that occur in the text, in byte order.
    std::vector<int> idOf(256, -1);
    std::vector<unsigned char> byteOf;
    for (unsigned char c : text)
      if (idOf[c] < 0) {
        idOf[c] = 0;
      }
    for (int c = 0; c < 256; ++c)
      if (idOf[c] == 0) {
        idOf[c] = static_cast<int>(byteOf.size());
        byteOf.push_back(static_cast<unsigned char>(c));
      }
    int64_t vocab = static_cast<int64_t>(byteOf.size());
    std::printf("char-lm on %s: %zu bytes of text, vocabulary %lld, "
                "context %lld, batch %d, %d steps\n",
                base.str().c_str(), text.size(), static_cast<long long>(vocab),
                static_cast<long long>(kContext), o.batch, o.steps);

    Model model(vocab, device);
    optim::Adam adam(model.parameters(), 3e-3);
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<size_t> pick(0, text.size() - kContext - 2);

    float first = 0, last = 0;
    auto start = std::chrono::steady_clock::now();
    BackendCounters before = backendCounters(base);
    for (int step = 1; step <= o.steps; ++step) {
      std::vector<int64_t> ctx(o.batch * kContext), next(o.batch);
      for (int b = 0; b < o.batch; ++b) {
        size_t at = pick(rng);
        for (int64_t t = 0; t < kContext; ++t)
          ctx[b * kContext + t] = idOf[(unsigned char)text[at + t]];
        next[b] = idOf[(unsigned char)text[at + kContext]];
      }
      DispatchTensor x = DispatchTensor::fromVector<int64_t>(
          ctx, {o.batch, kContext}, base);
      DispatchTensor y = DispatchTensor::fromVector<int64_t>(next, {o.batch}, base);
      DispatchTensor loss = crossEntropy(model.logits(x), y);
      Gradients grads = backward(loss);
      adam.step(grads);
      base.sync(); // loss, parameters and Adam state in one graph
      last = loss.item<float>();
      if (step == 1)
        first = last;
      if (!o.quiet && (step == 1 || step % 20 == 0 || step == o.steps)) {
        double secs = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
        BackendCounters now = backendCounters(base);
        progress(step, o.steps, last, step * o.batch * kContext / secs,
                 now.compiles - before.compiles,
                 now.cacheHits - before.cacheHits);
      }
    }
    std::printf("loss %.4f -> %.4f (%.0f%% lower)\n", first, last,
                100.0 * (first - last) / first);

    // Sample from the model, one byte at a time.
    NoGradGuard noGrad;
    std::string sample(text.begin(), text.begin() + kContext);
    std::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < 240; ++i) {
      std::vector<int64_t> ctx;
      for (size_t k = sample.size() - kContext; k < sample.size(); ++k)
        ctx.push_back(idOf[(unsigned char)sample[k]]);
      DispatchTensor x = DispatchTensor::fromVector<int64_t>(ctx, {1, kContext}, base);
      std::vector<float> p = softmax(model.logits(x), 1).toVector<float>();
      double r = u(rng), acc = 0;
      size_t c = 0;
      for (; c + 1 < p.size(); ++c) {
        acc += p[c];
        if (r < acc)
          break;
      }
      sample.push_back(static_cast<char>(byteOf[c]));
    }
    std::printf("---- sample ----\n%s\n----------------\n", sample.c_str());
    return 0;
  } catch (const Error &e) {
    std::fprintf(stderr, "char-lm: error: %s\n", e.what());
    return 1;
  }
}
