//===- CpuBackend.cpp - The JIT backend -----------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Compiling for the CPU: --kiln-fuse forms kernels; the graph function
// becomes a plan (kernel calls, views, constants over buffer slots); the
// kernels go through --kiln-generate-kernels and LLVM to one object file,
// taken from the disk cache when an earlier process compiled the same graph
// for the same compiler and CPU. Running the plan frees each buffer after
// its last reader and splits every kernel phase over the thread pool.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CpuBackend.h"
#include "CpuCompiler.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Runtime/KernelCache.h"
#include "kiln/Runtime/ThreadPool.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/ShapeRules.h"

#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <map>
#include <mutex>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cpu;

/// Bump when generated code changes, so that stale disk caches miss.
static const char *const kCodegenVersion = "kiln-codegen-38";

namespace {

/// A flat memref descriptor as the C interface reads it.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

struct Phase {
  std::string name;
  PhaseFn fn = nullptr;
  int64_t units = 1, grain = 1;
  /// Of a kernel with dynamic dims: ceil(S * unitsPer[0] / unitsPer[1])
  /// units for the run's dynamic size S (none: `units`).
  int64_t unitsPer[2] = {0, 0};

  int64_t unitsFor(int64_t s) const {
    if (unitsPer[1] <= 0 || s < 0)
      return units;
    return (s * unitsPer[0] + unitsPer[1] - 1) / unitsPer[1];
  }
};

struct Kernel {
  std::string name;
  std::string kind;
  std::string label; ///< kind(fused ops) and output shape, for the profile
  std::vector<Phase> phases;
  int64_t workspaceBytes = 0;
  /// Of a kernel with dynamic dims: ceil(S / r) * p + c bytes, as
  /// {p, r, c} (none: r == 0).
  int64_t workspacePer[3] = {0, 0, 0};

  int64_t workspaceFor(int64_t s) const {
    if (workspacePer[1] <= 0 || s < 0)
      return workspaceBytes;
    return (s + workspacePer[1] - 1) / workspacePer[1] * workspacePer[0] +
           workspacePer[2];
  }
  /// The input whose buffer an output may take when it dies at the call:
  /// any input of an elementwise kernel, the one the generator names
  /// (kiln.in_place) of a matmul, none (-1) otherwise.
  int inPlaceInput = -1;
  std::vector<DType> outTypes;
  /// Dynamic dims (kDynamic) are one size per call: S times a static
  /// factor that the kernel's inputs show (a dim that merged S with T is
  /// S * T).
  std::vector<std::vector<int64_t>> inShapes, outShapes;
  /// The input and dim that give the call's dynamic size (none: -1).
  int sizeInput = -1, sizeDim = -1;
  /// The phases take the dynamic size as a last i64 buffer (kiln.sizes).
  bool needsSizes = false;
  /// The phases' size is this many times the call's (kiln.size_scale).
  int64_t sizeScale = 1;
};

struct PlanStep {
  int kernel = -1;  ///< index into kernels_, or -1 for a Flex step
  Step view;        ///< views and other layout steps
  /// The step may take a dying operand's buffer (a collective's start):
  /// only such steps pay for finding out which operands die there.
  bool takesOperands = false;
  std::vector<int> operands, results, dying;
};

void appendDescriptors(const Buffer &b, std::vector<Descriptor> &out) {
  if (b.dtype.isQuantized()) {
    const QuantScheme &q = b.dtype.scheme();
    out.push_back({b.storage->data, b.storage->data, 0,
                   static_cast<int64_t>(quantValueBytes(q, b.numel())), 1});
    out.push_back({b.scales->data, b.scales->data, 0,
                   quantScaleCount(q, b.shape), 1});
    return;
  }
  out.push_back({b.storage->data, b.data(), 0, b.numel(), 1});
}

/// KILN_LOG=profile: the wall time of every kernel launch, summed per
/// kernel (kind, fused ops and output shape) and printed as a table on
/// stderr when the process exits.
class KernelProfile {
public:
  /// The profile, or null when KILN_LOG does not ask for it.
  static KernelProfile *get() {
    static KernelProfile *profile =
        env::logEnabled("profile") ? new KernelProfile() : nullptr;
    return profile;
  }

  void add(const std::string &label, std::chrono::steady_clock::time_point t) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - t)
                    .count();
    std::lock_guard<std::mutex> lock(mu_);
    Entry &e = entries_[label];
    e.ms += ms;
    ++e.calls;
  }

private:
  struct Entry {
    double ms = 0;
    int64_t calls = 0;
  };

  KernelProfile() {
    std::atexit([] { get()->print(); });
  }

  void print() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<std::string, Entry>> rows(entries_.begin(),
                                                    entries_.end());
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
      return a.second.ms > b.second.ms;
    });
    double total = 0;
    for (const auto &r : rows)
      total += r.second.ms;
    std::fprintf(stderr, "kiln: profile cpu, %.1f ms in %zu kernels\n", total,
                 rows.size());
    std::fprintf(stderr, "  %10s %8s %6s  kernel\n", "total_ms", "calls",
                 "share");
    for (const auto &[label, e] : rows)
      std::fprintf(stderr, "  %10.2f %8lld %5.1f%%  %s\n", e.ms,
                   static_cast<long long>(e.calls),
                   total > 0 ? 100 * e.ms / total : 0.0, label.c_str());
  }

  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

class CpuExecutable : public Executable {
public:
  explicit CpuExecutable(Backend &backend) : backend_(backend) {}

  std::vector<Buffer> run(std::vector<Buffer> &args,
                          const std::vector<bool> &) override {
    // Every dynamic dim of a plan is one size S, that of the arguments'
    // dynamic dims (the engine keys the graph so that they agree).
    int64_t dynamic = -1;
    for (auto [arg, dim] : dynamicArgs_) {
      int64_t v = args[arg].shape[dim];
      if (dynamic >= 0 && v != dynamic)
        throw Error("internal error: cpu: the dynamic dims of a compiled "
                    "graph's arguments differ (" +
                    std::to_string(dynamic) + " and " + std::to_string(v) +
                    ")");
      dynamic = v;
    }
    std::vector<Buffer> slots(numSlots_);
    for (size_t i = 0; i < args.size(); ++i)
      slots[i] = args[i];
    args.clear();
    for (auto &[slot, buffer] : constants_)
      slots[slot] = buffer;
    Allocator &alloc = backend_.allocator();
    std::vector<const Buffer *> operands;
    std::vector<Buffer> results;
    llvm::SmallVector<bool, 4> reusable;
    for (const PlanStep &s : steps_) {
      operands.clear();
      for (int slot : s.operands)
        operands.push_back(&slots[slot]);
      results.assign(s.results.size(), Buffer());
      if (s.kernel < 0) {
        StepContext ctx{alloc, nullptr};
        if (s.takesOperands) {
          reusableOperands(s.operands, s.dying, slots, reusable);
          ctx.reusable = reusable.data();
        }
        ctx.dynamicSize = dynamic;
        s.view(operands, results, ctx);
      } else {
        runKernel(kernels_[s.kernel], operands, s, slots, results, dynamic);
      }
      backend_.counters.executedOps.fetch_add(1);
      for (int slot : s.dying)
        slots[slot] = Buffer();
      for (size_t i = 0; i < s.results.size(); ++i)
        slots[s.results[i]] = std::move(results[i]);
    }
    std::vector<Buffer> out;
    for (int slot : resultSlots_)
      out.push_back(slots[slot]);
    return out;
  }

  int64_t kernelCount() const override { return kernels_.size(); }

  void runKernel(const Kernel &k, llvm::ArrayRef<const Buffer *> operands,
                 const PlanStep &s, std::vector<Buffer> &slots,
                 std::vector<Buffer> &results, int64_t dynamic) {
    Allocator &alloc = backend_.allocator();
    std::vector<Buffer> inputs;
    for (const Buffer *b : operands)
      inputs.push_back(b->dtype.isQuantized() ? *b : contiguous(*b, alloc));
    if (dynamic >= 0 && k.sizeInput >= 0)
      dynamic = inputs[k.sizeInput].shape[k.sizeDim];
    if (dynamic >= 0)
      for (size_t j = 0; j < inputs.size() && j < k.inShapes.size(); ++j)
        if (inputs[j].shape != withDynamicSize(k.inShapes[j], dynamic))
          throw Error("internal error: cpu: kernel " + k.name + " input " +
                      std::to_string(j) + " has shape " +
                      rules::formatDims(inputs[j].shape) + ", not " +
                      rules::formatDims(k.inShapes[j]) +
                      " with ? = " + std::to_string(dynamic));
    for (size_t i = 0; i < results.size(); ++i) {
      std::vector<int64_t> outShape =
          dynamic >= 0 ? withDynamicSize(k.outShapes[i], dynamic)
                       : k.outShapes[i];
      // An output may be written over an input that dies here.
      bool reused = false;
      bool anyInput = k.kind == "elementwise";
      if (anyInput || k.inPlaceInput >= 0)
        for (size_t j = 0; j < inputs.size() && !reused; ++j) {
          if (!anyInput && static_cast<int>(j) != k.inPlaceInput)
            continue;
          const Buffer &in = inputs[j];
          int slot = s.operands[j];
          bool dies = std::find(s.dying.begin(), s.dying.end(), slot) !=
                          s.dying.end() &&
                      std::count(s.operands.begin(), s.operands.end(), slot) == 1;
          if (dies && in.dtype == k.outTypes[i] && in.shape == outShape &&
              in.storage == slots[slot].storage && in.offset == 0 &&
              in.storage.use_count() == 2 && !in.storage->external &&
              in.isContiguous()) {
            results[i] = in;
            reused = true;
          }
        }
      if (!reused)
        results[i] = allocateBuffer(alloc, k.outTypes[i], outShape);
    }
    std::vector<Descriptor> descs;
    for (const Buffer &b : inputs)
      appendDescriptors(b, descs);
    for (const Buffer &b : results)
      appendDescriptors(b, descs);
    // The phases' own size (a matmul over [S, T] rows runs as S * T).
    int64_t size = dynamic >= 0 ? dynamic * k.sizeScale : dynamic;
    std::shared_ptr<Storage> workspace;
    if (int64_t bytes = k.workspaceFor(size)) {
      workspace = alloc.allocate(bytes);
      descs.push_back({workspace->data, workspace->data, 0, bytes, 1});
    }
    int64_t sizes[1] = {size};
    if (k.needsSizes)
      descs.push_back({sizes, sizes, 0, 1, 1});
    std::vector<void *> ptrs;
    for (Descriptor &d : descs)
      ptrs.push_back(&d);
    void **table = ptrs.data();
    // The clock is read only when profiling: launches are on the hot path.
    KernelProfile *profile = KernelProfile::get();
    std::chrono::steady_clock::time_point start;
    if (profile)
      start = std::chrono::steady_clock::now();
    IndexFault fault;
    for (const Phase &p : k.phases) {
      PhaseFn fn = p.fn;
      parallelFor(p.unitsFor(size), p.grain,
                  [fn, table, &fault](int64_t b, int64_t e) {
                    IndexFaultScope scope(&fault);
                    fn(b, e, table);
                  });
    }
    if (profile)
      profile->add(k.label, start);
    fault.throwIfSet();
  }

  Backend &backend_;
  /// (argument, dim) of every dynamic dim of @main's arguments.
  std::vector<std::pair<int, int>> dynamicArgs_;
  int numSlots_ = 0;
  std::vector<PlanStep> steps_;
  std::vector<Kernel> kernels_;
  std::vector<std::pair<int, Buffer>> constants_;
  std::vector<int> resultSlots_;
};

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

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

class CpuBackendImpl : public Backend {
public:
  CpuBackendImpl() {
    registerViewSteps(hostSteps_);
    registerCollectiveSteps(hostSteps_);
    registerPipelinePasses();
    // Large temporaries come back every step; keep glibc from unmapping
    // them on each free.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  }

  DeviceKind kind() const override { return DeviceKind::Cpu; }
  std::string name() const override { return "cpu"; }
  Allocator &allocator() override { return allocator_; }

  std::unique_ptr<Executable> compile(mlir::ModuleOp module,
                                      const std::string &key) override {
    auto start = std::chrono::steady_clock::now();
    mlir::MLIRContext *ctx = module.getContext();
    std::string diags;
    mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
      llvm::raw_string_ostream os(diags);
      os << d << "\n";
      return mlir::success();
    });
    // KILN_STREAM_STORES overrides the host's choice for large outputs.
    bool stream =
        env::streamStores().value_or(mlir::kiln::streamStoresOnHost());
    {
      mlir::PassManager pm(ctx);
      mlir::kiln::CPUPipelineOptions options;
      options.streamStores = stream ? 1 : 0;
      options.vectorBits = cpuTarget().vectorBits;
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
    std::string plan = planText(module);
    auto exe = std::make_unique<CpuExecutable>(*this);
    auto [fused, phaseNames] = readPlan(module, *exe);
    double mlirMs = msSince(start), llvmMs = 0;
    std::vector<std::string> objects = compileToObjects(module, mlirMs, llvmMs);
    std::string fullKey = fullKeyOf(key, stream);
    kernelcache::store(fullKey, packEntry(plan, objects));
    // KILN_DUMP_OBJECTS=<dir> keeps every compiled object for objdump.
    if (std::string dir = env::dumpObjectsDir(); !dir.empty()) {
      for (size_t i = 0; i < objects.size(); ++i) {
        std::string path = dir + "/kernels-" +
                           std::to_string(std::hash<std::string>()(fullKey)) +
                           (i ? "-" + std::to_string(i) : "") + ".o";
        if (FILE *f = std::fopen(path.c_str(), "wb")) {
          std::fwrite(objects[i].data(), 1, objects[i].size(), f);
          std::fclose(f);
        }
      }
    }
    link(*exe, objects, phaseNames);
    char phases[96];
    std::snprintf(phases, sizeof phases, "%.2f ms MLIR, %.2f ms LLVM", mlirMs,
                  llvmMs);
    exe->compileLog = {kernelcache::hashOf(fullKey), summary(*exe, fused),
                       phases};
    return exe;
  }

  std::unique_ptr<Executable> loadCompiled(mlir::MLIRContext &ctx,
                                           const std::string &key) override {
    auto start = std::chrono::steady_clock::now();
    bool stream =
        env::streamStores().value_or(mlir::kiln::streamStoresOnHost());
    std::string fullKey = fullKeyOf(key, stream);
    std::optional<std::string> entry = kernelcache::load(fullKey);
    if (!entry)
      return nullptr;
    std::string plan;
    std::vector<std::string> objects;
    if (!unpackEntry(*entry, plan, objects))
      return nullptr;
    // An entry whose plan does not read back (one written by another
    // version of Kiln under the same key cannot be, but a damaged one with
    // a matching checksum could) is a miss: the compile replaces it.
    mlir::ScopedDiagnosticHandler quiet(
        &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(plan, &ctx);
    if (!module || !module->lookupSymbol<mlir::func::FuncOp>("main"))
      return nullptr;
    auto exe = std::make_unique<CpuExecutable>(*this);
    std::string fused;
    std::vector<std::string> phaseNames;
    try {
      std::tie(fused, phaseNames) = readPlan(*module, *exe);
    } catch (const Error &) {
      return nullptr;
    }
    link(*exe, objects, phaseNames);
    counters.diskHits.fetch_add(1);
    char phases[64];
    std::snprintf(phases, sizeof phases, "%.2f ms load", msSince(start));
    exe->compileLog = {kernelcache::hashOf(fullKey) + " (from the disk cache)",
                       summary(*exe, fused), phases};
    return exe;
  }

private:
  /// The disk cache's key: the graph's, the generated code's version, the
  /// compiler and the CPU and ISA it targets (KILN_CPU_ISA).
  static std::string fullKeyOf(const std::string &key, bool stream) {
    return key + "|" + kCodegenVersion + "|llvm" + LLVM_VERSION_STRING + "|" +
           cpuTarget().key() + (stream ? "|stream" : "|plain");
  }

  /// What a disk hit needs to rebuild the executable without the passes:
  /// the graph function, the kernel templates it calls (their kinds and
  /// fused ops) and the phases as declarations with their attributes
  /// (units, grain, workspace, in-place input), in the textual form.
  static std::string planText(mlir::ModuleOp module) {
    mlir::OpBuilder b(module.getContext());
    mlir::OwningOpRef<mlir::ModuleOp> plan =
        mlir::ModuleOp::create(module.getLoc());
    b.setInsertionPointToEnd(plan->getBody());
    // The templates are those @main calls (not what a generic kernel's
    // lowering made of them, which reads globals the plan does not hold).
    llvm::StringSet<> called;
    if (auto main = module.lookupSymbol<mlir::func::FuncOp>("main"))
      main.walk([&](mlir::func::CallOp c) { called.insert(c.getCallee()); });
    for (auto fn : module.getOps<mlir::func::FuncOp>()) {
      if (fn->hasAttr(mlir::kiln::kUnitsAttr)) {
        auto decl =
            llvm::cast<mlir::func::FuncOp>(b.insert(fn->cloneWithoutRegions()));
        decl.setPrivate();
      } else if (fn.getName() == "main" || called.contains(fn.getName())) {
        b.clone(*fn);
      }
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    plan->print(os);
    return text;
  }

  /// An entry: the plan's length (8 bytes, little-endian) and the plan,
  /// then the number of object files and each one's length and bytes.
  static void putWord(std::string &out, uint64_t n) {
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }

  static bool getWord(const std::string &in, size_t &at, uint64_t &n) {
    if (at > in.size() || in.size() - at < 8)
      return false;
    n = 0;
    for (int i = 0; i < 8; ++i)
      n |= uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
    at += 8;
    return true;
  }

  static std::string packEntry(const std::string &plan,
                               const std::vector<std::string> &objects) {
    std::string entry;
    putWord(entry, plan.size());
    entry += plan;
    putWord(entry, objects.size());
    for (const std::string &o : objects) {
      putWord(entry, o.size());
      entry += o;
    }
    return entry;
  }

  static bool unpackEntry(const std::string &entry, std::string &plan,
                          std::vector<std::string> &objects) {
    size_t at = 0;
    uint64_t n = 0, count = 0;
    if (!getWord(entry, at, n) || n > entry.size() - at)
      return false;
    plan = entry.substr(at, n);
    at += n;
    if (!getWord(entry, at, count) || count > entry.size())
      return false;
    for (uint64_t i = 0; i < count; ++i) {
      if (!getWord(entry, at, n) || n > entry.size() - at)
        return false;
      objects.push_back(entry.substr(at, n));
      at += n;
    }
    return at == entry.size() && !objects.empty();
  }

  /// The plan of the kernel-generated `module` into `exe`: its steps and
  /// the phases to load. Returns what the kernels fuse and the phase names.
  std::pair<std::string, std::vector<std::string>>
  readPlan(mlir::ModuleOp module, CpuExecutable &exe) {
    auto main = module.lookupSymbol<mlir::func::FuncOp>("main");
    if (!main)
      throw Error("cpu: the module has no function @main");
    std::string fused = buildPlan(main, exe);
    return {fused, collectPhases(module, exe)};
  }

  /// Loads `objects` and points every phase of `exe` at its code.
  static void link(CpuExecutable &exe, const std::vector<std::string> &objects,
                   const std::vector<std::string> &phaseNames) {
    std::vector<PhaseFn> fns = loadObjects(objects, phaseNames);
    llvm::StringMap<PhaseFn> fnOf;
    for (size_t i = 0; i < fns.size(); ++i)
      fnOf[phaseNames[i]] = fns[i];
    for (Kernel &k : exe.kernels_)
      for (Phase &p : k.phases)
        p.fn = fnOf.lookup(p.name);
  }

  /// KILN_LOG=compile's description of the kernels; those merged by
  /// --kiln-dedupe-kernels share one name.
  static std::string summary(const CpuExecutable &exe,
                             const std::string &fused) {
    llvm::StringSet<> distinct;
    for (const Kernel &k : exe.kernels_)
      distinct.insert(k.name);
    std::string shared =
        distinct.size() < exe.kernels_.size()
            ? "(" + std::to_string(distinct.size()) + " distinct) "
            : "";
    return shared + "[" + fused + "]";
  }

  /// Turns @main into plan steps; returns a summary of the kernels.
  std::string buildPlan(mlir::func::FuncOp main, CpuExecutable &exe) {
    llvm::DenseMap<mlir::Value, int> slotOf;
    int next = 0;
    for (mlir::BlockArgument a : main.getArguments()) {
      auto t = llvm::cast<mlir::RankedTensorType>(a.getType());
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d))
          exe.dynamicArgs_.push_back(
              {static_cast<int>(a.getArgNumber()), static_cast<int>(d)});
      slotOf[a] = next++;
    }
    std::vector<int> lastReader;
    auto read = [&](int slot, int step) {
      if (slot >= (int)lastReader.size())
        lastReader.resize(slot + 1, -1);
      lastReader[slot] = step;
    };
    llvm::DenseMap<mlir::Operation *, int> kernelIndex;
    std::string summary;
    mlir::ModuleOp module = main->getParentOfType<mlir::ModuleOp>();
    for (mlir::Operation &op : main.getBody().front()) {
      if (auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(op)) {
        for (mlir::Value v : ret.getOperands())
          exe.resultSlots_.push_back(slotOf.at(v));
        continue;
      }
      // Sizes that fusion moved into the kernels leave unused reads.
      if (llvm::isa<mlir::tensor::DimOp, mlir::arith::ConstantOp>(op) &&
          llvm::all_of(op.getUsers(), [](mlir::Operation *u) {
            return llvm::isa<mlir::tensor::DimOp>(u) && u->use_empty();
          }))
        continue;
      if (auto c = llvm::dyn_cast<mlir::kiln::ConstantOp>(op)) {
        slotOf[c.getResult()] = next;
        exe.constants_.push_back({next++, constantBuffer(c, allocator_)});
        continue;
      }
      PlanStep step;
      int index = static_cast<int>(exe.steps_.size());
      if (auto call = llvm::dyn_cast<mlir::func::CallOp>(op)) {
        auto callee = module.lookupSymbol<mlir::func::FuncOp>(call.getCallee());
        Kernel k;
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
        for (mlir::Value v : call.getOperands()) {
          auto t = llvm::cast<mlir::RankedTensorType>(v.getType());
          for (int64_t d = 0; d < t.getRank() && k.sizeInput < 0; ++d)
            if (t.isDynamicDim(d)) {
              k.sizeInput = static_cast<int>(k.inShapes.size());
              k.sizeDim = static_cast<int>(d);
            }
          k.inShapes.emplace_back(t.getShape().begin(), t.getShape().end());
        }
        summary += (summary.empty() ? "" : ", ") + k.kind + "(";
        std::vector<llvm::StringRef> fusedOps;
        for (mlir::Operation &inner :
             callee.getBody().front().without_terminator())
          if (!llvm::isa<mlir::kiln::ConstantOp>(inner))
            fusedOps.push_back(inner.getName().getStringRef().drop_front(5));
        // A long kernel (up to --kiln-fuse's 256 ops) is named by its ends.
        constexpr size_t kHead = 8, kTail = 4;
        for (size_t i = 0; i < fusedOps.size(); ++i) {
          if (fusedOps.size() > kHead + kTail + 1 && i == kHead) {
            summary += " ... (" + std::to_string(fusedOps.size()) + " ops)";
            i = fusedOps.size() - kTail - 1;
            continue;
          }
          summary += (i ? " " : "") + fusedOps[i].str();
        }
        summary += ")";
        k.label = summary.substr(summary.rfind(k.kind + "("));
        if (!k.outShapes.empty()) {
          std::string dims;
          for (int64_t d : k.outShapes[0])
            dims += (dims.empty() ? "" : "x") + (mlir::ShapedType::isDynamic(d)
                                                     ? std::string("?")
                                                     : std::to_string(d));
          k.label += " -> " + (dims.empty() ? std::string("scalar") : dims);
        }
        step.kernel = static_cast<int>(exe.kernels_.size());
        exe.kernels_.push_back(std::move(k));
      } else {
        const KernelBuilder *builder =
            hostSteps_.lookup(op.getName().getStringRef());
        if (!builder)
          throw Error("cpu: no runtime step for " +
                      op.getName().getStringRef().str());
        step.view = (*builder)(&op);
        step.takesOperands = mlir::kiln::isCollectiveOp(&op);
      }
      for (mlir::Value v : op.getOperands()) {
        int slot = slotOf.at(v);
        step.operands.push_back(slot);
        read(slot, index);
      }
      for (mlir::Value r : op.getResults()) {
        slotOf[r] = next;
        step.results.push_back(next++);
      }
      exe.steps_.push_back(std::move(step));
    }
    exe.numSlots_ = next;
    lastReader.resize(next, -1);
    std::vector<bool> isResult(next, false);
    for (int s : exe.resultSlots_)
      isResult[s] = true;
    for (int slot = 0; slot < next; ++slot)
      if (lastReader[slot] >= 0 && !isResult[slot])
        exe.steps_[lastReader[slot]].dying.push_back(slot);
    return summary;
  }

  /// Reads the phases of every kernel from the generated functions.
  std::vector<std::string> collectPhases(mlir::ModuleOp module,
                                         CpuExecutable &exe) {
    std::vector<std::string> names;
    // Calls merged by --kiln-dedupe-kernels name the same kernel: its phases
    // are read, and later looked up in the JIT, once.
    llvm::StringMap<const Kernel *> read;
    for (Kernel &k : exe.kernels_) {
      auto [it, first] = read.try_emplace(k.name, &k);
      if (!first) {
        k.phases = it->second->phases;
        k.needsSizes = it->second->needsSizes;
        k.sizeScale = it->second->sizeScale;
        k.workspaceBytes = it->second->workspaceBytes;
        std::copy(std::begin(it->second->workspacePer),
                  std::end(it->second->workspacePer), k.workspacePer);
        k.inPlaceInput = it->second->inPlaceInput;
        continue;
      }
      for (int phase = 0;; ++phase) {
        std::string name = k.name + "__p" + std::to_string(phase);
        auto fn = module.lookupSymbol<mlir::func::FuncOp>(name);
        if (!fn)
          break;
        Phase p;
        p.name = name;
        p.units = fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kUnitsAttr)
                      .getInt();
        p.grain = fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kGrainAttr)
                      .getInt();
        if (auto ws = fn->getAttrOfType<mlir::IntegerAttr>(
                mlir::kiln::kWorkspaceAttr))
          k.workspaceBytes = std::max<int64_t>(k.workspaceBytes, ws.getInt());
        if (auto in =
                fn->getAttrOfType<mlir::IntegerAttr>(mlir::kiln::kInPlaceAttr))
          k.inPlaceInput = static_cast<int>(in.getInt());
        if (fn->hasAttr(mlir::kiln::kSizesAttr))
          k.needsSizes = true;
        if (auto scale = fn->getAttrOfType<mlir::IntegerAttr>(
                mlir::kiln::kSizeScaleAttr))
          k.sizeScale = scale.getInt();
        if (auto per = fn->getAttrOfType<mlir::DenseI64ArrayAttr>(
                mlir::kiln::kWorkspacePerAttr);
            per && per.size() == 3 && per[1] > 0)
          for (int i = 0; i < 3; ++i)
            k.workspacePer[i] = std::max<int64_t>(k.workspacePer[i], per[i]);
        if (auto per = fn->getAttrOfType<mlir::DenseI64ArrayAttr>(
                mlir::kiln::kUnitsPerAttr);
            per && per.size() == 2 && per[1] > 0) {
          p.unitsPer[0] = per[0];
          p.unitsPer[1] = per[1];
        }
        k.phases.push_back(p);
        names.push_back(name);
      }
      if (k.phases.empty())
        throw Error("cpu: no code was generated for kernel " + k.name);
    }
    return names;
  }

  HostAllocator allocator_;
  /// The ops that run outside kernels: views and collectives.
  KernelRegistry hostSteps_;
};

} // namespace

std::unique_ptr<Backend> kiln::detail::createCpuBackend() {
  return std::make_unique<CpuBackendImpl>();
}
