//===- CudaCompiler.cpp - From a kiln module to PTX and a plan ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CudaCompiler.h"
#include "kiln/Conversion/GPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Runtime/KernelCache.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
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
static const char *const kCodegenVersion = "kiln-gpu-codegen-3";

namespace {

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

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

/// Layout ops that move data (permute, slice, flip) become one-op generic
/// kernels: a GPU buffer is only ever read contiguously. Reshapes stay:
/// they are a new shape over the same storage.
void outlineLayoutOps(mlir::func::FuncOp main) {
  mlir::OpBuilder b(main.getContext());
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : main.getBody().front())
    if (llvm::isa<mlir::kiln::PermuteOp, mlir::kiln::SliceOp,
                  mlir::kiln::FlipOp>(op))
      ops.push_back(&op);
  for (auto [i, op] : llvm::enumerate(ops)) {
    mlir::Location loc = op->getLoc();
    b.setInsertionPoint(main);
    auto fn = mlir::func::FuncOp::create(
        b, loc, "main_layout" + std::to_string(i),
        b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
    fn.setPrivate();
    fn->setAttr(mlir::kiln::kKernelKindAttr, b.getStringAttr("generic"));
    mlir::Block *body = fn.addEntryBlock();
    b.setInsertionPointToEnd(body);
    mlir::IRMapping map;
    map.map(op->getOperands(), body->getArguments());
    mlir::Operation *clone = b.clone(*op, map);
    mlir::func::ReturnOp::create(b, loc, clone->getResults());
    b.setInsertionPoint(op);
    auto call = mlir::func::CallOp::create(b, loc, fn, op->getOperands());
    op->replaceAllUsesWith(call.getResults());
    op->erase();
  }
}

/// Turns @main into plan steps; returns a summary of the kernels.
std::string buildPlan(mlir::func::FuncOp main, Program &p,
                      Allocator &hostAllocator) {
  llvm::DenseMap<mlir::Value, int> slotOf;
  int next = 0;
  for (mlir::BlockArgument a : main.getArguments())
    slotOf[a] = next++;
  std::vector<int> lastReader;
  std::string summary;
  auto module = main->getParentOfType<mlir::ModuleOp>();
  for (mlir::Operation &op : main.getBody().front()) {
    if (auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(op)) {
      for (mlir::Value v : ret.getOperands())
        p.resultSlots.push_back(slotOf.at(v));
      continue;
    }
    if (auto c = llvm::dyn_cast<mlir::kiln::ConstantOp>(op)) {
      slotOf[c.getResult()] = next;
      p.constants.push_back({next++, constantBuffer(c, hostAllocator)});
      continue;
    }
    StepSpec step;
    int index = static_cast<int>(p.steps.size());
    if (auto call = llvm::dyn_cast<mlir::func::CallOp>(op)) {
      auto callee = module.lookupSymbol<mlir::func::FuncOp>(call.getCallee());
      KernelSpec k;
      k.name = callee.getName().str();
      k.kind = llvm::cast<mlir::StringAttr>(
                   callee->getAttr(mlir::kiln::kKernelKindAttr))
                   .getValue()
                   .str();
      for (mlir::Value r : call.getResults()) {
        k.outTypes.push_back(mlir::kiln::dtypeOf(r.getType()));
        auto t = llvm::cast<mlir::RankedTensorType>(r.getType());
        k.outShapes.emplace_back(t.getShape().begin(), t.getShape().end());
      }
      summary += (summary.empty() ? "" : ", ") + k.kind + "(";
      bool first = true;
      for (mlir::Operation &inner :
           callee.getBody().front().without_terminator()) {
        if (llvm::isa<mlir::kiln::ConstantOp>(inner))
          continue;
        summary += (first ? "" : " ") +
                   inner.getName().getStringRef().drop_front(5).str();
        first = false;
      }
      summary += ")";
      step.kernel = static_cast<int>(p.kernels.size());
      p.kernels.push_back(std::move(k));
    } else if (llvm::isa<mlir::kiln::ReshapeOp, mlir::kiln::SqueezeOp,
                         mlir::kiln::UnsqueezeOp>(op)) {
      auto t = llvm::cast<mlir::RankedTensorType>(op.getResult(0).getType());
      step.shape.assign(t.getShape().begin(), t.getShape().end());
    } else if (llvm::isa<mlir::kiln::AllReduceOp>(op)) {
      step.collective = CollectiveStep::Both;
      step.reduce = reduceOpOf(&op);
    } else if (llvm::isa<mlir::kiln::AllReduceStartOp>(op)) {
      step.collective = CollectiveStep::Start;
      step.reduce = reduceOpOf(&op);
    } else if (llvm::isa<mlir::kiln::AllReduceWaitOp>(op)) {
      step.collective = CollectiveStep::Wait;
    } else {
      throw Error("cuda: no runtime step for " +
                  op.getName().getStringRef().str());
    }
    for (mlir::Value v : op.getOperands()) {
      int slot = slotOf.at(v);
      step.operands.push_back(slot);
      if (slot >= (int)lastReader.size())
        lastReader.resize(slot + 1, -1);
      lastReader[slot] = index;
    }
    for (mlir::Value r : op.getResults()) {
      slotOf[r] = next;
      step.results.push_back(next++);
    }
    p.steps.push_back(std::move(step));
  }
  p.numSlots = next;
  lastReader.resize(next, -1);
  std::vector<bool> isResult(next, false);
  for (int s : p.resultSlots)
    isResult[s] = true;
  for (int slot = 0; slot < next; ++slot)
    if (lastReader[slot] >= 0 && !isResult[slot])
      p.steps[lastReader[slot]].dying.push_back(slot);
  return summary;
}

unsigned constantDim(mlir::Value v) {
  std::optional<int64_t> c = mlir::getConstantIntValue(v);
  if (!c || *c <= 0 || *c > 0x7fffffff)
    throw Error("cuda: a launch size is not a positive constant");
  return static_cast<unsigned>(*c);
}

/// Reads each kernel's launches from its outlined host function.
void readLaunches(mlir::ModuleOp module, Program &p) {
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

/// Cache entries hold every module's PTX: "<name>\n<size>\n<text>"...
std::string serializePTX(
    const std::vector<std::pair<std::string, std::string>> &ptx) {
  std::string out = "KILNPTX1\n";
  for (const auto &[name, text] : ptx)
    out += name + "\n" + std::to_string(text.size()) + "\n" + text;
  return out;
}

bool parsePTX(const std::string &blob,
              std::vector<std::pair<std::string, std::string>> &ptx) {
  llvm::StringRef s(blob);
  if (!s.consume_front("KILNPTX1\n"))
    return false;
  while (!s.empty()) {
    auto [name, rest] = s.split('\n');
    auto [size, text] = rest.split('\n');
    size_t n;
    if (size.getAsInteger(10, n) || n > text.size())
      return false;
    ptx.push_back({name.str(), text.take_front(n).str()});
    s = text.drop_front(n);
  }
  return true;
}

} // namespace

std::string cuda::chipFor(int major, int minor) {
  // Chips LLVM 22's NVPTX backend targets with PTX 8.0; a newer GPU runs
  // PTX for the newest of them (the driver compiles PTX forward).
  static const int known[] = {50, 52, 53, 60, 61, 62, 70,
                              72, 75, 80, 86, 87, 89, 90};
  int cc = major * 10 + minor;
  int best = 0;
  for (int k : known)
    if (k <= cc)
      best = k;
  return best ? "sm_" + std::to_string(best) : "";
}

Program cuda::compileProgram(mlir::ModuleOp module, const std::string &key,
                             const Target &target, Allocator &hostAllocator) {
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
  auto main = module.lookupSymbol<mlir::func::FuncOp>("main");
  if (!main)
    throw Error("cuda: the module has no function @main");
  outlineLayoutOps(main);
  Program p;
  p.summary = buildPlan(main, p, hostAllocator);
  main.erase();
  {
    mlir::PassManager pm(ctx);
    mlir::kiln::KilnGenerateGPUKernelsOptions options;
    options.chip = target.chip;
    options.mma = target.mma;
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
  p.mlirMs = msSince(start);

  std::string features = mlir::kiln::ptxFeaturesFor(target.chip);
  std::string fullKey = key + "|cuda|" + target.chip + "|" + features +
                        (target.mma ? "|mma|" : "|simt|") + kCodegenVersion +
                        "|llvm" + LLVM_VERSION_STRING;
  p.cacheId = kernelcache::hashOf(fullKey);
  if (std::optional<std::string> cached = kernelcache::load(fullKey))
    p.diskHit = parsePTX(*cached, p.ptx);
  if (p.diskHit)
    return p;
  p.ptx.clear();
  auto llvmStart = std::chrono::steady_clock::now();
  {
    mlir::PassManager pm(ctx);
    mlir::kiln::GPUToPTXOptions options;
    options.chip = target.chip;
    options.features = features;
    mlir::kiln::buildKilnGPUKernelsToPTXPipeline(pm, options);
    if (mlir::failed(pm.run(module)))
      throw Error("cuda: lowering to PTX failed:\n" + diags);
  }
  p.ptx = mlir::kiln::collectPTX(module);
  // f64 transcendentals come from libdevice, which only a CUDA toolkit
  // ships; without one they are left as calls the driver cannot resolve.
  for (const auto &[name, text] : p.ptx) {
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
  p.llvmMs = msSince(llvmStart);
  kernelcache::store(fullKey, serializePTX(p.ptx));
  return p;
}
