//===- onnx-conformance.cpp - The ONNX backend tests on Kiln --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Runs the ONNX backend test suite (each test a model.onnx and
// test_data_set_*/{input,output}_N.pb) on Flex and Cpu, and compares every
// output with the suite's at the ONNX runner's tolerances (rtol 1e-3,
// atol 1e-7). Prints a line per test and a summary per suite; --report
// writes docs/onnx-support.md; --min-pass fails when a suite's in-scope
// pass rate falls under a percentage.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/Onnx.h"
#include "kiln/Kiln.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace kiln;

namespace {

enum class Verdict { Pass, Fail, Unsupported, OutOfScope };

const char *verdictName(Verdict v) {
  switch (v) {
  case Verdict::Pass:
    return "pass";
  case Verdict::Fail:
    return "fail";
  case Verdict::Unsupported:
    return "unsupported";
  case Verdict::OutOfScope:
    return "out of scope";
  }
  return "";
}

struct Result {
  std::string suite, test, op;
  Verdict verdict = Verdict::Pass;
  std::string reason;
};

/// Why a test is out of scope (string, sequence, map and optional types;
/// random numbers; training), or "".
std::string outOfScope(const std::string &test, const std::string &message) {
  for (const char *m : {"sequence, map and optional", "ONNX's string",
                        "random-number ops", "training ops"})
    if (message.find(m) != std::string::npos)
      return message;
  for (const char *t :
       {"test_adagrad", "test_adam", "test_momentum", "test_nesterov_momentum",
        "test_gradient", "test_training_dropout", "test_bernoulli",
        "test_optional", "test_sequence", "test_string", "test_strnorm",
        "test_regex", "test_tfidf", "test_cast_FLOAT_to_STRING",
        "test_cast_STRING_to_FLOAT"})
    if (test.rfind(t, 0) == 0)
      return std::string("out of scope (") + t + ")";
  return "";
}

bool unsupportedMessage(const std::string &m) {
  for (const char *s :
       {"Kiln has no mapping", "is not supported", "Kiln has no dtype",
        "Kiln maps this op from", "depends on the data", "control flow"})
    if (m.find(s) != std::string::npos)
      return true;
  return false;
}

/// "" when `got` matches `want` at rtol/atol (NaN where NaN is expected).
std::string compare(const DispatchTensor &got, const DispatchTensor &want,
                    const std::string &name) {
  if (got.dtype() != want.dtype())
    return "output " + name + " is " + got.dtype().str() + ", expected " +
           want.dtype().str();
  if (got.shape() != want.shape())
    return "output " + name + " has shape " + got.shape().str() +
           ", expected " + want.shape().str();
  std::vector<double> g = cast(got, DType::F64).toVector<double>();
  std::vector<double> w = cast(want, DType::F64).toVector<double>();
  const double rtol = 1e-3, atol = 1e-7;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i]) && std::isnan(g[i]))
      continue;
    if (std::isinf(w[i]) && g[i] == w[i])
      continue;
    if (!(std::abs(g[i] - w[i]) <= atol + rtol * std::abs(w[i]))) {
      std::ostringstream os;
      os << "output " << name << " differs at element " << i << ": " << g[i]
         << ", expected " << w[i];
      return os.str();
    }
  }
  return "";
}

/// The op a test exercises: the model's op type whose name the test's
/// starts with, else the last node's.
std::string opOf(const std::string &test, const std::vector<std::string> &ops) {
  std::string best;
  std::string name = test.substr(5); // after "test_"
  std::string lower;
  for (char ch : name)
    lower += static_cast<char>(std::tolower(ch));
  for (const std::string &op : ops) {
    std::string o;
    for (char ch : op)
      if (ch != '_')
        o += static_cast<char>(std::tolower(ch));
    std::string flat;
    for (char ch : lower)
      if (ch != '_')
        flat += ch;
    if (flat.rfind(o, 0) == 0 && o.size() > best.size())
      best = op;
  }
  if (best.empty() && !ops.empty())
    best = ops.back();
  return best;
}

Result runTest(const std::string &suite, const fs::path &dir,
               const std::vector<DispatchDevice> &devices) {
  Result r;
  r.suite = suite;
  r.test = dir.filename().string();
  fs::path model = dir / "model.onnx";
  std::vector<fs::path> sets;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.is_directory() &&
        e.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  try {
    for (const DispatchDevice &device : devices) {
      onnx::Model m = onnx::Model::load(model.string(), device);
      for (const fs::path &set : sets) {
        std::vector<DispatchTensor> inputs;
        for (size_t i = 0; i < m.inputs().size(); ++i)
          inputs.push_back(onnx::readTensorProto(
              (set / ("input_" + std::to_string(i) + ".pb")).string(), device));
        std::vector<DispatchTensor> outputs = m(inputs);
        for (size_t i = 0; i < outputs.size(); ++i) {
          fs::path expected = set / ("output_" + std::to_string(i) + ".pb");
          if (!fs::exists(expected))
            continue;
          DispatchTensor want =
              onnx::readTensorProto(expected.string(), DispatchDevice::flex());
          std::string diff = compare(outputs[i].to(DispatchDevice::flex()),
                                     want, m.outputs()[i].name);
          if (!diff.empty()) {
            r.verdict = Verdict::Fail;
            r.reason = device.str() + ": " + diff;
            return r;
          }
        }
      }
    }
  } catch (const std::exception &e) {
    // The reason without the file's path (the report names the test).
    std::string msg = e.what();
    std::string path = model.string() + ": ";
    for (size_t at; (at = msg.find(path)) != std::string::npos;)
      msg.erase(at, path.size());
    std::string scope = outOfScope(r.test, msg);
    r.verdict = !scope.empty()            ? Verdict::OutOfScope
                : unsupportedMessage(msg) ? Verdict::Unsupported
                                          : Verdict::Fail;
    r.reason = scope.empty() ? msg : scope;
    return r;
  }
  std::string scope = outOfScope(r.test, "");
  if (!scope.empty()) {
    r.verdict = Verdict::OutOfScope;
    r.reason = scope;
  }
  return r;
}

std::string firstLine(std::string s) {
  size_t nl = s.find('\n');
  if (nl != std::string::npos)
    s = s.substr(0, nl);
  std::replace(s.begin(), s.end(), '|', '/');
  return s;
}

std::string
reportText(const std::vector<Result> &results,
           const std::map<std::string, std::array<int, 4>> &bySuite) {
  std::ostringstream f;
  f << "# ONNX support\n\n"
       "Generated by `onnx-conformance --report` (docs/tools.md) from the "
       "ONNX backend test "
       "suite that Debian's `libonnx-testdata` installs (ONNX 1.12). Each "
       "test runs on Flex and on Cpu; an output passes at the ONNX runner's "
       "tolerances (rtol 1e-3, atol 1e-7). Out of scope: string, sequence, "
       "map and optional types, random-number ops, training-only ops.\n\n"
       "| suite | pass | fail | unsupported | out of scope | in-scope pass "
       "rate |\n|---|---|---|---|---|---|\n";
  for (const auto &[suite, c] : bySuite) {
    int inScope = c[0] + c[1] + c[2];
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f%%",
                  inScope ? 100.0 * c[0] / inScope : 0.0);
    f << "| " << suite << " | " << c[0] << " | " << c[1] << " | " << c[2]
      << " | " << c[3] << " | " << rate << " |\n";
  }
  std::map<std::string, std::array<int, 4>> byOp;
  for (const Result &r : results)
    if (r.suite == "node")
      byOp[r.op.empty() ? "(none)" : r.op][static_cast<int>(r.verdict)]++;
  std::map<std::string, int64_t> since;
  for (const auto &[op, opset] : onnx::supportedOps()) {
    since[op] = opset;
    byOp[op]; // listed even without a node test
  }
  f << "\n## Node tests by op\n\nOpsets: those the importer maps the op "
       "in (every opset up to 21 from the one given); a dash for an op it "
       "does not map.\n\n| op | opsets | pass | fail | unsupported | out of "
       "scope |\n|---|---|---|---|---|---|\n";
  for (const auto &[op, c] : byOp) {
    auto it = since.find(op);
    std::string opsets =
        it == since.end() ? "-" : std::to_string(it->second) + "-21";
    f << "| " << op << " | " << opsets << " | " << c[0] << " | " << c[1]
      << " | " << c[2] << " | " << c[3] << " |\n";
  }
  f << "\n## Tests that do not pass\n\n| suite | test | verdict | reason "
       "|\n|---|---|---|---|\n";
  for (const Result &r : results)
    if (r.verdict != Verdict::Pass)
      f << "| " << r.suite << " | " << r.test << " | " << verdictName(r.verdict)
        << " | " << firstLine(r.reason) << " |\n";
  return f.str();
}

int usage() {
  std::fprintf(stderr, "usage: onnx-conformance DATA_DIR [--suite NAME]... "
                       "[--test PREFIX] [--device flex|cpu]... [--report FILE] "
                       "[--min-pass SUITE=PERCENT]... [--check-report FILE] "
                       "[--quiet]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string data, report, only, checkReport;
  std::vector<std::string> suites;
  std::vector<DispatchDevice> devices;
  std::map<std::string, double> minPass;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::exit(usage());
      }
      return argv[++i];
    };
    if (a == "--suite")
      suites.push_back(next());
    else if (a == "--test")
      only = next();
    else if (a == "--report")
      report = next();
    else if (a == "--check-report")
      checkReport = next();
    else if (a == "--quiet")
      quiet = true;
    else if (a == "--device") {
      std::string d = next();
      if (d == "flex")
        devices.push_back(DispatchDevice::flex());
      else if (d == "cpu")
        devices.push_back(DispatchDevice::cpu());
      else
        return usage();
    } else if (a == "--min-pass") {
      std::string v = next();
      size_t eq = v.find('=');
      if (eq == std::string::npos)
        return usage();
      minPass[v.substr(0, eq)] = std::atof(v.c_str() + eq + 1);
    } else if (!a.empty() && a[0] == '-')
      return usage();
    else
      data = a;
  }
  if (data.empty())
    return usage();
  if (suites.empty())
    suites = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  if (devices.empty())
    devices = {DispatchDevice::flex(), DispatchDevice::cpu()};
  std::vector<Result> results;
  std::map<std::string, std::array<int, 4>> bySuite;
  for (const std::string &suite : suites) {
    fs::path root = fs::path(data) / suite;
    if (!fs::is_directory(root)) {
      std::fprintf(stderr, "onnx-conformance: no suite at %s\n",
                   root.string().c_str());
      return 1;
    }
    std::vector<fs::path> tests;
    for (const auto &e : fs::directory_iterator(root))
      if (e.is_directory() && fs::exists(e.path() / "model.onnx") &&
          e.path().filename().string().rfind(only, 0) == 0)
        tests.push_back(e.path());
    std::sort(tests.begin(), tests.end());
    bySuite[suite] = {0, 0, 0, 0};
    for (const fs::path &t : tests) {
      Result r = runTest(suite, t, devices);
      r.op = opOf(r.test, onnx::readOpTypes((t / "model.onnx").string()));
      bySuite[suite][static_cast<int>(r.verdict)]++;
      if (!quiet || r.verdict == Verdict::Fail)
        std::printf("%s/%s: %s%s%s\n", suite.c_str(), r.test.c_str(),
                    verdictName(r.verdict), r.reason.empty() ? "" : ": ",
                    firstLine(r.reason).c_str());
      std::fflush(stdout);
      results.push_back(r);
    }
  }
  int status = 0;
  for (const auto &[suite, c] : bySuite) {
    int inScope = c[0] + c[1] + c[2];
    double rate = inScope ? 100.0 * c[0] / inScope : 100.0;
    std::printf("%s: %d pass, %d fail, %d unsupported, %d out of scope: "
                "%.1f%% of %d in scope\n",
                suite.c_str(), c[0], c[1], c[2], c[3], rate, inScope);
    auto it = minPass.find(suite);
    if (it != minPass.end() && rate < it->second) {
      std::printf("onnx-conformance: %s passes %.1f%%, under the %.1f%% "
                  "required\n",
                  suite.c_str(), rate, it->second);
      status = 1;
    }
  }
  std::string text = reportText(results, bySuite);
  if (!report.empty())
    std::ofstream(report) << text;
  if (!checkReport.empty()) {
    std::ifstream f(checkReport);
    std::stringstream old;
    old << f.rdbuf();
    if (old.str() != text) {
      std::printf("onnx-conformance: %s is not this run's report; "
                  "regenerate it with --report\n",
                  checkReport.c_str());
      status = 1;
    }
  }
  return status;
}
