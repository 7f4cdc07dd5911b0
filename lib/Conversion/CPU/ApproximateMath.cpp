//===- ApproximateMath.cpp - f32 transcendentals as polynomials -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNAPPROXIMATEMATH
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

struct KilnApproximateMathPass
    : public kiln::impl::KilnApproximateMathBase<KilnApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    static const llvm::StringSet<> approximated = {
        "math.atan",  "math.tanh", "math.log",   "math.log2",
        "math.log1p", "math.erf",  "math.erfc",  "math.asin",
        "math.acos",  "math.exp",  "math.expm1", "math.cbrt"};
    populateMathF32ExpansionPatterns(patterns, [](StringRef op) {
      return approximated.contains(op) || op == "math.sin" ||
             op == "math.cos" || op == "math.atan2";
    });
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef op) { return approximated.contains(op); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
