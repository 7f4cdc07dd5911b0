//===- tensor-bench.cpp - Kiln against the machine's own limits -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   tensor-bench [--workloads a,b,...] [--backends flex,cpu,cuda]
//                [--threads 1,2] [--runs N] [--warmup N] [--compile-runs N]
//                [--quick] [--json FILE] [--onnx-dir DIR]
//
// Runs Kiln's benchmark workloads. It first measures the machine
// (STREAM triad bandwidth and FMA peak, at each thread count), then prints
// one row per workload, backend and thread count: median/min/max time over
// the timed runs and a ratio against the machine or a hand-written loop
// measured in the same process. The machine is shared and noisy; only the
// ratios are meant to be compared between runs.
//
//===----------------------------------------------------------------------===//

#include "Workloads.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

using namespace bench;

namespace {

void usage(std::FILE *to) {
  std::fprintf(
      to,
      "usage: tensor-bench [options]\n"
      "  --workloads LIST  comma-separated, default all:\n"
      "                    ew_chain reduce_sum softmax layernorm matmul\n"
      "                    matmul_bias_gelu mlp_train_step deep_mlp_memory\n"
      "                    gpt_train_step gpt_decode llama_train_step\n"
      "                    llama_decode onnx_resnet18 onnx_gpt2 compile\n"
      "                    dynamic\n"
      "                    overhead python ew_ops (Flex, each op alone)\n"
      "  --backends LIST   flex,cpu,cuda (default all; cuda rows are\n"
      "                    skipped, with the reason, when no GPU is there)\n"
      "  --threads LIST    thread counts (default 1 and all cores,\n"
      "                    --quick: 1)\n"
      "  --runs N          timed runs per row after warm-up (default 5)\n"
      "  --warmup N        untimed runs after the checked run (default 1)\n"
      "  --compile-runs N  fresh processes per compile row (default 5,\n"
      "                    --quick: 1)\n"
      "  --quick           small sizes and one thread: a smoke test\n"
      "  --json FILE       also write every row as a JSON array\n"
      "  --onnx-dir DIR    the onnx_resnet18 and onnx_gpt2 rows' models\n"
      "                    (tools/peers/onnx_bench.py --export DIR)\n");
}

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "tensor-bench: %s\n", msg.c_str());
  usage(stderr);
  std::exit(2);
}

int parseInt(const std::string &flag, const std::string &v, int min) {
  char *end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end || n < min || n > 1000000)
    fail(flag + " needs an integer >= " + std::to_string(min) + ", got '" +
         v + "'");
  return static_cast<int>(n);
}

struct Parsed {
  Options opts;
  std::string childMode, childOut;
};

Parsed parse(int argc, char **argv) {
  Parsed p;
  Options &o = p.opts;
  bool compileRunsSet = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--workloads")
      o.workloads = splitList(next());
    else if (a == "--backends")
      o.backends = splitList(next());
    else if (a == "--threads") {
      o.threads.clear();
      for (const std::string &t : splitList(next()))
        o.threads.push_back(parseInt("--threads", t, 1));
    } else if (a == "--runs")
      o.runs = parseInt(a, next(), 1);
    else if (a == "--warmup")
      o.warmup = parseInt(a, next(), 0);
    else if (a == "--compile-runs") {
      o.compileRuns = parseInt(a, next(), 1);
      compileRunsSet = true;
    } else if (a == "--quick")
      o.quick = true;
    else if (a == "--json")
      o.json = next();
    else if (a == "--onnx-dir")
      o.onnxDir = next();
    else if (a == "--compile-child") // hidden: see Suite::compile
      p.childMode = next();
    else if (a == "--child-out")
      p.childOut = next();
    else if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else
      fail("unknown option " + a);
  }
  if (o.workloads.empty())
    o.workloads = allWorkloads();
  for (const std::string &w : o.workloads)
    if (std::find(allWorkloads().begin(), allWorkloads().end(), w) ==
        allWorkloads().end())
      fail("unknown workload '" + w + "'");
  if (o.backends.empty())
    o.backends = {"flex", "cpu", "cuda"};
  for (const std::string &b : o.backends)
    if (b != "flex" && b != "cpu" && b != "cuda")
      fail("unknown backend '" + b + "' (flex, cpu, cuda)");
  if (o.threads.empty()) {
    // A --quick run checks that the tool works: one thread count is enough.
    int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    o.threads = {1};
    if (all > 1 && !o.quick)
      o.threads.push_back(all);
  }
  // Each thread count once, in order.
  std::vector<int> seen;
  for (int t : o.threads)
    if (std::find(seen.begin(), seen.end(), t) == seen.end())
      seen.push_back(t);
  o.threads = seen;
  if (o.quick) {
    o.sizes = Sizes::quick();
    if (!compileRunsSet)
      o.compileRuns = 1;
  }
  if (!p.childMode.empty() && p.childMode != "cold" && p.childMode != "warm" &&
      p.childMode != "dynamic")
    fail("--compile-child takes cold, warm or dynamic");
  return p;
}

/// The selected backends that can run here. The ones that cannot are
/// printed with Kiln's own reason.
std::vector<std::pair<std::string, kiln::DispatchDevice>>
selectDevices(const Options &o, Table &table, std::vector<Record> &records) {
  std::vector<std::pair<std::string, kiln::DispatchDevice>> out;
  for (const std::string &name : o.backends) {
    try {
      if (name == "flex") {
        out.push_back({name, kiln::DispatchDevice::flex()});
        continue;
      }
      if (name == "cpu") {
        out.push_back({name, kiln::DispatchDevice::cpu()});
        continue;
      }
      bool listed = false;
      for (const kiln::DispatchDevice &d : kiln::DispatchDevice::available())
        listed |= d.kind() == kiln::DeviceKind::Cuda;
      // cuda(0) says why it cannot run; available() only leaves it out.
      kiln::DispatchDevice d = kiln::DispatchDevice::cuda(0);
      if (!listed)
        throw kiln::Error("DispatchDevice::available() lists no CUDA device");
      out.push_back({name, d});
    } catch (const std::exception &e) {
      table.note(name + " rows are skipped: " + e.what());
      Record r;
      r.workload = "*";
      r.backend = name;
      r.threads = 0;
      r.status = std::string("skipped: ") + e.what();
      records.push_back(r);
    }
  }
  return out;
}

Machine probe(const Options &o, Table &table, std::vector<Record> &records) {
  Machine m;
  table.note(std::string("probes: STREAM triad over 3 x ") +
             std::to_string(o.sizes.triadN * 4 >> 20) +
             " MiB arrays; FMA peak with " + fmaIsa());
  for (int t : o.threads) {
    Record bw;
    bw.workload = "probe:triad";
    bw.backend = "machine";
    bw.threads = t;
    double bytes = triadBytesPerSec(t, o.sizes.triadN, std::max(5, o.runs),
                                    bw.stats);
    m.bytesPerSec[t] = bytes;
    bw.add("best_GB/s", bytes / 1e9, "%.2f");
    bw.ratioOf = "";
    table.row(bw);
    records.push_back(bw);

    Record fma;
    fma.workload = "probe:fma";
    fma.backend = "machine";
    fma.threads = t;
    double flops = fmaFlopsPerSec(t, std::max(5, o.runs), fma.stats);
    m.flopsPerSec[t] = flops;
    fma.add("best_GFLOP/s", flops / 1e9, "%.1f");
    fma.add("isa", std::string(fmaIsa()));
    table.row(fma);
    records.push_back(fma);
  }
  return m;
}

} // namespace

int main(int argc, char **argv) {
  Parsed p = parse(argc, argv);
  if (!p.childMode.empty())
    return runCompileChild(p.opts, p.childMode, p.childOut);
  const Options &o = p.opts;

  Table table(stdout);
  std::vector<Record> records;
  std::string threads;
  for (int t : o.threads)
    threads += (threads.empty() ? "" : ",") + std::to_string(t);
  table.note(std::string("tensor-bench") + (o.quick ? " --quick" : "") +
             ": threads " + threads + ", " + std::to_string(o.runs) +
             " timed runs after " + std::to_string(o.warmup) +
             " warm-up per row; the machine is shared, compare ratios only");
  table.header();
  Machine machine = probe(o, table, records);
  auto devs = selectDevices(o, table, records);

  Suite suite(o, machine, devs, table, records);
  for (const std::string &w : o.workloads)
    suite.run(w);

  int wrong = 0, failed = 0;
  for (const Record &r : records) {
    wrong += r.status.rfind("WRONG", 0) == 0;
    failed += r.status.rfind("ERROR", 0) == 0;
  }
  if (wrong)
    table.note(std::to_string(wrong) + " rows have wrong results");
  if (failed)
    table.note(std::to_string(failed) + " rows failed with an error");
  if (!o.json.empty()) {
    std::string error;
    if (!writeJson(o.json, records, error)) {
      std::fprintf(stderr, "tensor-bench: %s\n", error.c_str());
      return 1;
    }
    table.note("wrote " + std::to_string(records.size()) + " records to " +
               o.json);
  }
  return 0;
}
