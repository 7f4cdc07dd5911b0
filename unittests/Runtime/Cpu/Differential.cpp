//===- Differential.cpp - Cpu against Flex through the public API ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

#include <cstdlib>
#include <filesystem>

using namespace kiln;
using namespace kiln::test;

namespace {

/// Every Cpu compile would otherwise land in the user's cache directory:
/// give the run a fresh one (unless KILN_CACHE_DIR asks for a warm one), and
/// print what the op tests covered.
class DifferentialEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    if (std::getenv("KILN_CACHE_DIR"))
      return;
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/kiln-cpu-diff-XXXXXX";
    if (mkdtemp(pattern.data())) {
      dir = pattern;
      setenv("KILN_CACHE_DIR", dir.c_str(), 1);
    }
  }
  void TearDown() override {
    if (!coverage().empty()) {
      std::set<std::string> ops;
      for (const auto &[op, dtype] : coverage())
        ops.insert(op);
      std::printf("[cpu-vs-flex] op tests covered %zu ops in %zu (op, dtype) "
                  "combinations\n",
                  ops.size(), coverage().size());
    }
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }

private:
  std::string dir;
};

[[maybe_unused]] ::testing::Environment *const environment =
    ::testing::AddGlobalTestEnvironment(new DifferentialEnvironment);

/// The values of an output; a quantized one is read through Flex's
/// dequantize, so that its levels and scales are both compared.
std::vector<double> readValues(const Tensor &t) {
  if (t.dtype().isQuantized())
    return valuesOf(dequantize(t.to(DispatchDevice::flex()), DType::F64));
  return valuesOf(t);
}

} // namespace

DiffStats kiln::test::compareOnDevices(
    const std::function<void(Side &)> &build) {
  DiffStats stats;
  Side ref(DispatchDevice::flex()), cpu(DispatchDevice::cpu());
  build(ref);
  build(cpu);
  if (ref.outputs.size() != cpu.outputs.size()) {
    ADD_FAILURE() << "the graph builder made " << ref.outputs.size()
                  << " outputs on flex but " << cpu.outputs.size()
                  << " on cpu";
    return stats;
  }
  size_t n = ref.outputs.size();
  std::vector<Tensor> refTensors, cpuTensors;
  for (size_t i = 0; i < n; ++i) {
    refTensors.push_back(ref.outputs[i].value);
    cpuTensors.push_back(cpu.outputs[i].value);
  }

  std::vector<bool> ran(n, true);
  try {
    sync(cpuTensors);
  } catch (const Error &batch) {
    bool named = false;
    for (size_t i = 0; i < n; ++i) {
      try {
        cpuTensors[i].sync();
      } catch (const Error &e) {
        ran[i] = false;
        named = true;
        ++stats.failures;
        stats.failed.push_back(i);
        ADD_FAILURE() << cpu.outputs[i].label << ": cpu: " << e.what();
      }
    }
    if (!named)
      ADD_FAILURE() << "cpu: the batch failed, though each output alone runs: "
                    << batch.what();
  }
  try {
    sync(refTensors);
  } catch (const Error &e) {
    ADD_FAILURE() << "flex (the reference) failed: " << e.what();
    stats.failures += n;
    return stats;
  }

  for (size_t i = 0; i < n; ++i) {
    ++stats.outputs;
    if (!ran[i])
      continue;
    const Side::Output &want = ref.outputs[i], &got = cpu.outputs[i];
    std::string what = want.label + " (" + want.value.dtype().str() +
                       want.value.shape().str() + ")";
    if (got.value.dtype() != want.value.dtype() ||
        got.value.shape() != want.value.shape()) {
      ++stats.failures;
      stats.failed.push_back(i);
      ADD_FAILURE() << what << ": cpu gives " << got.value.dtype().str()
                    << got.value.shape().str();
      continue;
    }
    ::testing::AssertionResult close =
        allClose(readValues(got.value), readValues(want.value), want.tol);
    if (!close) {
      ++stats.failures;
      stats.failed.push_back(i);
      // A broken kernel tends to break many outputs: name the first few.
      if (stats.failures <= 40)
        ADD_FAILURE() << what << ": cpu differs from flex: "
                      << close.message();
    }
  }
  if (stats.failures > 40)
    ADD_FAILURE() << stats.failures << " of " << stats.outputs
                  << " outputs differ in all";
  return stats;
}
