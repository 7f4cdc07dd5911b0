//===- Target.cpp - The registry of targets -------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Target.h"
#include "kiln/Support/Error.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <map>
#include <mutex>

using namespace kiln;
using namespace kiln::detail;

namespace {

struct Registry {
  std::mutex mu;
  std::vector<TargetInfo> infos;
  std::map<std::pair<DeviceKind, int>, std::unique_ptr<Target>> targets;

  static Registry &get() {
    // Never destroyed: a target may be in use while statics go.
    static Registry *r = new Registry();
    return *r;
  }
};

} // namespace

void detail::registerTarget(TargetInfo info) {
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const TargetInfo &t : r.infos)
    if (t.kind == info.kind)
      return;
  r.infos.push_back(std::move(info));
}

const TargetInfo &detail::targetInfo(DeviceKind kind) {
  registerAllTargets();
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const TargetInfo &t : r.infos)
    if (t.kind == kind)
      return t;
  throw Error("no target is registered for " + deviceName(kind, 0));
}

const TargetInfo *detail::findTarget(const std::string &name) {
  registerAllTargets();
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const TargetInfo &t : r.infos)
    if (t.name == name)
      return &t;
  return nullptr;
}

Target &detail::getTarget(DeviceKind kind, int index) {
  const TargetInfo &info = targetInfo(kind);
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mu);
  std::unique_ptr<Target> &t = r.targets[{kind, index}];
  if (!t)
    t = info.create(index);
  return *t;
}

namespace {

struct GraphPipelineFlags
    : public mlir::PassPipelineOptions<GraphPipelineFlags> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("The registered target whose "
                                            "options the passes take (flex, "
                                            "cpu, cuda)"),
                             llvm::cl::init("cpu")};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("The checkpointing strategy of the graph's kiln.grad "
                     "(disabled, balanced, budget=BYTES); empty skips "
                     "autodiff and checkpointing"),
      llvm::cl::init("balanced")};
};

/// Fails with `message`: a pipeline that cannot be built says why when it
/// runs (the registration cannot report an error itself).
struct FailPass : public mlir::PassWrapper<FailPass, mlir::OperationPass<>> {
  explicit FailPass(std::string message) : message(std::move(message)) {}
  llvm::StringRef getArgument() const override { return "kiln-fail"; }
  void runOnOperation() override {
    getOperation()->emitError() << message;
    signalPassFailure();
  }
  std::string message;
};

} // namespace

void detail::registerKilnGraphPipeline() {
  mlir::PassPipelineRegistration<GraphPipelineFlags>(
      "kiln-graph-pipeline",
      "What the engine runs on every graph before its target compiles it: "
      "autodiff and checkpointing, decomposition, canonicalization and CSE, "
      "gradient buckets and all-reduce starts and waits, then the target's "
      "fusion",
      [](mlir::OpPassManager &pm, const GraphPipelineFlags &flags) {
        const TargetInfo *info = findTarget(flags.target);
        if (!info) {
          std::string names;
          {
            Registry &r = Registry::get();
            std::lock_guard<std::mutex> lock(r.mu);
            for (const TargetInfo &t : r.infos)
              names += (names.empty() ? "" : ", ") + t.name;
          }
          pm.addPass(std::make_unique<FailPass>(
              "--kiln-graph-pipeline: no target named '" +
              flags.target.getValue() + "' (" + names + ")"));
          return;
        }
        mlir::kiln::GraphPipelineOptions options = info->graph;
        options.strategy = flags.strategy;
        mlir::kiln::buildKilnGraphPipeline(pm, options);
      });
}
