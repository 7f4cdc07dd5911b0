//===- GraphPipeline.cpp - The passes every backend's graphs go through ---===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The engine runs this on every graph it compiles, with the options its
// target registered; tensor-opt's --kiln-graph-pipeline=target=NAME (from
// the Target layer) builds the same pipeline by hand.
//
//===----------------------------------------------------------------------===//

#include "kiln/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::buildKilnGraphPipeline(OpPassManager &pm,
                                        const GraphPipelineOptions &options) {
  if (!options.strategy.empty()) {
    pm.addPass(createKilnAutodiff());
    KilnCheckpointOptions checkpoint;
    checkpoint.strategy = options.strategy;
    // Budget's model of the step's memory follows what the backend runs.
    checkpoint.fuse = options.fuse;
    checkpoint.transposedOperands = options.fusion.transposedOperands;
    checkpoint.matmulPrologues = options.fusion.matmulPrologues;
    checkpoint.matmulWorkspace = options.matmulWorkspace;
    pm.addPass(createKilnCheckpoint(checkpoint));
  }
  KilnDecomposeOptions decompose;
  decompose.keep.assign(options.keepComposites.begin(),
                        options.keepComposites.end());
  pm.addPass(createKilnDecompose(decompose));
  if (options.convAsMatmul)
    pm.addPass(createKilnConvToMatmul());
  if (options.splitReductions)
    pm.addPass(createKilnSplitReductions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Collectives of data-parallel training: gradients packed into buckets,
  // each reduced while the rest of backward runs.
  pm.addNestedPass<func::FuncOp>(createKilnBucketGradients());
  pm.addNestedPass<func::FuncOp>(createKilnSplitAllReduce());
  if (!options.fuse)
    return;
  KilnFuseOptions fuse;
  fuse.transposedOperands = options.fusion.transposedOperands;
  fuse.matmulPrologues = options.fusion.matmulPrologues;
  pm.addPass(createKilnFuse(fuse));
  pm.addPass(createKilnDedupeKernels());
}
