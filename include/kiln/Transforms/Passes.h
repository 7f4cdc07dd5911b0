//===- Passes.h - Kiln graph transformations --------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_PASSES_H
#define KILN_TRANSFORMS_PASSES_H

#include "kiln/Transforms/Fusion.h"

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

/// What a backend asks of the passes every graph goes through before code
/// generation: how it fuses, how it runs a step (Budget's model of its
/// memory), and which composites it runs as they are. A target
/// (kiln/Target/Target.h) registers these for its backend; the passes never
/// name one.
struct GraphPipelineOptions {
  /// The checkpointing strategy of the graph's kiln.grad (disabled,
  /// balanced, budget=BYTES); empty when the graph has none, which skips
  /// autodiff and checkpointing.
  std::string strategy = "balanced";
  /// Kernels formed by --kiln-fuse (then --kiln-dedupe-kernels); without,
  /// every op runs alone.
  bool fuse = true;
  FusionOptions fusion;
  /// A matmul holds a workspace the size of its left operand and writes in
  /// place when K is one k slice (Budget's model of the step's memory).
  bool matmulWorkspace = false;
  /// Convolutions of one group become products with their columns
  /// (--kiln-conv-to-matmul), for a matmul kernel that packs the columns.
  bool convAsMatmul = false;
  /// Reductions over scattered axes run in two steps, the trailing block
  /// first (--kiln-split-reductions), for a generator that reduces one
  /// block of axes at a time.
  bool splitReductions = false;
  /// Composite ops --kiln-decompose leaves as they are ("kiln.silu").
  std::vector<std::string> keepComposites;
};

/// --kiln-autodiff and --kiln-checkpoint (with the fusion as its model of
/// memory), --kiln-decompose, canonicalize and CSE, the gradient buckets
/// and all-reduce starts and waits, then the fusion.
void buildKilnGraphPipeline(OpPassManager &pm,
                            const GraphPipelineOptions &options);

} // namespace kiln
} // namespace mlir

#endif // KILN_TRANSFORMS_PASSES_H
