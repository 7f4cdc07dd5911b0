//===- Transformer.cpp - The GPT workloads of tensor-bench ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// gpt_train_step and gpt_decode: a byte-level GPT
// trained with clipping and AdamW under each checkpointing strategy, and
// decoded with a key/value cache in f32 and with q8 weights. `python`:
// the cost of recording an op, and of the same GPT training step, from
// C++ and from the Python package, in one run.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Workloads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace bench;
namespace k = kiln;
using k::DispatchDevice;
using Tensor = k::DispatchTensor;

namespace {

/// Random bytes [batch, context] and the next byte of each, from `seed`.
std::pair<std::vector<int64_t>, std::vector<int64_t>>
gptBatch(const k::nn::GPTConfig &c, int64_t batch, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> byte(0, c.vocab - 1);
  std::vector<int64_t> seq((c.context + 1) * batch);
  for (int64_t &v : seq)
    v = byte(rng);
  std::vector<int64_t> x, y;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < c.context; ++t) {
      x.push_back(seq[b * (c.context + 1) + t]);
      y.push_back(seq[b * (c.context + 1) + t + 1]);
    }
  return {x, y};
}

/// One training step's model, batch and optimizer.
struct GptStep {
  k::nn::GPT gpt;
  k::optim::AdamW adamw;
  Tensor x, y;

  GptStep(const k::nn::GPTConfig &c, int64_t batch, const DispatchDevice &dev,
          bool dynamic = false)
      : gpt(c, dev, 1), adamw(gpt.parameters(), 3e-4, 0.9, 0.95, 1e-8, 0.1) {
    auto [xs, ys] = gptBatch(c, batch, 7);
    x = Tensor::fromVector<int64_t>(xs, {batch, c.context}, dev.backend());
    y = Tensor::fromVector<int64_t>(ys, {batch, c.context}, dev.backend());
    if (dynamic) {
      x.markDynamic(0);
      y.markDynamic(0);
    }
  }
  /// The loss before the update (the step's value).
  float step() {
    Tensor l = gpt.loss(x, y);
    adamw.step(k::optim::clipGradNorm(k::backward(l), 1.0));
    x.device().sync(); // the loss, the parameters and AdamW's state
    return l.item<float>();
  }
};

/// The matmul FLOPs of a step: 6 N B T for
/// the N parameters outside the embeddings, and 12 L T d B T for attention.
double gptFlops(k::nn::GPT &gpt, int64_t batch) {
  const k::nn::GPTConfig &c = gpt.config;
  double n = 0;
  for (const auto &[name, p] : gpt.namedParameters())
    if (name.rfind("wte.", 0) != 0 && name.rfind("wpe.", 0) != 0)
      n += static_cast<double>(p->numel());
  double tokens = static_cast<double>(batch * c.context);
  return 6 * n * tokens + 12.0 * c.layers * c.context * c.dim * tokens;
}

} // namespace

std::function<void()> bench::gptTrainCase(const Sizes &s,
                                          const DispatchDevice &dev,
                                          int64_t batch, bool dynamic) {
  auto step = std::make_shared<GptStep>(
      s.gpt, batch,
      DispatchDevice::autodiff(dev, k::CheckpointingStrategy::Balanced),
      dynamic);
  return [step] { step->step(); };
}

void Suite::gptTrainStep() {
  const Sizes &s = opts.sizes;
  k::nn::GPTConfig c = s.gpt;
  table.legend("gpt_train_step",
               "byte-level GPT (" + std::to_string(c.layers) + " layers, " +
                   std::to_string(c.heads) + " heads, d_model " +
                   std::to_string(c.dim) + ", context " +
                   std::to_string(c.context) + ", batch " +
                   std::to_string(s.gptBatch) +
                   "): loss, backward, clipping at 1.0, AdamW; ratio = "
                   "FLOPs (6 N B T + 12 L T d B T) / time / FMA peak; "
                   "peak_MiB = the device allocator's peak over a step, "
                   "parameters and AdamW state included; the Balanced and "
                   "Budget rows give their peak and time against Disabled's");
  // The reference loss: Flex's, on the same model and batch.
  double want = 0;
  {
    GptStep ref(c, s.gptBatch,
                DispatchDevice::autodiff(DispatchDevice::flex(),
                                         k::CheckpointingStrategy::Disabled));
    k::NoGradGuard noGrad;
    want = ref.gpt.loss(ref.x, ref.y).item<float>();
  }
  strategyRows(
      "gpt_train_step",
      [&](Record &r, const DispatchDevice &dev, int t, int which,
          const k::CheckpointingStrategy &strategy,
          const StrategyBaseline &base) -> int64_t {
        GptStep step(c, s.gptBatch, DispatchDevice::autodiff(dev, strategy));
        double flops = gptFlops(step.gpt, s.gptBatch);
        DispatchDevice backend = dev.backend();
        // The first step compiles; its loss is checked against Flex's.
        k::BackendCounters c0 = k::backendCounters(backend);
        double t0 = nowMs();
        float first = step.step();
        double firstMs = nowMs() - t0;
        if (!check(r, [&]() -> std::string {
              if (std::fabs(first - want) <= 1e-4 * std::fabs(want))
                return "";
              return "loss " + fmt("%.7g", first) + ", Flex's " +
                     fmt("%.7g", want);
            }))
          return 0;
        // The second step's peak (Budget plans per pattern of inputs given up,
        // which differs from the first step's: it may compile once more here),
        // then the timed steps, which compile nothing.
        k::resetPeakMemory(backend);
        step.step();
        int64_t peakNow = k::memoryStats(backend).peakBytes;
        k::BackendCounters c1 = k::backendCounters(backend);
        time(r, [&] { step.step(); });
        int64_t later = k::backendCounters(backend).compiles - c1.compiles;
        double ms = r.stats.median();
        r.ratio = peakFraction(flops, ms, t);
        r.ratioOf = "FLOPs / time / FMA peak";
        r.add("tok/s", s.gptBatch * c.context / (ms * 1e-3), "%.0f");
        r.add("GFLOP/s", flops / (ms * 1e-3) / 1e9, "%.1f");
        r.add("peak_MiB", peakNow / 1048576.0, "%.1f");
        r.add("first_step_ms", firstMs, "%.0f");
        r.add("first_steps_compiles", c1.compiles - c0.compiles);
        r.add("later_compiles", later);
        if (later != 0)
          r.status = "WRONG: a repeated step compiled";
        if (which >= 1 && base.peak[0] && base.ms[0]) {
          r.add("peak_vs_disabled", double(peakNow) / base.peak[0], "%.2f");
          r.add("time_vs_disabled", ms / base.ms[0], "%.2f");
        }
        return peakNow;
      },
      /*balancedOnly=*/opts.quick);
}

void Suite::gptDataParallel() {
  const Sizes &s = opts.sizes;
  k::nn::GPTConfig c = s.gpt;
  const int ranks = 2;
  if (std::none_of(devs.begin(), devs.end(),
                   [](const auto &d) { return d.first == "cpu"; }))
    return;
  table.legend("gpt_train_step dp",
               "the same step data parallel: 2 ranks (threads of one "
               "process, 1 thread each) of batch " +
                   std::to_string(s.gptBatch / ranks) +
                   ", gradients averaged by kiln.all_reduce in buckets that "
                   "overlap backward; ratio = one process of batch " +
                   std::to_string(s.gptBatch) +
                   " at 1 thread, timed in this run / the job's step "
                   "(the ranks share this host's cores); comm_ms = each "
                   "all-reduce from its start to its result, summed; "
                   "hidden = the share of it the step spent computing, not "
                   "waiting");
  Record r;
  r.workload = "gpt_train_step";
  r.backend = "cpu dp2";
  DispatchDevice cpu = DispatchDevice::cpu();
  DispatchDevice ad =
      DispatchDevice::autodiff(cpu, k::CheckpointingStrategy::Balanced);
  guardedRow(r, 1, [&] {
    // One process of the whole batch: the loss to match and the time to
    // compare with.
    GptStep one(c, s.gptBatch, ad);
    float want = one.step();
    Stats oneStats = timeRuns(opts.warmup, opts.runs, [&] { one.step(); });
    const int64_t rows = s.gptBatch / ranks;
    std::vector<float> firstLoss(ranks);
    std::vector<Stats> stats(ranks);
    std::vector<std::vector<k::distributed::CollectiveEvent>> events(ranks);
    k::distributed::runInProcess(ranks, [&](int rank) {
      GptStep step(c, s.gptBatch, ad);
      Tensor x = step.x.narrow(0, rank * rows, rows);
      Tensor y = step.y.narrow(0, rank * rows, rows);
      // Each rank's batch is data it holds, as a loader would give it:
      // every step (the first too) is then the same graph on both ranks.
      k::sync({x, y});
      auto dpStep = [&] {
        Tensor l = step.gpt.loss(x, y);
        k::Gradients g =
            k::distributed::averageGradients(k::backward(l));
        l = k::distributed::allReduce(l, k::distributed::ReduceOp::Mean);
        step.adamw.step(k::optim::clipGradNorm(g, 1.0));
        cpu.sync();
        return l.item<float>();
      };
      firstLoss[rank] = dpStep();
      dpStep();
      k::distributed::collectives(/*clear=*/true);
      stats[rank] = timeRuns(0, opts.runs, [&] { dpStep(); });
      events[rank] = k::distributed::collectives();
    });
    if (!check(r, [&]() -> std::string {
          if (firstLoss[0] == firstLoss[1] &&
              std::fabs(firstLoss[0] - want) <= 1e-5 * std::fabs(want))
            return "";
          return "loss " + fmt("%.7g", firstLoss[0]) + " and " +
                 fmt("%.7g", firstLoss[1]) + " on the ranks, " +
                 fmt("%.7g", want) + " in one process";
        }))
      return;
    r.stats = stats[0];
    double ms = r.stats.median();
    r.ratio = oneStats.median() / ms;
    r.ratioOf = "one process's time / the job's";
    double commMs = 0, blockedMs = 0, bytes = 0;
    int64_t buckets = 0;
    // An all-reduce's time: from its start to its result (the peers'
    // arrival included); the step waited for part of it.
    for (const auto &e : events[0]) {
      commMs += e.endedMs - e.startedMs;
      blockedMs += std::max(0.0, e.waitedToMs - e.waitedFromMs);
      if (e.bytes > 64) {
        bytes += e.bytes;
        ++buckets;
      }
    }
    double steps = static_cast<double>(opts.runs);
    r.add("ranks", int64_t(ranks));
    r.add("tok/s", s.gptBatch * c.context / (ms * 1e-3), "%.0f");
    r.add("one_process_ms", oneStats.median(), "%.1f");
    r.add("buckets_per_step", static_cast<int64_t>(buckets / opts.runs));
    r.add("MiB_per_step", bytes / steps / 1048576.0, "%.2f");
    r.add("comm_ms_per_step", commMs / steps, "%.2f");
    r.add("blocked_ms_per_step", blockedMs / steps, "%.2f");
    r.add("hidden", commMs > 0 ? 1.0 - blockedMs / commMs : 1.0, "%.2f");
  });
}

void Suite::decodeRow(Record &r, const DispatchDevice &backend, int t, bool q8,
                      int64_t tokens,
                      const std::function<std::vector<int64_t>()> &generate,
                      F32Times &f32ms) {
  int64_t before = k::backendCounters(backend).compiles;
  std::vector<int64_t> first = generate();
  int64_t compiles = k::backendCounters(backend).compiles - before;
  r.add("compiles", compiles);
  if (!check(r, [&]() -> std::string {
        if (static_cast<int64_t>(first.size()) != tokens)
          return "generate made " + std::to_string(first.size()) + " tokens";
        return compiles <= 3 ? "" : "more than 3 executables";
      }))
    return;
  int64_t c1 = k::backendCounters(backend).compiles;
  time(r, [&] {
    if (generate() != first)
      throw k::Error("a seeded generate call sampled other tokens");
  });
  double ms = r.stats.median();
  r.add("tok/s", tokens / (ms * 1e-3), "%.1f");
  if (k::backendCounters(backend).compiles != c1)
    r.status = "WRONG: a repeated generate call compiled";
  if (!q8) {
    f32ms[{r.backend, t}] = ms;
  } else if (f32ms.count({r.backend, t})) {
    r.ratio = f32ms[{r.backend, t}] / ms;
    r.ratioOf = "f32 time / q8 time";
  }
}

void Suite::gptDecode() {
  const Sizes &s = opts.sizes;
  k::nn::GPTConfig c = s.gpt;
  table.legend("gpt_decode",
               "the gpt_train_step model at batch 1: a prompt of " +
                   std::to_string(s.gptPrompt) + " bytes, then " +
                   std::to_string(s.gptDecodeTokens) +
                   " sampled tokens with a key/value cache (f32 weights, or "
                   "q8 blocks of 32 dequantized inside the matmuls); ms = one "
                   "warm generate call; tok/s = sampled tokens / time; "
                   "compiles = executables the first call built; ratio (q8 "
                   "rows) = f32 time / q8 time");
  std::vector<int64_t> prompt;
  for (int64_t i = 0; i < s.gptPrompt; ++i)
    prompt.push_back("DispatchTensor x = "[i % 19]);
  F32Times f32ms;
  for (bool q8 : {false, true})
    kilnRows("gpt_decode", [&](Record &r, const DispatchDevice &dev, int t) {
      r.add("weights", std::string(q8 ? "q8" : "f32"));
      k::nn::GPT gpt(c, dev, 1);
      k::nn::SampleOptions o{0.8, 40, 5, q8};
      decodeRow(
          r, dev.backend(), t, q8, s.gptDecodeTokens,
          [&] {
            std::vector<int64_t> all =
                gpt.generate(prompt, s.gptDecodeTokens, o);
            return std::vector<int64_t>(
                all.begin() + static_cast<int64_t>(prompt.size()), all.end());
          },
          f32ms);
    });
}

//===----------------------------------------------------------------------===//
// From Python
//===----------------------------------------------------------------------===//

namespace {

/// The Python child of the `python` rows. Recording: us per op of chains of
/// `n` ops (y + 1.0, y + a tensor), each timed `runs` times after one
/// warm-up chain. gpt_step: ms per training step of kiln.nn.GPT with the
/// C++ rows' configuration, AdamW and clipping, Balanced, after two
/// warm-up steps. Prints "<op> <median> <min> <max>" lines.
const char *const kPythonScript = R"(import sys, time
import numpy as np
import kiln
n, runs, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
vocab, layers, heads, dim, context, batch = map(int, sys.argv[4:10])
kiln.set_num_threads(threads)
x = kiln.asarray([1.0] * 16)
one = kiln.asarray(1.0)
kiln.eval(x, one)
def scalar():
    y = x
    t0 = time.perf_counter()
    for _ in range(n):
        y = y + 1.0
    return (time.perf_counter() - t0) / n * 1e6
def tensor():
    y = x
    t0 = time.perf_counter()
    for _ in range(n):
        y = y + one
    return (time.perf_counter() - t0) / n * 1e6
def report(name, chain, warm):
    for _ in range(warm):
        chain()
    v = sorted(chain() for _ in range(runs))
    print(name, v[len(v) // 2], v[0], v[-1], flush=True)
report("scalar", scalar, 1)
report("tensor", tensor, 1)
dev = kiln.cpu()
gpt = kiln.nn.GPT(vocab, layers, heads, dim, context,
                  device=kiln.autodiff(dev, "balanced"), seed=1)
opt = kiln.optim.AdamW(gpt, lr=3e-4, betas=(0.9, 0.95), eps=1e-8,
                       weight_decay=0.1)
rng = np.random.default_rng(7)
tok = kiln.asarray(rng.integers(0, vocab, (batch, context)), device=dev)
tgt = kiln.asarray(rng.integers(0, vocab, (batch, context)), device=dev)
def step():
    t0 = time.perf_counter()
    loss = gpt.loss(tok, tgt)
    opt.step(kiln.optim.clip_grad_norm(kiln.backward(loss), 1.0))
    dev.sync()
    loss.item()
    return (time.perf_counter() - t0) * 1e3
report("gpt_step", step, 2)
)";

std::string flat(std::string s) {
  for (char &c : s)
    if (c == '\n')
      c = ' ';
  return s.size() > 300 ? s.substr(s.size() - 300) : s;
}

} // namespace

void Suite::python() {
  const Sizes &s = opts.sizes;
  const k::nn::GPTConfig c = s.gpt;
  const int64_t n = opts.quick ? 2000 : 100000;
  table.legend(
      "python",
      "op=scalar|tensor: recording a chain of " + std::to_string(n) +
          " ops on a 16-element Cpu tensor (y = y + 1.0, y = y + t; nothing "
          "runs), median_ms = us per op, ratio = 1 us (the Python budget) / "
          "us per op; op=gpt_step: one gpt_train_step (Balanced) in ms, "
          "ratio = C++ time / this time");
  if (!cpuSelected("python"))
    return;
  DispatchDevice dev = DispatchDevice::cpu();
  std::map<std::pair<std::string, int>, double> cppStep;
  for (int t : opts.threads) {
    k::setNumThreads(t);
    Tensor x = Tensor::fromVector<float>(std::vector<float>(16, 1.f), {16},
                                         dev);
    Tensor one = Tensor::scalar(1.0, k::DType::F32, dev).sync();
    for (const char *op : {"scalar", "tensor"}) {
      Record r;
      r.workload = "python";
      r.backend = "cpp";
      r.threads = t;
      r.add("op", std::string(op));
      bool scalar = std::strcmp(op, "scalar") == 0;
      auto chain = [&] {
        Tensor y = x;
        double t0 = nowMs();
        for (int64_t i = 0; i < n; ++i)
          y = scalar ? y + 1.0 : y + one;
        return (nowMs() - t0) * 1e3 / double(n);
      };
      chain();
      for (int i = 0; i < opts.runs; ++i)
        r.stats.ms.push_back(chain());
      r.ratio = 1.0 / r.stats.median();
      r.ratioOf = "1 us / us per op";
      emit(r);
    }
    Record r;
    r.workload = "python";
    r.backend = "cpp";
    r.threads = t;
    r.add("op", std::string("gpt_step"));
    guardedRow(r, t, [&] {
      GptStep step(c, s.gptBatch,
                   DispatchDevice::autodiff(
                       dev, k::CheckpointingStrategy::Balanced));
      step.step();
      step.step();
      r.stats = timeRuns(0, opts.runs, [&] { step.step(); });
      cppStep[{"cpp", t}] = r.stats.median();
    });
  }
#if defined(KILN_BENCH_PYTHON) && defined(KILN_BENCH_PYTHONPATH)
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path script = fs::temp_directory_path() /
                    ("tensor-bench-python-" + std::to_string(::getpid()) +
                     ".py");
  {
    std::ofstream out(script);
    out << kPythonScript;
  }
  for (int t : opts.threads) {
    std::ostringstream cmd;
    cmd << "PYTHONPATH='" << KILN_BENCH_PYTHONPATH << "' '"
        << KILN_BENCH_PYTHON << "' '" << script.string() << "' " << n << ' '
        << opts.runs << ' ' << t << ' ' << c.vocab << ' ' << c.layers << ' '
        << c.heads << ' ' << c.dim << ' ' << c.context << ' ' << s.gptBatch
        << " 2>&1";
    std::map<std::string, Stats> got;
    std::string output;
    if (std::FILE *p = ::popen(cmd.str().c_str(), "r")) {
      char line[512];
      while (std::fgets(line, sizeof line, p)) {
        output += line;
        std::istringstream in(line);
        std::string op;
        double median, lo, hi;
        if (in >> op >> median >> lo >> hi)
          got[op].ms = {lo, median, hi};
      }
      ::pclose(p);
    }
    for (const char *op : {"scalar", "tensor", "gpt_step"}) {
      Record r;
      r.workload = "python";
      r.backend = "python";
      r.threads = t;
      r.add("op", std::string(op));
      if (!got.count(op)) {
        r.status = "ERROR: the Python child printed: " + flat(output);
      } else {
        r.stats = got[op];
        if (std::strcmp(op, "gpt_step") != 0) {
          r.ratio = 1.0 / r.stats.median();
          r.ratioOf = "1 us / us per op";
        } else if (cppStep.count({"cpp", t})) {
          r.ratio = cppStep[{"cpp", t}] / r.stats.median();
          r.ratioOf = "C++ step / Python step";
        }
      }
      emit(r);
    }
  }
  fs::remove(script, ec);
#else
  table.note("python: no python rows (the Python package is not built)");
#endif
}
