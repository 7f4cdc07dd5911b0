//===- ExpandBFloat16.cpp - bf16 conversions as integer arithmetic --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNEXPANDBFLOAT16
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

struct KilnExpandBFloat16Pass
    : public kiln::impl::KilnExpandBFloat16Base<KilnExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
