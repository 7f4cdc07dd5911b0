//===- Decompose.cpp - Rewrite composite kiln ops into primitives ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDECOMPOSE
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The decompositions are the dialect's (populateDecomposePatterns).
struct KilnDecomposePass
    : public mlir::kiln::impl::KilnDecomposeBase<KilnDecomposePass> {
  using KilnDecomposeBase::KilnDecomposeBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    std::vector<std::string> kept(keep.begin(), keep.end());
    populateDecomposePatterns(patterns, kept);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
