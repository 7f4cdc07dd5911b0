//===- CpuCodegen.cpp - From generated kernels to object files ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The generated phases (scf, vector, arith, math, memref) are lowered to the
// LLVM dialect, translated, optimized at O3 for the target machine that
// KILN_CPU_ISA chose (so that the loop vectorizer uses 512-bit vectors where
// that machine has them), and emitted as object files. The objects are what
// the artifact carries and what the runtime's JIT links.
//
//===----------------------------------------------------------------------===//

#include "CpuCodegen.h"
#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Runtime/ThreadPool.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/KernelAbi.h"
#include "kiln/Target/TargetUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cpu;

namespace {

std::unique_ptr<llvm::TargetMachine> targetMachine() {
  initializeNativeLLVM();
  const CpuMachine &target = cpuMachine();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    throw Error("cpu: cannot describe the host target: " +
                llvm::toString(builder.takeError()));
  builder->setCPU(target.cpu);
  builder->getFeatures() = llvm::SubtargetFeatures(target.features);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = builder->createTargetMachine();
  if (!tm)
    throw Error("cpu: cannot create a target machine: " +
                llvm::toString(tm.takeError()));
  return std::move(*tm);
}

/// LLVM 22's loop vectorizer asks whether each value of a loop is uniform
/// across lanes and unrolled parts by walking its operand tree without
/// memoizing (vputils::isUniformAcrossVFsAndUFs). A walk stops at the first
/// operand that varies, so its cost is the number of def-use paths through
/// the uniform part of the loop body, which is exponential in the depth of
/// shared subexpressions. Two ways a Kiln kernel gets there:
///  - a long row: the polynomial exp and log of a fused row kernel share
///    values at every step (a softmax feeding a logsumexp took minutes);
///  - a row shorter than a vector: the loops over the row have a small
///    constant trip count, LLVM unrolls them fully, and the loop over the
///    kernel's units then holds every reduction's body at once. When the
///    operands do not vary from unit to unit (one row, or a row broadcast
///    to every unit) the whole body is uniform and no walk stops early: a
///    layer_norm feeding a log_softmax of 4 elements never finished
///    compiling for AVX2.
/// The count is taken at the vectorizer's start, after that unrolling;
/// loops with more paths than this are left scalar (the SLP vectorizer
/// still packs their straight-line code).
constexpr uint64_t kMaxLoopPathsForVectorizer = 20000;

/// The number of def-use paths through `loop`'s body, saturating.
uint64_t pathsThrough(llvm::Loop *loop,
                      llvm::ArrayRef<llvm::BasicBlock *> functionRPO) {
  llvm::DenseMap<const llvm::Value *, uint64_t> paths;
  uint64_t most = 0;
  for (llvm::BasicBlock *bb : functionRPO) {
    if (!loop->contains(bb))
      continue;
    for (llvm::Instruction &inst : *bb) {
      uint64_t n = 1;
      if (!llvm::isa<llvm::PHINode>(inst))
        for (const llvm::Use &u : inst.operands()) {
          auto it = paths.find(u.get());
          if (it != paths.end())
            n = std::min<uint64_t>(n + it->second, UINT64_MAX / 4);
        }
      paths[&inst] = n;
      most = std::max(most, n);
    }
  }
  return most;
}

/// Marks the innermost loops with more than kMaxLoopPathsForVectorizer
/// def-use paths as not to be vectorized (nor interleaved). Runs where the
/// loop vectorizer starts (PassBuilder::registerVectorizerStartEPCallback).
struct LimitVectorizerPathsPass
    : public llvm::PassInfoMixin<LimitVectorizerPathsPass> {
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &fam) {
    llvm::LoopInfo &loops = fam.getResult<llvm::LoopAnalysis>(f);
    if (loops.empty())
      return llvm::PreservedAnalyses::all();
    llvm::LLVMContext &ctx = f.getContext();
    llvm::ReversePostOrderTraversal<llvm::Function *> order(&f);
    std::vector<llvm::BasicBlock *> rpo(order.begin(), order.end());
    bool changed = false;
    for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
      if (!loop->isInnermost() ||
          pathsThrough(loop, rpo) <= kMaxLoopPathsForVectorizer)
        continue;
      auto flag = [&](const char *name, llvm::Constant *value) {
        return llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, name),
                                       llvm::ConstantAsMetadata::get(value)});
      };
      llvm::SmallVector<llvm::Metadata *> props = {nullptr};
      if (llvm::MDNode *old = loop->getLoopID())
        for (unsigned i = 1; i < old->getNumOperands(); ++i)
          props.push_back(old->getOperand(i));
      props.push_back(
          flag("llvm.loop.vectorize.enable", llvm::ConstantInt::getFalse(ctx)));
      props.push_back(
          flag("llvm.loop.interleave.count",
               llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1)));
      llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, props);
      id->replaceOperandWith(0, id);
      loop->setLoopID(id);
      changed = true;
    }
    if (!changed)
      return llvm::PreservedAnalyses::all();
    llvm::PreservedAnalyses kept;
    kept.preserveSet<llvm::CFGAnalyses>();
    return kept;
  }
};

/// LLVM's O3 pipeline for the target, with LimitVectorizerPathsPass where
/// the vectorizer starts.
void optimizeO3(llvm::Module &m, llvm::TargetMachine *tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager &fpm, llvm::OptimizationLevel) {
        fpm.addPass(LimitVectorizerPathsPass());
      });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

/// Bools are stored one per byte, 0 or 1, and the kernels load and store
/// them as i1. The loop vectorizer cannot widen an i1 load (a vector of
/// i1 is packed bits in memory), so a loop reading a mask (attention's
/// causal mask in `where`) assembled each vector's mask one byte at a time,
/// 48 instructions per 16 elements. Byte loads and stores with a truncation
/// or extension mean the same for bytes of 0 and 1, and widen to one vector
/// load and a compare.
void widenBoolAccesses(llvm::Module &m) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *i1 = llvm::Type::getInt1Ty(ctx), *i8 = llvm::Type::getInt8Ty(ctx);
  for (llvm::Function &f : m) {
    if (f.isDeclaration())
      continue;
    llvm::SmallVector<llvm::Instruction *> accesses;
    for (llvm::Instruction &inst : llvm::instructions(f)) {
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst);
          load && load->getType() == i1 && load->isSimple())
        accesses.push_back(load);
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst);
          store && store->getValueOperand()->getType() == i1 &&
          store->isSimple())
        accesses.push_back(store);
    }
    for (llvm::Instruction *inst : accesses) {
      llvm::IRBuilder<> b(inst);
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(inst)) {
        llvm::LoadInst *byte = b.CreateAlignedLoad(
            i8, load->getPointerOperand(), load->getAlign());
        byte->copyMetadata(*load);
        load->replaceAllUsesWith(b.CreateTrunc(byte, i1));
      } else {
        auto *store = llvm::cast<llvm::StoreInst>(inst);
        llvm::StoreInst *byte =
            b.CreateAlignedStore(b.CreateZExt(store->getValueOperand(), i8),
                                 store->getPointerOperand(), store->getAlign());
        byte->copyMetadata(*store);
      }
      inst->eraseFromParent();
    }
  }
}

/// Whether `name` is a phase of an elementwise kernel (--kiln-fuse names
/// a kernel `<function>_kernel<i>_<kind>`, its phases `<kernel>__p<i>`).
bool isElementwisePhase(llvm::StringRef name) {
  size_t p = name.rfind("__p");
  return p != llvm::StringRef::npos &&
         name.take_front(p).ends_with("_elementwise");
}

/// An elementwise phase reads element j of each full operand and writes
/// element j of its output in iteration j of its innermost loops, and
/// nothing else: the only overlap is an output that the runtime writes
/// over a dying input of the same layout, element for element. LLVM cannot
/// see that; its run-time overlap check sent every such in-place call to
/// the scalar loop (a softmax's sub and exp ran 5 times slower in place).
/// Their accesses are marked parallel (llvm.loop.parallel_accesses), which
/// is what they are, so the vectorizer drops the check.
void markElementwiseLoopsParallel(llvm::Module &m) {
  llvm::LLVMContext &ctx = m.getContext();
  for (llvm::Function &f : m) {
    if (f.isDeclaration() || !isElementwisePhase(f.getName()))
      continue;
    llvm::DominatorTree dt(f);
    llvm::LoopInfo loops(dt);
    for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
      if (!loop->isInnermost())
        continue;
      llvm::MDNode *group = llvm::MDNode::getDistinct(ctx, {});
      for (llvm::BasicBlock *bb : loop->blocks())
        for (llvm::Instruction &inst : *bb)
          if (inst.mayReadOrWriteMemory())
            inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
      llvm::SmallVector<llvm::Metadata *> props = {nullptr};
      if (llvm::MDNode *old = loop->getLoopID())
        for (unsigned i = 1; i < old->getNumOperands(); ++i)
          props.push_back(old->getOperand(i));
      props.push_back(llvm::MDNode::get(
          ctx,
          {llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), group}));
      llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, props);
      id->replaceOperandWith(0, id);
      loop->setLoopID(id);
    }
  }
}

/// Adds `kiln_call_<P>(begin, end, descriptors)` for every phase P, which
/// unpacks the descriptor array and calls the C interface of P.
void addEntryPoints(llvm::Module &m) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  std::vector<llvm::Function *> ifaces;
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && f.getName().starts_with("_mlir_ciface_"))
      ifaces.push_back(&f);
  for (llvm::Function *f : ifaces) {
    std::string name = abi::kPhaseEntryPrefix +
                       f->getName().drop_front(strlen("_mlir_ciface_")).str();
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                         {i64, i64, ptr}, false);
    auto *entry =
        llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
    std::vector<llvm::Value *> args{entry->getArg(0), entry->getArg(1)};
    for (unsigned i = 2; i < f->arg_size(); ++i) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, entry->getArg(2), i - 2);
      args.push_back(b.CreateLoad(ptr, slot));
    }
    b.CreateCall(f, args);
    b.CreateRetVoid();
  }
}

} // namespace

std::string cpu::CpuMachine::key() const {
  return std::string(cpuIsaName(isa)) + ":" + cpu + ":" + features + ":" +
         std::to_string(vectorBits);
}

namespace {

/// The host's CPU and every feature it has, on or off.
CpuMachine hostCpuMachine() {
  CpuMachine t;
  t.cpu = llvm::sys::getHostCPUName().str();
  llvm::SubtargetFeatures features;
  for (const auto &[feature, on] : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature, on);
  t.features = features.getString();
  return t;
}

CpuMachine chooseCpuMachine(CpuIsa chosen) {
  if (std::string why = cpuIsaUnsupported(chosen); !why.empty())
    throw Error(std::string("cpu: KILN_CPU_ISA=") + cpuIsaName(chosen) +
                " cannot run here: " + why);
  CpuIsa isa = resolveCpuIsa(chosen);
  CpuMachine t;
  if (isa == CpuIsa::Avx2 && hostHasAvx512()) {
    // The instruction set every AVX2 host has, with the generic tuning
    // that LLVM gives it: no feature of this host beyond it.
    t.cpu = "x86-64-v3";
  } else {
    t = hostCpuMachine();
  }
  t.isa = isa;
  t.vectorBits = isa == CpuIsa::Avx512 ? 512 : 256;
  return t;
}

} // namespace

const cpu::CpuMachine &cpu::cpuMachine() {
  static const CpuMachine target = chooseCpuMachine(env::cpuIsa());
  return target;
}

namespace {

/// The phase a function of the lowered module belongs to: a phase
/// (`<kernel>__p<i>`) and its C interface (`_mlir_ciface_<phase>`) go
/// together; anything else (empty) is shared.
std::string phaseOf(llvm::StringRef name) {
  name.consume_front("_mlir_ciface_");
  size_t p = name.rfind("__p");
  if (p == llvm::StringRef::npos || p + 3 == name.size() ||
      !llvm::all_of(name.drop_front(p + 3), llvm::isDigit))
    return "";
  return name.str();
}

bool isLocal(mlir::LLVM::Linkage l) {
  return l == mlir::LLVM::Linkage::Private ||
         l == mlir::LLVM::Linkage::Internal;
}

/// A module of whole phases, and whether they are all explicit vector code
/// (kiln.vector_code), which takes the short LLVM pipeline.
struct Part {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  bool vectorCode = false;
};

/// Splits the lowered module into modules of whole phases: vector-code
/// phases apart from the others, each kind into at most `parts` modules
/// balanced by size (the largest phase first, into the smallest part). A
/// part defines its phases' functions and declares the others; functions
/// and globals of local linkage are copied into every part (unused copies
/// are dropped by the optimizer), shared external ones are defined in the
/// first part. The JIT links the parts' objects into one library.
std::vector<Part> splitByPhase(mlir::ModuleOp module, int parts) {
  std::map<std::string, int64_t> sizeOf;
  std::map<std::string, bool> vectorCode;
  for (auto fn : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    if (fn.isExternal())
      continue;
    std::string ph = phaseOf(fn.getName());
    if (ph.empty())
      continue;
    int64_t ops = 0;
    fn.walk([&](mlir::Operation *) { ++ops; });
    sizeOf[ph] += ops;
    if (fn.getName() == ph)
      vectorCode[ph] = fn->hasAttr(mlir::kiln::kVectorCodeAttr);
  }
  std::map<std::string, int> partOf;
  std::vector<bool> partIsVector;
  for (bool kind : {false, true}) {
    std::vector<std::pair<int64_t, std::string>> bySize;
    for (auto &[ph, n] : sizeOf)
      if (vectorCode[ph] == kind)
        bySize.push_back({n, ph});
    if (bySize.empty())
      continue;
    std::sort(bySize.begin(), bySize.end(), std::greater<>());
    int count = std::max<int>(1, std::min<int>(parts, bySize.size()));
    int first = static_cast<int>(partIsVector.size());
    partIsVector.insert(partIsVector.end(), count, kind);
    std::vector<int64_t> load(count, 0);
    for (auto &[n, ph] : bySize) {
      int least = std::min_element(load.begin(), load.end()) - load.begin();
      partOf[ph] = first + least;
      load[least] += n;
    }
  }
  if (partIsVector.empty())
    partIsVector.push_back(false);
  std::vector<Part> out;
  for (size_t p = 0; p < partIsVector.size(); ++p) {
    mlir::OwningOpRef<mlir::ModuleOp> part = module.clone();
    for (auto fn : part->getOps<mlir::LLVM::LLVMFuncOp>()) {
      if (fn.isExternal() || isLocal(fn.getLinkage()))
        continue;
      std::string ph = phaseOf(fn.getName());
      int owner = ph.empty() ? 0 : partOf.at(ph);
      if (owner != static_cast<int>(p))
        fn.eraseBody();
    }
    for (auto g : part->getOps<mlir::LLVM::GlobalOp>())
      if (p != 0 && !isLocal(g.getLinkage())) {
        g.getInitializerRegion().dropAllReferences();
        g.getInitializerRegion().getBlocks().clear();
        g.removeValueAttr();
      }
    out.push_back({std::move(part), partIsVector[p]});
  }
  return out;
}

/// The IR pipeline of vector-code phases: their loops are vectorized and
/// unrolled as written, so the loop vectorizer, the unrollers and most of
/// O3 have nothing to do but take time (a matmul kernel with its epilogue:
/// 130 ms of LLVM at O3, 65 ms with this; the kernel runs 1-2% slower).
constexpr const char kVectorCodePipeline[] =
    "function(sroa,early-cse,loop-mssa(licm),simplifycfg)";

/// Runs kVectorCodePipeline over `m`.
void optimizeVectorCode(llvm::Module &m, llvm::TargetMachine *tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (llvm::Error e = pb.parsePassPipeline(mpm, kVectorCodePipeline))
    throw Error("cpu: the vector-code pipeline does not parse: " +
                llvm::toString(std::move(e)));
  mpm.run(m, mam);
}

/// Optimizes one part for the host and returns its object file.
std::string optimizeAndEmit(llvm::Module &m, bool vectorCode) {
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine();
  m.setDataLayout(tm->createDataLayout());
  m.setTargetTriple(tm->getTargetTriple());
  std::string features = tm->getTargetFeatureString().str();
  std::string cpuName = tm->getTargetCPU().str();
  for (llvm::Function &f : m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", cpuName);
    f.addFnAttr("target-features", features);
    f.addFnAttr("prefer-vector-width", "512");
  }
  addEntryPoints(m);
  if (vectorCode) {
    optimizeVectorCode(m, tm.get());
  } else {
    widenBoolAccesses(m);
    markElementwiseLoopsParallel(m);
    optimizeO3(m, tm.get());
  }
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    throw Error("cpu: the target cannot emit object files");
  codegen.run(m);
  return std::string(object.begin(), object.end());
}

} // namespace

std::vector<std::string> cpu::compileToObjects(mlir::ModuleOp module,
                                               double &mlirMs, double &llvmMs) {
  initializeNativeLLVM();
  auto start = std::chrono::steady_clock::now();
  std::string diags;
  mlir::ScopedDiagnosticHandler handler(module.getContext(),
                                        [&](mlir::Diagnostic &d) {
                                          llvm::raw_string_ostream os(diags);
                                          os << d << "\n";
                                          return mlir::success();
                                        });
  mlir::PassManager pm(module.getContext());
  mlir::kiln::buildKilnCPULowerToLLVMPipeline(pm);
  if (mlir::failed(pm.run(module)))
    throw Error("cpu: lowering the kernels to LLVM failed:\n" + diags);
  mlirMs += msSince(start);

  // Kernels are compiled in parallel, one LLVM context per part (a context
  // is not thread-safe); translating from MLIR stays on this thread.
  start = std::chrono::steady_clock::now();
  std::vector<Part> parts = splitByPhase(module, hostThreads());
  std::vector<std::unique_ptr<llvm::LLVMContext>> contexts;
  std::vector<std::unique_ptr<llvm::Module>> modules;
  for (Part &part : parts) {
    contexts.push_back(std::make_unique<llvm::LLVMContext>());
    modules.push_back(mlir::translateModuleToLLVMIR(
        *part.module, *contexts.back(), "kiln_kernels"));
    if (!modules.back())
      throw Error("cpu: translating the kernels to LLVM IR failed:\n" + diags);
  }
  std::vector<std::string> objects(modules.size()), errors(modules.size());
  parallelFor(
      static_cast<int64_t>(modules.size()), 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          try {
            objects[i] = optimizeAndEmit(*modules[i], parts[i].vectorCode);
          } catch (const Error &err) {
            errors[i] = err.what();
          }
        }
      });
  for (const std::string &e : errors)
    if (!e.empty())
      throw Error(e);
  llvmMs += msSince(start);
  return objects;
}
