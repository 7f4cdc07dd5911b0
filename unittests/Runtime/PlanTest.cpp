//===- PlanTest.cpp - Plans, their liveness and their bytes ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The plan every backend runs, on its own: the builder numbers slots and
// finds where each buffer dies, runPlan frees them there, and an artifact
// reads back from its bytes, or is refused whole when they are cut or
// damaged.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Artifact.h"
#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Runtime/CudaProgram.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Support/ShapeRules.h"

#include <gtest/gtest.h>

#include <map>

using namespace kiln;
using namespace kiln::detail;

namespace {

/// a = arg0 + c; b = a * arg1; return (b, arg1): a dies at the product,
/// arg0 and c at the sum; arg1 is returned, so it never dies.
Plan samplePlan() {
  PlanBuilder b(/*numArgs=*/2);
  int c = b.constant(0);
  std::vector<int> a = b.step(kHostOpStep, 0, {0, c}, 1);
  std::vector<int> p = b.step(kHostOpStep, 1, {a[0], 1}, 1);
  return b.finish({p[0], 1});
}

TEST(PlanTest, SlotsAreNumberedArgumentsFirst) {
  Plan plan = samplePlan();
  EXPECT_EQ(plan.numArgs, 2);
  EXPECT_EQ(plan.numSlots, 5);
  ASSERT_EQ(plan.constants.size(), 1u);
  EXPECT_EQ(plan.constants[0], std::make_pair(2, 0));
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_EQ(plan.steps[0].operands, (std::vector<int>{0, 2}));
  EXPECT_EQ(plan.steps[0].results, std::vector<int>{3});
  EXPECT_EQ(plan.steps[1].operands, (std::vector<int>{3, 1}));
  EXPECT_EQ(plan.steps[1].results, std::vector<int>{4});
  EXPECT_EQ(plan.resultSlots, (std::vector<int>{4, 1}));
}

TEST(PlanTest, EachSlotDiesAtItsLastReaderUnlessReturned) {
  Plan plan = samplePlan();
  EXPECT_EQ(plan.steps[0].dying, (std::vector<int>{0, 2}));
  EXPECT_EQ(plan.steps[1].dying, std::vector<int>{3});
  // A slot read twice dies at the later reader only.
  PlanBuilder b(1);
  std::vector<int> x = b.step(0, 0, {0}, 1);
  b.step(0, 1, {0, x[0]}, 1);
  Plan twice = b.finish({});
  EXPECT_TRUE(twice.steps[0].dying.empty());
  EXPECT_EQ(twice.steps[1].dying, (std::vector<int>{0, 1}));
}

TEST(PlanTest, RunningFreesEveryBufferAtItsLastReader) {
  HostAllocator alloc;
  Plan plan = samplePlan();
  Buffer arg0 = allocateBuffer(alloc, DType::F32, {4});
  Buffer arg1 = allocateBuffer(alloc, DType::F32, {4});
  Buffer constant = allocateBuffer(alloc, DType::F32, {4});
  std::weak_ptr<Storage> arg0Storage = arg0.storage;
  std::vector<Buffer> args{arg0, arg1};
  arg0 = Buffer(); // the plan now holds the only reference
  std::weak_ptr<Storage> sum;
  std::atomic<int64_t> executed{0};
  std::vector<int> order;
  std::vector<Buffer> out =
      runPlan(plan, args, {constant}, executed, [&](const StepRun &r) {
        order.push_back(r.step.index);
        if (r.step.index == 0) {
          r.results[0] = allocateBuffer(alloc, DType::F32, {4});
          sum = r.results[0].storage;
        } else {
          // The sum's buffer is still held here, and arg0's is gone.
          EXPECT_FALSE(sum.expired());
          EXPECT_TRUE(arg0Storage.expired());
          r.results[0] = allocateBuffer(alloc, DType::F32, {4});
        }
      });
  EXPECT_TRUE(args.empty());
  EXPECT_EQ(order, (std::vector<int>{0, 1}));
  EXPECT_EQ(executed.load(), 2);
  EXPECT_TRUE(sum.expired()) << "the sum outlived its last reader";
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].storage, arg1.storage);
}

Artifact sampleArtifact() {
  Artifact a;
  a.backend = "cpu";
  a.plan = samplePlan();
  OpDesc add;
  add.name = "kiln.add";
  add.operands = {{DType::F32, {4}}, {DType::F32, {4}}};
  add.results = {{DType::F32, {4}}};
  OpAttr axes;
  axes.name = "axes";
  axes.kind = OpAttr::Kind::Ints;
  axes.ints = {0, -3};
  add.attrs.push_back(axes);
  a.ops = {add, add};
  OpDesc c;
  c.name = "kiln.constant";
  c.results = {{DType::QFloat(QuantScheme::q8Block(32)), {4}}};
  OpAttr value;
  value.name = "value";
  value.kind = OpAttr::Kind::Bytes;
  value.text = std::string("\x01\x02\x00\xff", 4);
  c.attrs.push_back(value);
  a.constants = {c};
  a.summary = "[elementwise(add)]";
  a.payload = std::string("\0payload", 8);
  return a;
}

TEST(ArtifactTest, ReadsBackFromItsBytes) {
  Artifact a = sampleArtifact();
  std::optional<Artifact> b = deserialize(serialize(a));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->backend, "cpu");
  EXPECT_EQ(b->plan.numSlots, a.plan.numSlots);
  EXPECT_EQ(b->plan.steps[1].dying, a.plan.steps[1].dying);
  EXPECT_EQ(b->plan.constants, a.plan.constants);
  EXPECT_EQ(b->plan.resultSlots, a.plan.resultSlots);
  ASSERT_EQ(b->ops.size(), 2u);
  EXPECT_EQ(b->ops[0].name, "kiln.add");
  EXPECT_EQ(arrayAttr(b->ops[0], "axes"), (std::vector<int64_t>{0, -3}));
  EXPECT_EQ(operandShape(b->ops[1], 1), std::vector<int64_t>{4});
  EXPECT_EQ(resultDType(b->constants[0]),
            DType::QFloat(QuantScheme::q8Block(32)));
  EXPECT_EQ(b->constants[0].attr("value")->text, a.constants[0].attrs[0].text);
  EXPECT_EQ(b->summary, a.summary);
  EXPECT_EQ(b->payload, a.payload);
}

// Every prefix of an artifact's bytes, and every single damaged byte of
// its structure, is refused or read without reading past the bytes (ASan
// runs this too); no damaged plan names a slot it does not have.
TEST(ArtifactTest, CutOrDamagedBytesAreRefused) {
  std::string bytes = serialize(sampleArtifact());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(deserialize(bytes.substr(0, n)).has_value()) << n;
  EXPECT_FALSE(deserialize(bytes + "x").has_value());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    std::optional<Artifact> a = deserialize(damaged);
    if (!a)
      continue;
    for (const PlanStep &s : a->plan.steps)
      for (const std::vector<int> *slots : {&s.operands, &s.results, &s.dying})
        for (int slot : *slots)
          EXPECT_LT(slot, a->plan.numSlots) << "byte " << i;
  }
}

TEST(ArtifactTest, ProgramsReadBackAndRefuseDamage) {
  cpu::CpuProgram cp;
  cpu::CpuKernel k;
  k.name = "main_kernel0_elementwise";
  k.phases = {{"main_kernel0_elementwise__p0", 4, 1, {2, 1}}};
  k.inPlaceInput = cpu::kAnyInputInPlace;
  k.outTypes = {DType::F32};
  k.inShapes = {{rules::kDynamic, 8}};
  k.outShapes = {{rules::kDynamic, 8}};
  k.sizeInput = 0;
  k.sizeDim = 0;
  cp.kernels = {k};
  cp.dynamicArgs = {{0, 0}};
  cp.objects = {"ELF"};
  std::string bytes = cpu::encode(cp);
  std::optional<cpu::CpuProgram> back = cpu::decodeCpuProgram(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kernels[0].phases[0].unitsFor(5), 10);
  EXPECT_EQ(back->kernels[0].inPlaceInput, cpu::kAnyInputInPlace);
  EXPECT_EQ(back->dynamicArgs, cp.dynamicArgs);
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(cpu::decodeCpuProgram(bytes.substr(0, n)).has_value()) << n;

  cuda::CudaProgram gp;
  cuda::KernelSpec g;
  g.name = "k";
  g.launches = {{"m", "f", {2, 1, 1}, {128, 1, 1}, {0, 1}}};
  g.outTypes = {DType::F16};
  g.outShapes = {{3}};
  gp.kernels = {g};
  gp.ptx = {{"m", ".version 8.0"}};
  std::string gbytes = cuda::encode(gp);
  std::optional<cuda::CudaProgram> gback = cuda::decodeCudaProgram(gbytes);
  ASSERT_TRUE(gback.has_value());
  EXPECT_EQ(gback->kernels[0].launches[0].block[0], 128u);
  EXPECT_EQ(gback->ptx, gp.ptx);
  for (size_t n = 0; n < gbytes.size(); ++n)
    EXPECT_FALSE(cuda::decodeCudaProgram(gbytes.substr(0, n)).has_value()) << n;
}

} // namespace
