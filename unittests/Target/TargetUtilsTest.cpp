//===- TargetUtilsTest.cpp - What targets read off a graph ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The description of an op that a host step is built from: enum attributes
// by their case's name (two enums with the same integer values must not be
// confused), the facts the runtime reads, constants as stored bytes; and
// the plan read off @main.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/TargetUtils.h"
#include "kiln/Engine/Compile.h"
#include "kiln/Runtime/HostSteps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace kiln;
using namespace kiln::detail;

namespace {

const char *const kGraph = R"(
func.func @main(%x: tensor<2x3xf32>, %g: tensor<4xf32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<3xf32>) {
  %c = kiln.constant dense<[1.5, -2.0, 0.25]> : tensor<3xf32>
  %s = kiln.constant dense<7> : tensor<4xi64>
  %0 = kiln.gelu %x approximate = tanh : tensor<2x3xf32>
  %1 = kiln.all_reduce mean %g : tensor<4xf32>
  %2 = kiln.all_reduce sum %g : tensor<4xf32>
  %3 = kiln.reduce_max %x [1] : tensor<2x3xf32> -> tensor<2xf32>
  %4 = kiln.add %c, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<3xf32>
}
)";

class TargetUtilsTest : public ::testing::Test {
protected:
  void SetUp() override {
    ctx = createContext();
    module = mlir::parseSourceString<mlir::ModuleOp>(kGraph, ctx.get());
    ASSERT_TRUE(module);
    main = module->lookupSymbol<mlir::func::FuncOp>("main");
    for (mlir::Operation &op : main.getBody().front())
      ops.push_back(&op);
  }

  std::unique_ptr<mlir::MLIRContext> ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp main;
  std::vector<mlir::Operation *> ops;
};

TEST_F(TargetUtilsTest, EnumsAreTheirCaseNames) {
  OpDesc gelu = describeOp(ops[2]);
  EXPECT_EQ(textAttr(gelu, "approximate"), "tanh");
  // all_reduce's mean is case 1, as gelu's tanh: each is read as its own.
  OpDesc mean = describeOp(ops[3]);
  EXPECT_EQ(textAttr(mean, "kind"), "mean");
  EXPECT_EQ(reduceOpOf(mean), distributed::ReduceOp::Mean);
  OpDesc sum = describeOp(ops[4]);
  EXPECT_EQ(reduceOpOf(sum), distributed::ReduceOp::Sum);
  EXPECT_TRUE(unitAttr(mean, kCollectiveAttr));
  EXPECT_FALSE(unitAttr(gelu, kCollectiveAttr));
}

TEST_F(TargetUtilsTest, TypesAttributesAndFacts) {
  OpDesc max = describeOp(ops[5]);
  EXPECT_EQ(max.name, "kiln.reduce_max");
  EXPECT_EQ(operandDType(max, 0), DType::F32);
  EXPECT_EQ(operandShape(max, 0), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(resultShape(max), std::vector<int64_t>{2});
  EXPECT_EQ(arrayAttr(max, "axes"), std::vector<int64_t>{1});
  EXPECT_FALSE(unitAttr(max, "keepdim"));
  EXPECT_EQ(reductionKindOf(max), ReductionKind::Max);
  EXPECT_THROW(intAttr(max, "axes"), Error);
  EXPECT_THROW(floatAttr(max, "eps"), Error);
}

TEST_F(TargetUtilsTest, ConstantsAreTheirStoredElements) {
  HostAllocator alloc;
  Buffer dense = constantBuffer(describeOp(ops[0]), alloc);
  ASSERT_EQ(dense.shape, std::vector<int64_t>{3});
  EXPECT_EQ(dense.as<float>()[0], 1.5f);
  EXPECT_EQ(dense.as<float>()[1], -2.0f);
  EXPECT_EQ(dense.as<float>()[2], 0.25f);
  // A splat is one element seen through a stride of 0.
  Buffer splat = constantBuffer(describeOp(ops[1]), alloc);
  EXPECT_EQ(splat.dtype, DType::I64);
  EXPECT_EQ(splat.shape, std::vector<int64_t>{4});
  EXPECT_EQ(splat.strides, std::vector<int64_t>{0});
  EXPECT_EQ(static_cast<const int64_t *>(splat.storage->data)[0], 7);
}

TEST_F(TargetUtilsTest, ThePlanOfMain) {
  Artifact a;
  planMain(main, a, [&](mlir::Operation &op) { return hostStep(a, op); });
  EXPECT_EQ(a.constants.size(), 2u);
  EXPECT_EQ(a.ops.size(), 5u);
  const Plan &p = a.plan;
  EXPECT_EQ(p.numArgs, 2);
  EXPECT_EQ(p.numSlots, 2 + 2 + 5);
  ASSERT_EQ(p.steps.size(), 5u);
  // add reads the dense constant twice, which then dies there.
  EXPECT_EQ(p.steps[4].operands, (std::vector<int>{2, 2}));
  EXPECT_EQ(p.steps[4].dying, std::vector<int>{2});
  EXPECT_EQ(p.resultSlots, (std::vector<int>{4, 5, 6, 7, 8}));
  // %x dies at its last reader, the reduce_max.
  EXPECT_EQ(p.steps[3].dying, std::vector<int>{0});
}

} // namespace
