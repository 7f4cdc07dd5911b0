//===- FlexCoverageTest.cpp - Every op that reaches Flex has a kernel -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Flex is the reference: every op of the dialect that can reach it after the
// graph pipeline must have a kernel. The ops are read from the dialect's
// registry, so an op added to ODS without a Flex kernel fails here. Only
// composites (decomposed first) and kiln.grad (replaced by autodiff) never
// reach a backend, and a plan keeps kiln.constant as a buffer of its own
// (constantBuffer), not as a step.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/FlexBackend.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

namespace {

TEST(FlexCoverage, EveryOpThatReachesFlexHasAKernel) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::kiln::KilnDialect>();
  int checked = 0;
  std::vector<std::string> missing;
  for (mlir::RegisteredOperationName op : ctx.getRegisteredOperations()) {
    if (op.getDialectNamespace() != "kiln")
      continue;
    if (op.hasTrait<mlir::kiln::OpTrait::Composite>() ||
        op.getStringRef() == mlir::kiln::GradOp::getOperationName() ||
        op.getStringRef() == mlir::kiln::ConstantOp::getOperationName())
      continue;
    ++checked;
    if (!kiln::detail::flexHasKernel(op.getStringRef().str()))
      missing.push_back(op.getStringRef().str());
  }
  EXPECT_GT(checked, 60);
  std::string list;
  for (const std::string &m : missing)
    list += " " + m;
  EXPECT_TRUE(missing.empty()) << "no Flex kernel for" << list;
}

TEST(FlexCoverage, AnUnknownOpHasNoKernel) {
  EXPECT_FALSE(kiln::detail::flexHasKernel("kiln.no_such_op"));
  EXPECT_TRUE(kiln::detail::flexHasKernel("kiln.add"));
}

} // namespace
