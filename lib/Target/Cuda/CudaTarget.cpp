//===- CudaTarget.cpp - Graphs for NVIDIA GPUs ----------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The Cuda target outlines the layout ops that move data as kernels
// (--kiln-outline-layout-ops), reads the plan off the graph function
// (kernel launches; reshapes and collectives as host steps), generates the
// kernels' launches (--kiln-generate-gpu-kernels), reads every launch's
// kernel, grid and arguments from the outlined IR, and lowers the kernels
// to PTX for the device's chip. It touches no GPU, so it is tested without
// one; the artifact's PTX is what the Cuda backend loads.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/CudaTarget.h"
#include "kiln/Conversion/GPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/CudaBackend.h"
#include "kiln/Runtime/CudaProgram.h"
#include "kiln/Support/Error.h"
#include "kiln/Target/TargetUtils.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"

#include <chrono>
#include <mutex>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cuda;

/// Bump when generated code changes, so that stale disk caches miss.
static const char *const kCodegenVersion = "kiln-gpu-codegen-8";

namespace {

/// The GPU pipeline needs the gpu, nvgpu, NVVM and LLVM dialects, their
/// conversion interfaces and translations to LLVM IR. The per-thread
/// contexts Kiln compiles in know only what the CPU needs, so each compile
/// for a GPU appends them (a registry the context already holds adds
/// nothing). A context is not remembered by its address: a new context can
/// be given the address of a destroyed one, and would then go without the
/// conversion interfaces (cf.br left unconverted, "type mismatch for bb
/// argument").
void prepareContext(mlir::MLIRContext *ctx) {
  static mlir::DialectRegistry registry;
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::registerAllToLLVMIRTranslations(registry);
  });
  ctx->appendDialectRegistry(registry);
}

/// The passes that textual pipelines inside the generator name.
void registerPipelinePasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::kiln::registerKilnConversionPasses();
    mlir::bufferization::registerBufferizationPasses();
    mlir::bufferization::registerBufferizationPipelines();
    mlir::registerLinalgPasses();
    mlir::registerSCFPasses();
    mlir::registerTransformsPasses();
  });
}

/// The plan of @main into `a`, and its kernels into `p`: kernel calls are
/// launches, reshapes and collectives host steps.
void readPlan(mlir::func::FuncOp main, Artifact &a, CudaProgram &p) {
  auto module = main->getParentOfType<mlir::ModuleOp>();
  std::string summary;
  planMain(
      main, a, [&](mlir::Operation &op) -> std::optional<std::pair<int, int>> {
        if (auto call = llvm::dyn_cast<mlir::func::CallOp>(op)) {
          auto callee =
              module.lookupSymbol<mlir::func::FuncOp>(call.getCallee());
          KernelSpec k;
          k.name = callee.getName().str();
          for (mlir::Value r : call.getResults()) {
            k.outTypes.push_back(mlir::kiln::dtypeOf(r.getType()));
            auto t = llvm::cast<mlir::RankedTensorType>(r.getType());
            k.outShapes.emplace_back(t.getShape().begin(), t.getShape().end());
          }
          summary += (summary.empty() ? "" : ", ") + kernelSummary(callee);
          p.kernels.push_back(std::move(k));
          return std::pair<int, int>{kCudaKernelStep,
                                     static_cast<int>(p.kernels.size()) - 1};
        }
        if (llvm::isa<mlir::kiln::ReshapeOp, mlir::kiln::SqueezeOp,
                      mlir::kiln::UnsqueezeOp>(op) ||
            mlir::kiln::isCollectiveOp(&op))
          return hostStep(a, op);
        throw Error("cuda: no runtime step for " +
                    op.getName().getStringRef().str());
      });
  a.summary = "[" + summary + "]";
}

unsigned constantDim(mlir::Value v) {
  std::optional<int64_t> c = mlir::getConstantIntValue(v);
  if (!c || *c <= 0 || *c > 0x7fffffff)
    throw Error("cuda: a launch size is not a positive constant");
  return static_cast<unsigned>(*c);
}

/// Reads each kernel's launches from its outlined host function.
void readLaunches(mlir::ModuleOp module, CudaProgram &p) {
  for (KernelSpec &k : p.kernels) {
    auto host = module.lookupSymbol<mlir::func::FuncOp>(k.name + "__gpu");
    if (!host)
      throw Error("cuda: no code was generated for kernel " + k.name);
    if (auto ws =
            host->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kWorkspaceAttr))
      k.workspaceBytes = ws.getInt();
    mlir::Block *entry = &host.getBody().front();
    host.walk([&](mlir::gpu::LaunchFuncOp l) {
      LaunchSpec s;
      s.module = l.getKernelModuleName().str();
      s.function = l.getKernelName().str();
      mlir::gpu::KernelDim3 g = l.getGridSizeOperandValues(),
                            t = l.getBlockSizeOperandValues();
      s.grid = {constantDim(g.x), constantDim(g.y), constantDim(g.z)};
      s.block = {constantDim(t.x), constantDim(t.y), constantDim(t.z)};
      if (l.getDynamicSharedMemorySize())
        throw Error("cuda: kernel " + s.function +
                    " asks for dynamic shared memory");
      for (mlir::Value v : l.getKernelOperands()) {
        auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
        // The generator promises that launches read only the host
        // function's buffers; anything else could not be passed.
        if (!arg || arg.getOwner() != entry)
          throw Error("cuda: kernel " + s.function +
                      " takes a value that is not one of its buffers");
        s.args.push_back(static_cast<int>(arg.getArgNumber()));
      }
      k.launches.push_back(std::move(s));
    });
  }
}

/// Lowers the kernels' GPU modules to PTX; throws when a kernel needs
/// libdevice and no CUDA toolkit has it.
std::vector<std::pair<std::string, std::string>>
lowerToPTX(mlir::ModuleOp module, const std::string &chip,
           const std::string &features, const std::string &diags) {
  mlir::PassManager pm(module.getContext());
  mlir::kiln::GPUToPTXOptions options;
  options.chip = chip;
  options.features = features;
  mlir::kiln::buildKilnGPUKernelsToPTXPipeline(pm, options);
  if (mlir::failed(pm.run(module)))
    throw Error("cuda: lowering to PTX failed:\n" + diags);
  std::vector<std::pair<std::string, std::string>> ptx =
      mlir::kiln::collectPTX(module);
  // f64 transcendentals come from libdevice, which only a CUDA toolkit
  // ships; without one they are left as calls the driver cannot resolve.
  for (const auto &[name, text] : ptx) {
    size_t at = text.find(".extern .func");
    if (at == std::string::npos)
      continue;
    size_t nv = text.find("__nv_", at);
    std::string fn = nv == std::string::npos
                         ? "an external function"
                         : text.substr(nv, text.find_first_of(" (\n", nv) - nv);
    throw Error("cuda: kernel " + name + " calls " + fn +
                " from libdevice (f64 math), but no CUDA toolkit with "
                "nvvm/libdevice was found; set CUDA_HOME to one");
  }
  return ptx;
}

class CudaTarget : public Target {
public:
  explicit CudaTarget(CudaCodeTarget code) : code_(std::move(code)) {}

  std::string diskKey() const override {
    return "cuda|" + code_.chip + "|" + mlir::kiln::ptxFeaturesFor(code_.chip) +
           (code_.mma ? "|mma|" : "|simt|") + kCodegenVersion + "|llvm" +
           LLVM_VERSION_STRING;
  }

  BuildResult build(mlir::ModuleOp module) override {
    auto start = std::chrono::steady_clock::now();
    mlir::MLIRContext *ctx = module.getContext();
    prepareContext(ctx);
    registerPipelinePasses();
    std::string diags;
    mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
        llvm::raw_string_ostream os(diags);
        os << d << "\n";
      }
      return mlir::success();
    });
    BuildResult r;
    r.artifact.backend = "cuda";
    CudaProgram p;
    {
      mlir::PassManager pm(ctx);
      pm.addPass(mlir::kiln::createKilnOutlineLayoutOps());
      if (mlir::failed(pm.run(module)))
        throw Error("cuda: outlining layout ops failed:\n" + diags);
    }
    auto main = module.lookupSymbol<mlir::func::FuncOp>("main");
    if (!main)
      throw Error("cuda: the module has no function @main");
    readPlan(main, r.artifact, p);
    main.erase();
    {
      mlir::PassManager pm(ctx);
      mlir::kiln::KilnGenerateGPUKernelsOptions options;
      options.chip = code_.chip;
      options.mma = code_.mma;
      pm.addPass(mlir::kiln::createKilnGenerateGPUKernels(options));
      pm.addPass(mlir::createGpuKernelOutliningPass());
      if (mlir::failed(pm.run(module)))
        throw Error("cuda: kernel generation failed:\n" + diags);
    }
    readLaunches(module, p);
    // Only the kernels go on to LLVM; the launches are the plan's business.
    for (mlir::Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (!llvm::isa<mlir::gpu::GPUModuleOp>(op))
        op.erase();
    double mlirMs = msSince(start);
    auto llvmStart = std::chrono::steady_clock::now();
    p.ptx = lowerToPTX(module, code_.chip,
                       mlir::kiln::ptxFeaturesFor(code_.chip), diags);
    r.artifact.payload = encode(p);
    char phases[96];
    std::snprintf(phases, sizeof phases, "%.2f ms MLIR, %.2f ms LLVM (%s)",
                  mlirMs, msSince(llvmStart), code_.chip.c_str());
    r.phases = phases;
    return r;
  }

private:
  CudaCodeTarget code_;
};

} // namespace

namespace kiln::detail {
std::unique_ptr<Target> createCudaTarget(const std::string &chip, bool mma) {
  return std::make_unique<CudaTarget>(CudaCodeTarget{chip, mma});
}

void registerCudaTarget() {
  TargetInfo info;
  info.kind = DeviceKind::Cuda;
  info.name = "cuda";
  info.graph.fuse = true;
  info.create = [](int index) {
    return createCudaTarget(cudaCodeTarget(index).chip,
                            cudaCodeTarget(index).mma);
  };
  registerTarget(std::move(info));
}
} // namespace kiln::detail
