//===- GraphPipeline.cpp - The passes every backend's graphs go through ---===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The engine runs this on every graph it compiles, with the target of the
// backend that will run it; tensor-opt registers it, so that a graph can be
// taken through the same passes by hand.
//
//===----------------------------------------------------------------------===//

#include "kiln/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::buildKilnGraphPipeline(OpPassManager &pm,
                                        const GraphPipelineOptions &options) {
  StringRef target = options.target;
  if (!options.strategy.empty()) {
    pm.addPass(createKilnAutodiff());
    KilnCheckpointOptions checkpoint;
    checkpoint.strategy = options.strategy;
    // Budget's model of the step's memory follows what the backend runs:
    // Flex op by op, Cuda --kiln-fuse's kernels, Cpu its own fusion.
    checkpoint.fusion = target == "flex"   ? "none"
                        : target == "cuda" ? "plain"
                                           : "cpu";
    pm.addPass(createKilnCheckpoint(checkpoint));
  }
  pm.addPass(createKilnDecompose());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Collectives of data-parallel training: gradients packed into buckets,
  // each reduced while the rest of backward runs.
  pm.addNestedPass<func::FuncOp>(createKilnBucketGradients());
  pm.addNestedPass<func::FuncOp>(createKilnSplitAllReduce());
  if (target == "flex")
    return;
  KilnFuseOptions fuse;
  // A Cpu matmul reads the transposes it packs, and the elementwise kernel
  // only its left operand reads (evaluated while packing).
  fuse.transposedOperands = target == "cpu";
  fuse.matmulPrologues = target == "cpu";
  pm.addPass(createKilnFuse(fuse));
  pm.addPass(createKilnDedupeKernels());
}

void mlir::kiln::registerKilnGraphPipeline() {
  PassPipelineRegistration<GraphPipelineOptions>(
      "kiln-graph-pipeline",
      "What the engine runs on every graph before the backend compiles it: "
      "autodiff and checkpointing, decomposition, canonicalization and CSE, "
      "gradient buckets and all-reduce starts and waits, then the target "
      "backend's fusion",
      buildKilnGraphPipeline);
}
