//===- CpuBackend.cpp - The JIT backend -----------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Running what the Cpu target compiled (lib/Target/Cpu): the artifact's
// object files are linked by the JIT, and its plan runs kernel calls
// (every phase split over the thread pool) and host steps (views,
// collectives), freeing each buffer after its last reader. An output takes
// the buffer of an input that dies at its kernel where the kernel allows.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CpuBackend.h"
#include "CpuJit.h"
#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Runtime/ThreadPool.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/ShapeRules.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <map>
#include <mutex>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cpu;

namespace {

/// A flat memref descriptor as the C interface reads it.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

void appendDescriptors(const Buffer &b,
                       llvm::SmallVectorImpl<Descriptor> &out) {
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
    for (auto [arg, dim] : program_.dynamicArgs) {
      int64_t v = args[arg].shape[dim];
      if (dynamic >= 0 && v != dynamic)
        throw Error("internal error: cpu: the dynamic dims of a compiled "
                    "graph's arguments differ (" +
                    std::to_string(dynamic) + " and " + std::to_string(v) +
                    ")");
      dynamic = v;
    }
    Allocator &alloc = backend_.allocator();
    llvm::SmallVector<bool, 4> reusable;
    return runPlan(plan_, args, constants_, backend_.counters.executedOps,
                   [&](const StepRun &r) {
                     if (r.step.kind == kCpuKernelStep) {
                       runKernel(program_.kernels[r.step.index],
                                 phases_[r.step.index], r, dynamic);
                       return;
                     }
                     StepContext ctx{alloc, nullptr};
                     // Only a step that may take a dying operand's buffer (a
                     // collective's start) pays for finding out which operands
                     // die.
                     if (takesOperands_[r.step.index]) {
                       reusableOperands(r.step.operands, r.step.dying, r.slots,
                                        reusable);
                       ctx.reusable = reusable.data();
                     }
                     ctx.dynamicSize = dynamic;
                     hostSteps_[r.step.index](r.operands, r.results, ctx);
                   });
  }

  int64_t kernelCount() const override { return program_.kernels.size(); }

  void runKernel(const CpuKernel &k, const std::vector<PhaseFn> &fns,
                 const StepRun &r, int64_t dynamic) {
    Allocator &alloc = backend_.allocator();
    const PlanStep &s = r.step;
    llvm::MutableArrayRef<Buffer> results = r.results;
    // A launch is on decoding's hot path (dozens per token): the operands
    // are read where they lie, and only a strided one is copied.
    llvm::SmallVector<Buffer, 2> copies;
    copies.reserve(r.operands.size());
    llvm::SmallVector<const Buffer *, 8> inputs;
    for (const Buffer *b : r.operands) {
      if (b->dtype.isQuantized() || b->isContiguous()) {
        inputs.push_back(b);
        continue;
      }
      copies.push_back(contiguous(*b, alloc));
      inputs.push_back(&copies.back());
    }
    if (dynamic >= 0 && k.sizeInput >= 0)
      dynamic = inputs[k.sizeInput]->shape[k.sizeDim];
    if (dynamic >= 0)
      for (size_t j = 0; j < inputs.size() && j < k.inShapes.size(); ++j)
        if (inputs[j]->shape != withDynamicSize(k.inShapes[j], dynamic))
          throw Error("internal error: cpu: kernel " + k.name + " input " +
                      std::to_string(j) + " has shape " +
                      rules::formatDims(inputs[j]->shape) + ", not " +
                      rules::formatDims(k.inShapes[j]) +
                      " with ? = " + std::to_string(dynamic));
    for (size_t i = 0; i < results.size(); ++i) {
      std::vector<int64_t> dynamicShape;
      if (dynamic >= 0)
        dynamicShape = withDynamicSize(k.outShapes[i], dynamic);
      const std::vector<int64_t> &outShape =
          dynamic >= 0 ? dynamicShape : k.outShapes[i];
      // An output may be written over an input that dies here: the slot
      // and the step's operand are its only holders.
      bool reused = false;
      bool anyInput = k.inPlaceInput == kAnyInputInPlace;
      if (anyInput || k.inPlaceInput >= 0)
        for (size_t j = 0; j < inputs.size() && !reused; ++j) {
          if (!anyInput && static_cast<int>(j) != k.inPlaceInput)
            continue;
          const Buffer &in = *inputs[j];
          int slot = s.operands[j];
          bool dies = std::find(s.dying.begin(), s.dying.end(), slot) !=
                          s.dying.end() &&
                      std::count(s.operands.begin(), s.operands.end(), slot) == 1;
          long holders = &in == r.operands[j] ? 1 : 2;
          if (dies && in.dtype == k.outTypes[i] && in.shape == outShape &&
              in.storage == r.slots[slot].storage && in.offset == 0 &&
              in.storage.use_count() == holders && !in.storage->external &&
              in.isContiguous()) {
            results[i] = in;
            reused = true;
          }
        }
      if (!reused)
        results[i] = allocateBuffer(alloc, k.outTypes[i], outShape);
    }
    llvm::SmallVector<Descriptor, 16> descs;
    for (const Buffer *b : inputs)
      appendDescriptors(*b, descs);
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
    llvm::SmallVector<void *, 16> ptrs;
    for (Descriptor &d : descs)
      ptrs.push_back(&d);
    void **table = ptrs.data();
    // The clock is read only when profiling: launches are on the hot path.
    KernelProfile *profile = KernelProfile::get();
    std::chrono::steady_clock::time_point start;
    if (profile)
      start = std::chrono::steady_clock::now();
    IndexFault fault;
    for (size_t i = 0; i < k.phases.size(); ++i) {
      const CpuPhase &p = k.phases[i];
      // One pointer captured: the std::function holds it without a heap
      // block.
      struct {
        PhaseFn fn;
        void **table;
        IndexFault *fault;
      } launch{fns[i], table, &fault};
      parallelFor(p.unitsFor(size), p.grain,
                  [l = &launch](int64_t b, int64_t e) {
                    IndexFaultScope scope(l->fault);
                    l->fn(b, e, l->table);
                  });
    }
    if (profile)
      profile->add(k.label, start);
    fault.throwIfSet();
  }

  Backend &backend_;
  Plan plan_;
  CpuProgram program_;
  /// The entry point of every phase of every kernel.
  std::vector<std::vector<PhaseFn>> phases_;
  std::vector<Step> hostSteps_;
  std::vector<bool> takesOperands_;
  std::vector<Buffer> constants_;
};

class CpuBackendImpl : public Backend {
public:
  CpuBackendImpl() {
    registerViewSteps(hostSteps_);
    registerCollectiveSteps(hostSteps_);
    registerSortSteps(hostSteps_);
    // Large temporaries come back every step; keep glibc from unmapping
    // them on each free.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  }

  DeviceKind kind() const override { return DeviceKind::Cpu; }
  std::string name() const override { return "cpu"; }
  Allocator &allocator() override { return allocator_; }

  std::unique_ptr<Executable> load(const Artifact &a) override {
    std::optional<CpuProgram> program = decodeCpuProgram(a.payload);
    if (a.backend != "cpu" || !program)
      throw Error("cpu: the artifact is not a Cpu program");
    auto exe = std::make_unique<CpuExecutable>(*this);
    for (const OpDesc &op : a.ops) {
      const KernelBuilder *builder = hostSteps_.lookup(op.name);
      if (!builder)
        throw Error("cpu: no runtime step for " + op.name);
      exe->hostSteps_.push_back((*builder)(op));
      exe->takesOperands_.push_back(unitAttr(op, kCollectiveAttr));
    }
    for (const PlanStep &s : a.plan.steps) {
      size_t n = s.kind == kCpuKernelStep ? program->kernels.size()
                 : s.kind == kHostOpStep  ? exe->hostSteps_.size()
                                          : 0;
      if (s.index < 0 || static_cast<size_t>(s.index) >= n)
        throw Error("cpu: the plan has a step the program does not hold");
    }
    for (const OpDesc &c : a.constants)
      exe->constants_.push_back(constantBuffer(c, allocator_));
    link(*exe, *program);
    exe->plan_ = a.plan;
    exe->program_ = std::move(*program);
    return exe;
  }

private:
  /// Loads the program's objects and points every phase at its code.
  static void link(CpuExecutable &exe, const CpuProgram &p) {
    // Kernels merged by --kiln-dedupe-kernels share their phases: each is
    // looked up once.
    std::vector<std::string> names;
    llvm::StringMap<size_t> at;
    for (const CpuKernel &k : p.kernels)
      for (const CpuPhase &ph : k.phases)
        if (at.try_emplace(ph.name, names.size()).second)
          names.push_back(ph.name);
    std::vector<PhaseFn> fns = loadObjects(p.objects, names);
    for (const CpuKernel &k : p.kernels) {
      exe.phases_.emplace_back();
      for (const CpuPhase &ph : k.phases)
        exe.phases_.back().push_back(fns[at.lookup(ph.name)]);
    }
  }

  HostAllocator allocator_;
  /// The ops that run outside kernels: views and collectives.
  KernelRegistry hostSteps_;
};

} // namespace

void kiln::detail::registerCpuBackend() {
  registerBackend(DeviceKind::Cpu, [](int index) -> Backend & {
    static Backend *cpu = nullptr;
    return hostBackend(DeviceKind::Cpu, index, cpu,
                       [] { return new CpuBackendImpl(); });
  });
}
