//===- Passes.h - Kiln graph transformations --------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_PASSES_H
#define KILN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class RewritePatternSet;
namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Transforms/Passes.h.inc"

/// The passes every backend's graphs go through before code generation,
/// in the fusion the backend runs with.
struct GraphPipelineOptions : public PassPipelineOptions<GraphPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The backend: flex (no fusion), cuda (--kiln-fuse) or "
                     "cpu (--kiln-fuse with transposed operands and matmul "
                     "prologues, then --kiln-dedupe-kernels)"),
      llvm::cl::init("cpu")};
  PassOptions::Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("The checkpointing strategy of the graph's kiln.grad "
                     "(disabled, balanced, budget=BYTES); empty when the "
                     "graph has none, which skips autodiff and checkpointing"),
      llvm::cl::init("balanced")};
};

/// --kiln-graph-pipeline: --kiln-autodiff and --kiln-checkpoint (with the
/// target's fusion as its model of memory), --kiln-decompose, canonicalize
/// and CSE, then the target's fusion.
void buildKilnGraphPipeline(OpPassManager &pm,
                            const GraphPipelineOptions &options);
void registerKilnGraphPipeline();

} // namespace kiln
} // namespace mlir

#endif // KILN_TRANSFORMS_PASSES_H
