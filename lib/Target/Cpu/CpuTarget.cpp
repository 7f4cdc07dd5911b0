//===- CpuTarget.cpp - Graphs for the Cpu JIT -----------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The Cpu target takes the kernels --kiln-fuse formed through
// --kiln-generate-kernels (phase functions over flat buffers), reads the
// plan off the graph function (kernel calls, and views and collectives as
// host steps), and compiles the phases to object files for the processor
// KILN_CPU_ISA chose (CpuCodegen). The artifact carries the plan, each
// kernel's phases and buffers (kiln/Runtime/CpuProgram.h) and the objects,
// which the Cpu backend links with its JIT.
//
//===----------------------------------------------------------------------===//

#include "CpuCodegen.h"
#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/Error.h"
#include "kiln/Target/Target.h"
#include "kiln/Target/TargetUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"

#include <chrono>
#include <cstdio>
#include <mutex>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cpu;

/// Bump when generated code changes, so that stale disk caches miss.
static const char *const kCodegenVersion = "kiln-codegen-59";

namespace {

/// The passes that the generic-kernel pipeline names.
void registerPipelinePasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::kiln::registerKilnConversionPasses();
    mlir::bufferization::registerBufferizationPasses();
    mlir::bufferization::registerBufferizationPipelines();
    mlir::registerLinalgPasses();
    mlir::registerTransformsPasses();
  });
}

/// Whether large outputs are written with non-temporal stores.
bool streamStores() {
  return env::streamStores().value_or(mlir::kiln::streamStoresOnHost());
}

std::vector<std::vector<int64_t>> shapesOf(mlir::ValueRange values,
                                           int *sizeInput = nullptr,
                                           int *sizeDim = nullptr) {
  std::vector<std::vector<int64_t>> shapes;
  for (mlir::Value v : values) {
    auto t = llvm::cast<mlir::RankedTensorType>(v.getType());
    for (int64_t d = 0; sizeInput && d < t.getRank() && *sizeInput < 0; ++d)
      if (t.isDynamicDim(d)) {
        *sizeInput = static_cast<int>(shapes.size());
        *sizeDim = static_cast<int>(d);
      }
    shapes.emplace_back(t.getShape().begin(), t.getShape().end());
  }
  return shapes;
}

/// The kernel that `call` runs, less its phases.
CpuKernel kernelOf(mlir::func::CallOp call, mlir::func::FuncOp callee) {
  CpuKernel k;
  k.name = callee.getName().str();
  for (mlir::Value r : call.getResults())
    k.outTypes.push_back(mlir::kiln::dtypeOf(r.getType()));
  k.outShapes = shapesOf(call.getResults());
  k.inShapes = shapesOf(call.getOperands(), &k.sizeInput, &k.sizeDim);
  k.label = kernelSummary(callee);
  if (!k.outShapes.empty()) {
    std::string dims;
    for (int64_t d : k.outShapes[0])
      dims += (dims.empty() ? "" : "x") + (mlir::ShapedType::isDynamic(d)
                                               ? std::string("?")
                                               : std::to_string(d));
    k.label += " -> " + (dims.empty() ? std::string("scalar") : dims);
  }
  if (mlir::kiln::kernelKindOf(callee) == mlir::kiln::KernelKind::Elementwise)
    k.inPlaceInput = kAnyInputInPlace;
  return k;
}

/// Reads phase `fn` of `k` off its attributes.
CpuPhase phaseOf(mlir::func::FuncOp fn, CpuKernel &k) {
  CpuPhase p;
  p.name = fn.getName().str();
  p.units =
      fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kUnitsAttr).getInt();
  p.grain =
      fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kGrainAttr).getInt();
  if (auto ws =
          fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kWorkspaceAttr))
    k.workspaceBytes = std::max<int64_t>(k.workspaceBytes, ws.getInt());
  if (auto in = fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kInPlaceAttr))
    k.inPlaceInput = static_cast<int>(in.getInt());
  if (fn->hasAttr(mlir::kiln::kSizesAttr))
    k.needsSizes = true;
  if (auto scale =
          fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kSizeScaleAttr))
    k.sizeScale = scale.getInt();
  if (auto per = fn->getAttrOfType<mlir::DenseI64ArrayAttr>(
          mlir::kiln::kWorkspacePerAttr);
      per && per.size() == 3 && per[1] > 0)
    for (int i = 0; i < 3; ++i)
      k.workspacePer[i] = std::max<int64_t>(k.workspacePer[i], per[i]);
  if (auto per =
          fn->getAttrOfType<mlir::DenseI64ArrayAttr>(mlir::kiln::kUnitsPerAttr);
      per && per.size() == 2 && per[1] > 0) {
    p.unitsPer[0] = per[0];
    p.unitsPer[1] = per[1];
  }
  return p;
}

/// Reads every kernel's phases from the generated functions. Calls merged
/// by --kiln-dedupe-kernels name the same kernel: its phases are read once.
void readPhases(mlir::ModuleOp module, CpuProgram &p) {
  llvm::StringMap<const CpuKernel *> read;
  for (CpuKernel &k : p.kernels) {
    auto [it, first] = read.try_emplace(k.name, &k);
    if (!first) {
      const CpuKernel &same = *it->second;
      k.phases = same.phases;
      k.needsSizes = same.needsSizes;
      k.sizeScale = same.sizeScale;
      k.workspaceBytes = same.workspaceBytes;
      std::copy(std::begin(same.workspacePer), std::end(same.workspacePer),
                k.workspacePer);
      k.inPlaceInput = same.inPlaceInput;
      continue;
    }
    for (int phase = 0;; ++phase) {
      auto fn = module.lookupSymbol<mlir::func::FuncOp>(k.name + "__p" +
                                                        std::to_string(phase));
      if (!fn)
        break;
      k.phases.push_back(phaseOf(fn, k));
    }
    if (k.phases.empty())
      throw Error("cpu: no code was generated for kernel " + k.name);
  }
}

/// The plan of the kernel-generated `module` into `a`, and the kernels
/// into `p`: kernel calls are kernel steps, views and collectives host
/// steps.
void readPlan(mlir::ModuleOp module, Artifact &a, CpuProgram &p) {
  auto main = module.lookupSymbol<mlir::func::FuncOp>("main");
  if (!main)
    throw Error("cpu: the module has no function @main");
  for (mlir::BlockArgument arg : main.getArguments()) {
    auto t = llvm::cast<mlir::RankedTensorType>(arg.getType());
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.isDynamicDim(d))
        p.dynamicArgs.push_back(
            {static_cast<int>(arg.getArgNumber()), static_cast<int>(d)});
  }
  std::string summary;
  planMain(
      main, a, [&](mlir::Operation &op) -> std::optional<std::pair<int, int>> {
        // Sizes that fusion moved into the kernels leave unused reads.
        if (llvm::isa<mlir::tensor::DimOp, mlir::arith::ConstantOp>(op) &&
            llvm::all_of(op.getUsers(), [](mlir::Operation *u) {
              return llvm::isa<mlir::tensor::DimOp>(u) && u->use_empty();
            }))
          return std::nullopt;
        auto call = llvm::dyn_cast<mlir::func::CallOp>(op);
        if (!call)
          return hostStep(a, op);
        auto callee = module.lookupSymbol<mlir::func::FuncOp>(call.getCallee());
        p.kernels.push_back(kernelOf(call, callee));
        summary += (summary.empty() ? "" : ", ") +
                   p.kernels.back().label.substr(
                       0, p.kernels.back().label.rfind(" -> "));
        return std::pair<int, int>{kCpuKernelStep,
                                   static_cast<int>(p.kernels.size()) - 1};
      });
  readPhases(module, p);
  // Kernels merged by --kiln-dedupe-kernels share one name.
  llvm::StringSet<> distinct;
  for (const CpuKernel &k : p.kernels)
    distinct.insert(k.name);
  a.summary = (distinct.size() < p.kernels.size()
                   ? "(" + std::to_string(distinct.size()) + " distinct) "
                   : "") +
              "[" + summary + "]";
}

class CpuTarget : public Target {
public:
  std::string diskKey() const override {
    return std::string(kCodegenVersion) + "|llvm" + LLVM_VERSION_STRING + "|" +
           cpuMachine().key() + (streamStores() ? "|stream" : "|plain");
  }

  BuildResult build(mlir::ModuleOp module) override {
    auto start = std::chrono::steady_clock::now();
    registerPipelinePasses();
    mlir::MLIRContext *ctx = module.getContext();
    std::string diags;
    mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
      llvm::raw_string_ostream os(diags);
      os << d << "\n";
      return mlir::success();
    });
    {
      mlir::PassManager pm(ctx);
      mlir::kiln::CPUPipelineOptions options;
      options.streamStores = streamStores() ? 1 : 0;
      options.vectorBits = cpuMachine().vectorBits;
      // A dynamic form the tiled matmul does not take fails, and the
      // engine compiles the graph for its static sizes instead.
      options.genericDynamicMatmuls = false;
      mlir::kiln::buildKilnCPUPipeline(pm, options);
      if (mlir::failed(pm.run(module)))
        throw Error("cpu: kernel generation failed:\n" + diags);
    }
    if (env::logEnabled("kernels")) {
      std::string text;
      llvm::raw_string_ostream os(text);
      module.print(os);
      std::fprintf(stderr, "%s\n", text.c_str());
    }
    BuildResult r;
    r.artifact.backend = "cpu";
    CpuProgram program;
    readPlan(module, r.artifact, program);
    double mlirMs = msSince(start), llvmMs = 0;
    program.objects = compileToObjects(module, mlirMs, llvmMs);
    r.artifact.payload = encode(program);
    char phases[96];
    std::snprintf(phases, sizeof phases, "%.2f ms MLIR, %.2f ms LLVM", mlirMs,
                  llvmMs);
    r.phases = phases;
    // KILN_DUMP_OBJECTS=<dir> keeps every compiled object for objdump.
    if (std::string dir = env::dumpObjectsDir(); !dir.empty())
      dumpObjects(dir, program.objects, r.artifact.summary);
    return r;
  }

private:
  static void dumpObjects(const std::string &dir,
                          const std::vector<std::string> &objects,
                          const std::string &summary) {
    std::string tag = std::to_string(std::hash<std::string>()(
        summary + std::to_string(objects.empty() ? 0 : objects[0].size())));
    for (size_t i = 0; i < objects.size(); ++i) {
      std::string path =
          dir + "/kernels-" + tag + (i ? "-" + std::to_string(i) : "") + ".o";
      if (FILE *f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(objects[i].data(), 1, objects[i].size(), f);
        std::fclose(f);
      }
    }
  }
};

} // namespace

namespace kiln::detail {
void registerCpuTarget() {
  TargetInfo info;
  info.kind = DeviceKind::Cpu;
  info.name = "cpu";
  // A Cpu matmul reads the transposes it packs, and evaluates the
  // elementwise producers only its left operand reads while packing; it
  // holds a workspace for the packed operand. It packs a convolution's
  // columns from the input, so convolutions become products with them.
  info.graph.fuse = true;
  info.graph.convAsMatmul = true;
  // Its reduction kernels take one block of axes.
  info.graph.splitReductions = true;
  info.graph.fusion.transposedOperands = true;
  info.graph.fusion.matmulPrologues = true;
  info.graph.matmulWorkspace = true;
  info.dynamicDims = true;
  info.create = [](int) { return std::make_unique<CpuTarget>(); };
  registerTarget(std::move(info));
}
} // namespace kiln::detail
