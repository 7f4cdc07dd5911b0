//===- Onnx.cpp - tensor-bench's imported-model rows ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// onnx_resnet18 and onnx_gpt2: models exported by PyTorch, imported with
// kiln::onnx and run on their input, checked against onnxruntime's output.
// tools/peers/onnx_bench.py writes them to a directory (--onnx-dir) and
// times onnxruntime in the same sitting; --quick runs the importer tests'
// small exports instead.
//
//===----------------------------------------------------------------------===//

#include "Workloads.h"

#include "kiln/Import/Onnx.h"
#include "kiln/Runtime/Npy.h"

#include <chrono>
#include <cstring>
#include <filesystem>

using namespace bench;
namespace k = kiln;
using k::DispatchDevice;
using Tensor = k::DispatchTensor;

namespace {

k::detail::NpyArray readArray(const std::string &path) {
  return k::detail::readNpy(path);
}

Tensor tensorOf(const k::detail::NpyArray &a, const DispatchDevice &d) {
  return Tensor::fromData(a.dtype, a.data.data(), k::Shape(a.shape).numel(),
                          k::Shape(a.shape), d);
}

} // namespace

void Suite::onnxModel(const std::string &workload, const std::string &name,
                      const std::string &what, double flops) {
  std::string dir = opts.quick ? KILN_BENCH_ONNX_FIXTURES : opts.onnxDir;
  std::string model = opts.quick ? dir + "/" + name + ".dynamo.onnx"
                                 : dir + "/" + name + ".onnx";
  std::string input = opts.quick ? dir + "/" + name + ".input_0.npy"
                                 : dir + "/" + name + ".input.npy";
  std::string output = opts.quick ? dir + "/" + name + ".dynamo.output_0.npy"
                                  : dir + "/" + name + ".output.npy";
  table.legend(workload, (opts.quick ? "the importer tests' small " + name +
                                           " export (--quick)"
                                     : what) +
                             "; imported from " +
                             std::filesystem::path(model).filename().string() +
                             ", checked against onnxruntime's output");
  if (dir.empty() || !std::filesystem::exists(model)) {
    table.note(workload + ": skipped: no " + name +
               ".onnx (write it with tools/peers/onnx_bench.py --export "
               "DIR, then pass --onnx-dir DIR)");
    return;
  }
  k::detail::NpyArray in = readArray(input), want = readArray(output);
  std::vector<float> ref(want.data.size() / sizeof(float));
  std::memcpy(ref.data(), want.data.data(), want.data.size());
  kilnRows(workload, [&](Record &r, const DispatchDevice &dev, int t) {
    auto start = std::chrono::steady_clock::now();
    k::onnx::Model m = k::onnx::Model::load(model, dev);
    Tensor x = tensorOf(in, dev);
    if (!check(r, [&] {
          return compareScaled(m({x})[0].toVector<float>(), ref, 1e-3,
                               "output");
        }))
      return;
    r.add("first_ms",
          std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - start)
              .count(),
          "%.0f");
    Tensor keep;
    time(r, [&] {
      keep = Tensor();
      keep = m({x})[0];
      keep.sync();
    });
    double ms = r.stats.median();
    if (flops > 0) {
      r.ratio = peakFraction(flops, ms, t);
      r.ratioOf = "matmul and conv FLOPs / time / FMA peak";
      r.add("GFLOP/s", flops / (ms * 1e-3) / 1e9, "%.1f");
    }
  });
}

void Suite::onnxResnet18() {
  // ResNet-18 at 224^2: 1.82 GMACs.
  onnxModel("onnx_resnet18", "resnet18",
            "torchvision's ResNet-18 exported by torch.onnx.export (dynamo), "
            "batch 1, 3x224x224",
            opts.quick ? 0 : 2 * 1.8144e9);
}

void Suite::onnxGpt2() {
  // 12 layers of d 768 over 128 tokens: 2 * 85M weights * 128, attention
  // 2 * 2 * 12 * 128^2 * 768, and the head 2 * 768 * 50257 * 128.
  double flops =
      2.0 * 84.9e6 * 128 + 4.0 * 12 * 128 * 128 * 768 + 2.0 * 768 * 50257 * 128;
  onnxModel("onnx_gpt2", "gpt2",
            "transformers' GPT-2 small (12 layers, d 768, 12 heads, vocab "
            "50257) exported by torch.onnx.export (dynamo), one 128-token "
            "input, logits out",
            opts.quick ? 0 : flops);
}
