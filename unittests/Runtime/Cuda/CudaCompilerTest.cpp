//===- CudaCompilerTest.cpp - The CUDA backend's compiler, without a GPU --===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Everything the Cuda target does, without a GPU: fusion, the plan, the
// launches read from the outlined kernels, the PTX, and the artifact's
// bytes. With a CUDA toolkit present, ptxas assembles every module.
//
// The lit tests of test/Conversion/GPU go through tensor-opt, which neither
// builds a plan nor reads launches; every function in them is compiled here
// as @main as well, so that each op they cover also goes through the path
// the runtime takes.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Engine/Compile.h"
#include "kiln/Runtime/CudaBackend.h"
#include "kiln/Runtime/CudaProgram.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Target/CudaTarget.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <unistd.h>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cuda;

namespace {

const char *const kPtxas = "/usr/local/cuda/bin/ptxas";

struct Case {
  const char *name;
  const char *ir;
  size_t kernels;
  std::vector<const char *> ptxHas; ///< in some module's PTX
};

const Case kCases[] = {
    {"elementwise",
     R"(func.func @main(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
       %0 = kiln.add %x, %b : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
       %1 = kiln.tanh %0 : tensor<64x256xf32>
       return %1 : tensor<64x256xf32>
     })",
     1,
     {"ld.global.v4", "st.global.v4"}},
    {"softmax",
     R"(func.func @main(%x: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
       %0 = kiln.softmax %x axis = 1 : tensor<37x1000xf32>
       return %0 : tensor<37x1000xf32>
     })",
     1,
     {"shfl.sync.bfly", "bar.sync", ".shared"}},
    {"full_sum",
     R"(func.func @main(%x: tensor<1048576xf32>) -> tensor<f32> {
       %0 = kiln.sum %x [0] : tensor<1048576xf32> -> tensor<f32>
       return %0 : tensor<f32>
     })",
     1,
     {"shfl.sync.bfly"}},
    {"matmul_bias_gelu",
     R"(func.func @main(%a: tensor<3x65x37xf32>, %b: tensor<37x129xf32>, %c: tensor<129xf32>) -> tensor<3x65x129xf32> {
       %0 = kiln.matmul %a, %b : (tensor<3x65x37xf32>, tensor<37x129xf32>) -> tensor<3x65x129xf32>
       %1 = kiln.add %0, %c : (tensor<3x65x129xf32>, tensor<129xf32>) -> tensor<3x65x129xf32>
       %2 = kiln.gelu %1 approximate = tanh : tensor<3x65x129xf32>
       return %2 : tensor<3x65x129xf32>
     })",
     1,
     {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"}},
    {"layout_and_gather",
     R"(func.func @main(%x: tensor<6x8xf32>, %i: tensor<3x4xi64>) -> (tensor<3x4xf32>, tensor<2x6xf32>) {
       %t = kiln.permute %x [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
       %s = kiln.slice %t [0, 0] [8, 6] [4, 1] : tensor<8x6xf32> -> tensor<2x6xf32>
       %g = kiln.gather %x[%i] axis = 1 : (tensor<6x8xf32>, tensor<3x4xi64>) -> tensor<3x4xf32>
       return %g, %s : tensor<3x4xf32>, tensor<2x6xf32>
     })",
     3,
     {}},
    {"reshape_view",
     R"(func.func @main(%x: tensor<4x6xf32>) -> tensor<24xf32> {
       %0 = kiln.exp %x : tensor<4x6xf32>
       %1 = kiln.reshape %0 [24] : tensor<4x6xf32> -> tensor<24xf32>
       return %1 : tensor<24xf32>
     })",
     1,
     {}},
    // Reductions of every kind in one graph: rows, columns, a full
    // reduction split over two launches, and arg/bool reductions. The
    // mean's division is a kernel of its own: a reduction without keepdim
    // takes no consumers.
    {"reductions",
     R"(func.func @main(%x: tensor<64x512xf32>, %y: tensor<512x64xf16>, %b: tensor<64x512xi1>, %z: tensor<262144xf64>) -> (tensor<64xf32>, tensor<64xf16>, tensor<64xi64>, tensor<64xi1>, tensor<f64>) {
       %0 = kiln.mean %x [1] : tensor<64x512xf32> -> tensor<64xf32>
       %1 = kiln.reduce_max %y [0] : tensor<512x64xf16> -> tensor<64xf16>
       %2 = kiln.argmin %x axis = 1 : tensor<64x512xf32> -> tensor<64xi64>
       %3 = kiln.any %b [1] : tensor<64x512xi1> -> tensor<64xi1>
       %4 = kiln.prod %z [0] : tensor<262144xf64> -> tensor<f64>
       return %0, %1, %2, %3, %4 : tensor<64xf32>, tensor<64xf16>, tensor<64xi64>, tensor<64xi1>, tensor<f64>
     })",
     6,
     {"shfl.sync.bfly", "bar.sync"}},
    // Per-tensor quantization: one scale for the whole tensor, computed by
    // a serial launch between the parallel ones. Each quantize is a generic
    // kernel of its own, and so is the dequantize that reads one.
    {"quantize_per_tensor",
     R"(func.func @main(%x: tensor<4x65xf32>) -> (tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, tensor<4x65xbf16>) {
       %q = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
       %p = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
       %d = kiln.dequantize %p : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>> -> tensor<4x65xbf16>
       return %q, %d : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, tensor<4x65xbf16>
     })",
     3,
     {"cvt.rni.f64.f64"}},
};

/// What the target made of a graph: the artifact, and its Cuda part.
struct Program {
  Artifact artifact;
  CudaProgram cuda;
};

class CudaCompiler : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // A directory of our own for the PTX that ptxas reads.
    char dir[] = "/tmp/kiln-cuda-compiler-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    setenv("KILN_CACHE_DIR", dir, 1);
  }

  /// The graph pipeline the engine runs for Cuda, then the target.
  Program compile(mlir::ModuleOp module, const std::string &,
                  const std::string &chip) {
    mlir::PassManager pm(module.getContext());
    mlir::kiln::GraphPipelineOptions options =
        targetInfo(DeviceKind::Cuda).graph;
    options.strategy = "";
    mlir::kiln::buildKilnGraphPipeline(pm, options);
    EXPECT_TRUE(mlir::succeeded(pm.run(module)));
    Program p;
    p.artifact = createCudaTarget(chip, true)->build(module).artifact;
    std::optional<CudaProgram> cuda = decodeCudaProgram(p.artifact.payload);
    EXPECT_TRUE(cuda.has_value());
    if (cuda)
      p.cuda = std::move(*cuda);
    return p;
  }

  Program compile(const Case &c, const std::string &chip) {
    auto ctx = createContext();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(c.ir, ctx.get());
    EXPECT_TRUE(module) << c.name;
    return compile(*module, std::string("test|") + c.name, chip);
  }

  /// What holds for every program: PTX for `chip` without libdevice, one
  /// module per launch, and launches whose arguments are buffers of their
  /// step (the runtime passes nothing else). `argTypes` are @main's.
  void checkProgram(const Program &p, const std::string &chip,
                    const std::vector<DType> &argTypes) {
    std::set<std::string> modules;
    for (auto &[name, text] : p.cuda.ptx) {
      modules.insert(name);
      EXPECT_NE(text.find(".target " + chip), std::string::npos) << name;
      EXPECT_EQ(text.find(".extern .func"), std::string::npos)
          << name << " calls a function the driver cannot resolve";
    }
    // Slot dtypes: quantized buffers take two ABI slots (values, scales).
    const Plan &plan = p.artifact.plan;
    std::vector<DType> slotType(plan.numSlots);
    std::copy(argTypes.begin(), argTypes.end(), slotType.begin());
    for (const auto &[slot, index] : plan.constants)
      slotType[slot] = p.artifact.constants[index].results[0].dtype;
    for (const PlanStep &step : plan.steps) {
      if (step.kind == kHostOpStep) {
        slotType[step.results[0]] = slotType[step.operands[0]];
        continue;
      }
      ASSERT_EQ(step.kind, kCudaKernelStep);
      const KernelSpec &k = p.cuda.kernels[step.index];
      ASSERT_EQ(k.outTypes.size(), step.results.size()) << k.name;
      int buffers = k.workspaceBytes > 0 ? 1 : 0;
      for (int slot : step.operands)
        buffers += slotType[slot].isQuantized() ? 2 : 1;
      for (size_t i = 0; i < step.results.size(); ++i) {
        slotType[step.results[i]] = k.outTypes[i];
        buffers += k.outTypes[i].isQuantized() ? 2 : 1;
      }
      EXPECT_FALSE(k.launches.empty()) << k.name;
      for (const LaunchSpec &l : k.launches) {
        EXPECT_TRUE(modules.count(l.module)) << l.module;
        EXPECT_FALSE(l.args.empty()) << l.function;
        for (int a : l.args) {
          EXPECT_GE(a, 0) << l.function;
          EXPECT_LT(a, buffers) << l.function;
        }
        for (unsigned d : l.block)
          EXPECT_GE(d, 1u);
        for (unsigned d : l.grid)
          EXPECT_GE(d, 1u);
        EXPECT_LE(l.block[0] * l.block[1] * l.block[2], 1024u);
      }
    }
    for (int slot : plan.resultSlots)
      EXPECT_LT(slot, plan.numSlots);
  }

  /// Runs ptxas on every module (skipped without a CUDA toolkit).
  void assemble(const Program &p, const std::string &chip,
                const std::string &tag) {
    if (access(kPtxas, X_OK) != 0)
      return;
    for (auto &[name, text] : p.cuda.ptx) {
      std::string path = std::string(getenv("KILN_CACHE_DIR")) + "/" + tag +
                         "-" + name + "-" + chip + ".ptx";
      std::ofstream(path) << text;
      std::string cmd =
          std::string(kPtxas) + " -arch=" + chip + " " + path + " -o /dev/null";
      EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
  }

  static std::vector<DType> argTypesOf(mlir::func::FuncOp fn) {
    std::vector<DType> types;
    for (mlir::Type t : fn.getArgumentTypes())
      types.push_back(mlir::kiln::dtypeOf(t));
    return types;
  }
};

TEST_F(CudaCompiler, ChipsOfComputeCapabilities) {
  EXPECT_EQ(chipFor(9, 0), "sm_90");
  EXPECT_EQ(chipFor(8, 0), "sm_80");
  EXPECT_EQ(chipFor(8, 6), "sm_86");
  EXPECT_EQ(chipFor(8, 9), "sm_89");
  EXPECT_EQ(chipFor(7, 5), "sm_75");
  // Newer GPUs run the newest PTX target Kiln knows.
  EXPECT_EQ(chipFor(10, 0), "sm_90");
  EXPECT_EQ(chipFor(12, 0), "sm_90");
  EXPECT_EQ(chipFor(3, 5), "");
}

TEST_F(CudaCompiler, EveryCaseGivesPlanLaunchesAndPTX) {
  for (const Case &c : kCases)
    for (std::string chip : {"sm_80", "sm_90"}) {
      SCOPED_TRACE(std::string(c.name) + " " + chip);
      auto ctx = createContext();
      mlir::OwningOpRef<mlir::ModuleOp> module =
          mlir::parseSourceString<mlir::ModuleOp>(c.ir, ctx.get());
      ASSERT_TRUE(module);
      std::vector<DType> args =
          argTypesOf(module->lookupSymbol<mlir::func::FuncOp>("main"));
      Program p = compile(*module, std::string("test|") + c.name, chip);
      ASSERT_EQ(p.cuda.kernels.size(), c.kernels);
      checkProgram(p, chip, args);
      for (const char *needle : c.ptxHas) {
        bool found = false;
        for (auto &[name, text] : p.cuda.ptx)
          found |= text.find(needle) != std::string::npos;
        EXPECT_TRUE(found) << needle;
      }
      assemble(p, chip, c.name);
    }
}

// Kiln compiles in per-thread contexts, and a new context may be given the
// address of a destroyed one. The second context here is built in the very
// storage of the first: it must still be given the GPU dialects' conversion
// interfaces, or softmax's loops lower with unconverted branches.
TEST_F(CudaCompiler, AContextAtTheAddressOfADestroyedOneStillLowers) {
  const Case &c = kCases[1];
  ASSERT_STREQ(c.name, "softmax");
  auto proto = createContext();
  alignas(mlir::MLIRContext) unsigned char storage[sizeof(mlir::MLIRContext)];
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("context " + std::to_string(round));
    auto *ctx = new (storage) mlir::MLIRContext(
        proto->getDialectRegistry(), mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    {
      mlir::OwningOpRef<mlir::ModuleOp> module =
          mlir::parseSourceString<mlir::ModuleOp>(c.ir, ctx);
      ASSERT_TRUE(module);
      std::string key = "test|reused-context|" + std::to_string(round);
      try {
        Program p = compile(*module, key, "sm_80");
        EXPECT_EQ(p.cuda.kernels.size(), c.kernels);
        EXPECT_FALSE(p.cuda.ptx.empty());
      } catch (const Error &e) {
        ADD_FAILURE() << e.what();
      }
    }
    ctx->~MLIRContext();
  }
}

TEST_F(CudaCompiler, EveryGraphOfTheGPULitTests) {
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(KILN_GPU_LIT_DIR, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  ASSERT_FALSE(ec) << ec.message();
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 9u) << "the lit tests are not in " KILN_GPU_LIT_DIR;
  size_t graphs = 0;
  for (const std::string &file : files) {
    auto ctx = createContext();
    mlir::OwningOpRef<mlir::ModuleOp> source =
        mlir::parseSourceFile<mlir::ModuleOp>(file, ctx.get());
    ASSERT_TRUE(source) << file;
    for (auto fn : source->getOps<mlir::func::FuncOp>()) {
      // A function that is a kernel already is not a graph.
      if (mlir::kiln::kernelKindOf(fn))
        continue;
      std::string name =
          llvm::sys::path::stem(file).str() + "@" + fn.getName().str();
      SCOPED_TRACE(name);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          mlir::ModuleOp::create(source->getLoc());
      auto main = llvm::cast<mlir::func::FuncOp>(fn->clone());
      main.setName("main");
      module->push_back(main);
      std::vector<DType> args = argTypesOf(main);
      // Chips differ in the matmul (mma.sync from sm_80 on); sm_80 PTX is
      // what sm_90 GPUs would run too, so one chip suffices here.
      Program p;
      try {
        p = compile(*module, "test|lit|" + name, "sm_80");
      } catch (const Error &e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      EXPECT_FALSE(p.cuda.ptx.empty()) << "no kernel";
      checkProgram(p, "sm_80", args);
      assemble(p, "sm_80", name);
      ++graphs;
    }
  }
  EXPECT_GE(graphs, 90u);
}

TEST_F(CudaCompiler, ThePlanReshapesWithoutAKernel) {
  Program p = compile(kCases[5], "sm_90");
  const std::vector<PlanStep> &steps = p.artifact.plan.steps;
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, kCudaKernelStep);
  ASSERT_EQ(steps[1].kind, kHostOpStep);
  const OpDesc &reshape = p.artifact.ops[steps[1].index];
  EXPECT_EQ(reshape.name, "kiln.reshape");
  EXPECT_EQ(resultShape(reshape), std::vector<int64_t>{24});
}

// An all-reduce is split into a start and a wait with the sum between
// them, which does not read it: the plan starts the reduction (on NCCL's
// stream), runs the kernel meanwhile, and waits before the kernel that
// reads the result. No kernel takes the collective in.
TEST_F(CudaCompiler, AnAllReduceStartsBeforeAndWaitsAfterAnIndependentKernel) {
  Case c{"all_reduce",
         R"(func.func @main(%g: tensor<4096xf32>, %w: tensor<1024x256xf32>) -> tensor<4096xf32> {
           %r = kiln.all_reduce mean %g : tensor<4096xf32>
           %s = kiln.sum %w [0, 1] : tensor<1024x256xf32> -> tensor<f32>
           %u = kiln.mul %r, %s : (tensor<4096xf32>, tensor<f32>) -> tensor<4096xf32>
           return %u : tensor<4096xf32>
         })",
         2,
         {}};
  Program p = compile(c, "sm_90");
  checkProgram(p, "sm_90", {DType(DTypeKind::F32), DType(DTypeKind::F32)});
  const std::vector<PlanStep> &steps = p.artifact.plan.steps;
  int start = -1, wait = -1;
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep &s = steps[i];
    if (s.kind != kHostOpStep)
      continue;
    const OpDesc &op = p.artifact.ops[s.index];
    if (op.name == "kiln.all_reduce_start") {
      EXPECT_EQ(start, -1);
      start = static_cast<int>(i);
      EXPECT_EQ(reduceOpOf(op), distributed::ReduceOp::Mean);
    } else if (op.name == "kiln.all_reduce_wait") {
      EXPECT_EQ(wait, -1);
      wait = static_cast<int>(i);
    }
    EXPECT_NE(op.name, "kiln.all_reduce");
  }
  ASSERT_GE(start, 0);
  ASSERT_GT(wait, start + 1);
  ASSERT_EQ(steps[wait].operands.size(), 1u);
  EXPECT_EQ(steps[wait].operands[0], steps[start].results[0]);
  for (int i = start + 1; i < wait; ++i)
    EXPECT_EQ(steps[i].kind, kCudaKernelStep) << "step " << i;
  // The product reads the wait's result, after it.
  bool read = false;
  for (size_t i = wait + 1; i < steps.size(); ++i)
    read |= llvm::is_contained(steps[i].operands, steps[wait].results[0]);
  EXPECT_TRUE(read);
  EXPECT_EQ(p.cuda.kernels.size(), c.kernels);
}

TEST_F(CudaCompiler, TheLongReductionSplitsOverTwoLaunches) {
  Program p = compile(kCases[2], "sm_90");
  ASSERT_EQ(p.cuda.kernels.size(), 1u);
  EXPECT_EQ(p.cuda.kernels[0].launches.size(), 2u);
  EXPECT_GT(p.cuda.kernels[0].workspaceBytes, 0);
}

// What the engine stores on disk: the artifact's bytes read back to the
// same plan, ops and PTX; code for another chip is another entry.
TEST_F(CudaCompiler, TheArtifactReadsBackFromItsBytes) {
  Program first = compile(kCases[1], "sm_80");
  std::optional<Artifact> back = deserialize(serialize(first.artifact));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->backend, "cuda");
  EXPECT_EQ(back->payload, first.artifact.payload);
  EXPECT_EQ(back->plan.steps.size(), first.artifact.plan.steps.size());
  EXPECT_EQ(back->plan.resultSlots, first.artifact.plan.resultSlots);
  std::optional<CudaProgram> cuda = decodeCudaProgram(back->payload);
  ASSERT_TRUE(cuda.has_value());
  EXPECT_EQ(cuda->ptx, first.cuda.ptx);
  EXPECT_EQ(cuda->kernels[0].launches.size(),
            first.cuda.kernels[0].launches.size());
  EXPECT_NE(createCudaTarget("sm_80", true)->diskKey(),
            createCudaTarget("sm_90", true)->diskKey());
  EXPECT_NE(createCudaTarget("sm_80", true)->diskKey(),
            createCudaTarget("sm_80", false)->diskKey());
}

} // namespace
