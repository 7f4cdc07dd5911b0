//===- Workloads.h - The rows of bench/WORKLOADS.md -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TENSOR_BENCH_WORKLOADS_H
#define KILN_TOOLS_TENSOR_BENCH_WORKLOADS_H

#include "Report.h"

#include "kiln/Kiln.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

/// Problem sizes: WORKLOADS.md's, or tiny ones for --quick.
struct Sizes {
  int64_t ewN = 16777216;
  int64_t reduceN = 67108864;
  int64_t softmaxRows = 4096, softmaxCols = 4096;
  int64_t lnRows = 8192, lnCols = 1024;
  int64_t mm = 2048;
  int64_t mbgM = 2048, mbgK = 1024, mbgN = 4096;
  int64_t mlpBatch = 256, mlpIn = 1024, mlpHidden = 4096;
  int64_t deepBlocks = 24, deepBatch = 512, deepDim = 1024;
  int64_t overheadN = 16, overheadIters = 10000;
  /// gpt_train_step and gpt_decode (WORKLOADS.md's transformer workloads).
  kiln::nn::GPTConfig gpt{256, 4, 4, 256, 128};
  int64_t gptBatch = 16, gptPrompt = 16, gptDecodeTokens = 256;
  /// llama_train_step and llama_decode.
  kiln::nn::LlamaConfig llama = [] {
    kiln::nn::LlamaConfig c;
    c.vocab = 256;
    c.hidden = 256;
    c.intermediate = 688;
    c.layers = 4;
    c.heads = 8;
    c.kvHeads = 2;
    c.rmsEps = 1e-5;
    c.maxPositions = 512; // a decode's prompt and new tokens
    return c;
  }();
  int64_t llamaBatch = 8, llamaContext = 256, llamaPrompt = 16,
          llamaDecodeTokens = 256;
  int64_t ewOpN = 16777216;
  /// Triad arrays: 3 x 128 MiB, far beyond the 32 MiB LLC.
  int64_t triadN = 1 << 25;

  static Sizes quick();
};

struct Options {
  std::vector<std::string> workloads, backends;
  std::vector<int> threads;
  bool quick = false;
  int runs = 5, warmup = 1, compileRuns = 5;
  std::string json;
  /// Where tools/peers/onnx_bench.py wrote the onnx_* rows' models.
  std::string onnxDir;
  Sizes sizes;
};

/// The probes' results, by thread count.
struct Machine {
  std::map<int, double> bytesPerSec, flopsPerSec;
};

/// Every workload name, in the order they run.
const std::vector<std::string> &allWorkloads();

/// One gpt_train_step (Balanced checkpointing) over `batch` sequences of
/// random bytes on `dev`, its tokens and targets marked dynamic in their
/// batch dim when `dynamic`: the compile and dynamic workloads' case.
std::function<void()> gptTrainCase(const Sizes &s, const kiln::DispatchDevice &dev,
                                   int64_t batch, bool dynamic);

/// `v` printed with the printf format `f`.
std::string fmt(const char *f, double v);

/// What is wrong with `got` against `want`, with errors relative to the
/// largest reference magnitude (right for gradients and logits, whose small
/// entries carry no more absolute precision than large ones), or "".
std::string compareScaled(const std::vector<float> &got,
                          const std::vector<float> &want, double tol,
                          const std::string &what);

/// Runs the rows of one workload for the selected backends and threads,
/// printing each row and appending it to `records`.
class Suite {
public:
  /// `devs`: the selected backends that can run here, by name.
  Suite(const Options &opts, const Machine &machine,
        std::vector<std::pair<std::string, kiln::DispatchDevice>> devs,
        Table &table, std::vector<Record> &records)
      : opts(opts), machine(machine), devs(std::move(devs)), table(table),
        records(records) {}

  void run(const std::string &workload);

private:
  void ewChain();
  void reduceSum();
  void softmax();
  void layerNorm();
  void matmul();
  void matmulBiasGelu();
  /// The convolution and ResNet rows (Vision.cpp).
  void conv2d();
  void resnet18Infer();
  void resnetTrainStep();
  void mlpTrainStep();
  void deepMlpMemory();
  void gptTrainStep();
  /// gpt_train_step data parallel: 2 in-process ranks of 1 thread.
  void gptDataParallel();
  void gptDecode();
  void llamaTrainStep();
  void llamaDecode();
  /// The imported models' rows (Onnx.cpp): `name`.onnx of --onnx-dir on
  /// its input, `flops` of work per run (0: no peak ratio).
  void onnxModel(const std::string &workload, const std::string &name,
                 const std::string &what, double flops);
  void onnxResnet18();
  void onnxGpt2();
  void compile();
  void dynamic();
  /// Whether the cpu backend is selected; else notes that `rows` skip.
  bool cpuSelected(const char *rows);
  void overhead();
  void python();
  void ewOps();

  /// One Kiln row per selected device (or only those named in `only`) and
  /// thread count. `body` fills the record; an exception becomes the row's
  /// error.
  void kilnRows(const std::string &workload,
                const std::function<void(Record &, const kiln::DispatchDevice &,
                                         int)> &body,
                const std::vector<std::string> &only = {});
  /// The decode rows' q8 ratio: f32 ms per (backend, threads) so far.
  using F32Times = std::map<std::pair<std::string, int>, double>;
  /// One decode row: `generate` (returning the new tokens) runs once,
  /// building at most 3 executables and making `tokens` tokens, then is
  /// timed (a repeated call must give the same tokens and compile
  /// nothing); q8 rows get f32 time / q8 time as their ratio.
  void decodeRow(Record &r, const kiln::DispatchDevice &backend, int threads,
                 bool q8, int64_t tokens,
                 const std::function<std::vector<int64_t>()> &generate,
                 F32Times &f32ms);
  /// What a training workload's Disabled and Balanced rows measured so far
  /// (0 until they have): their steps' peak bytes and median ms.
  struct StrategyBaseline {
    int64_t peak[2] = {0, 0};
    double ms[2] = {0, 0};
  };
  /// A training workload's rows, per selected device and thread count: one
  /// per checkpointing strategy, Disabled, Balanced, then Budget halfway
  /// between their peaks (strategyOfRow). `row(r, device, threads, which,
  /// strategy, baseline)` runs one and returns its step's peak bytes (0:
  /// it failed its check); the Budget row then gets its budget and whether
  /// the step stayed under it. `balancedOnly` runs the Balanced row alone
  /// (the others say they were skipped).
  void strategyRows(
      const std::string &workload,
      const std::function<int64_t(Record &, const kiln::DispatchDevice &, int,
                                  int, const kiln::CheckpointingStrategy &,
                                  const StrategyBaseline &)> &row,
      bool balancedOnly = false);
  /// One hand-written-loop row per thread count; `hand` gets each median.
  /// `backend` names the rows: "hand", or "blas" for the BLAS rows, which
  /// are run only when tensor-bench has a BLAS.
  void handRows(const std::string &workload,
                const std::function<std::string(int)> &check,
                const std::function<void(int)> &step,
                const std::function<void(Record &)> &ratio,
                std::map<int, double> &hand,
                const std::string &backend = "hand");
  /// Adds vs_blas (the BLAS row's time / this row's) to a Kiln row.
  static void addVsBlas(Record &r, const std::map<int, double> &blas);
  /// Runs `fn`, which returns "" or what is wrong with the result; marks
  /// the row WRONG in the second case.
  bool check(Record &r, const std::function<std::string()> &fn);
  void time(Record &r, const std::function<void()> &step);
  /// ratio = bandwidth-ideal time / time, and vs_hand from `hand`.
  void memoryBound(Record &r, double bytes, const std::map<int, double> &hand);
  /// Prints and keeps the row.
  void emit(const Record &r);
  /// Runs body at t threads and emits r; an exception becomes an ERROR row.
  void guardedRow(Record &r, int t, const std::function<void()> &body);

  double idealMs(double bytes, int threads) const;
  double peakFraction(double flops, double ms, int threads) const;

  const Options &opts;
  const Machine &machine;
  std::vector<std::pair<std::string, kiln::DispatchDevice>> devs;
  Table &table;
  std::vector<Record> &records;
};

/// The hidden --compile-child mode: runs every workload's graph on Cpu in
/// this fresh process and writes one line per workload to `outPath`.
/// `mode` is "cold" (first call, repeat, new batch size) or "warm" (first
/// call only, expecting the disk cache that a cold child left).
/// The checkpointing strategy of a training workload's row `which`:
/// Disabled, Balanced, then Budget halfway between the two peaks measured
/// before (1.5x Disabled's when Balanced saves nothing: there is then
/// nothing to trade, and a budget at the peak would make Budget recompute
/// all it can). Nothing when those peaks are missing; `budget` gets
/// Budget's bytes (0 for the others).
std::optional<kiln::CheckpointingStrategy>
strategyOfRow(int which, const int64_t peaks[2], int64_t &budget);

int runCompileChild(const Options &opts, const std::string &mode,
                    const std::string &outPath);

} // namespace bench

#endif // KILN_TOOLS_TENSOR_BENCH_WORKLOADS_H
