//===- FlexTarget.cpp - Graphs for the eager backend ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Flex interprets the graph op by op: its artifact is a plan of one host
// step per op of @main, each with the op's description, from which the
// backend builds the step's Highway kernel when it loads the plan. Nothing
// is fused or compiled, and silu runs as one kernel rather than as its
// sigmoid and product.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/Error.h"
#include "kiln/Target/Target.h"
#include "kiln/Target/TargetUtils.h"

using namespace kiln;
using namespace kiln::detail;

namespace {

class FlexTarget : public Target {
public:
  BuildResult build(mlir::ModuleOp module) override {
    auto main = module.lookupSymbol<mlir::func::FuncOp>("main");
    if (!main)
      throw Error("flex: the module has no function @main");
    BuildResult r;
    r.artifact.backend = "flex";
    planMain(main, r.artifact,
             [&](mlir::Operation &op) { return hostStep(r.artifact, op); });
    return r;
  }
};

} // namespace

namespace kiln::detail {
void registerFlexTarget() {
  TargetInfo info;
  info.kind = DeviceKind::Flex;
  info.name = "flex";
  info.graph.fuse = false;
  info.graph.keepComposites = {"kiln.silu"};
  info.create = [](int) { return std::make_unique<FlexTarget>(); };
  registerTarget(std::move(info));
}
} // namespace kiln::detail
