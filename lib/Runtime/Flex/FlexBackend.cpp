//===- FlexBackend.cpp - The eager reference backend ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Flex runs a plan of one host step per kiln op of @main (the Flex target,
// lib/Target/Flex, makes it): each op's kernel is built from its
// description when the plan is loaded, and running the plan frees each
// buffer as soon as its last reader is done.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/FlexBackend.h"
#include "FlexKernels.h"
#include "kiln/Runtime/Artifact.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

//===----------------------------------------------------------------------===//
// Views and loops
//===----------------------------------------------------------------------===//

Buffer flex::elementwiseOutput(llvm::ArrayRef<const Buffer *> operands,
                               StepContext &ctx, DType dtype,
                               const std::vector<int64_t> &shape) {
  if (ctx.reusable) {
    for (size_t i = 0; i < operands.size(); ++i) {
      const Buffer &b = *operands[i];
      if (ctx.reusable[i] && b.dtype == dtype && b.shape == shape &&
          b.isContiguous() && b.offset == 0 && !b.scales)
        return b;
    }
  }
  return allocateBuffer(ctx.allocator, dtype, shape);
}

void flex::elementwiseLoop(const Buffer &out, llvm::ArrayRef<Buffer> operands,
                           const InnerLoop &inner) {
  const int nOps = static_cast<int>(operands.size()) + 1;
  // Collapse dims that are contiguous for every operand. Small vectors:
  // this runs once per op, and tiny tensors should not pay for the heap.
  llvm::SmallVector<int64_t, 6> shape;
  llvm::SmallVector<llvm::SmallVector<int64_t, 6>, 4> strides(nOps);
  for (int d = 0; d < out.rank(); ++d) {
    if (out.shape[d] == 1)
      continue;
    bool merge = !shape.empty();
    for (int k = 0; k < nOps && merge; ++k) {
      const Buffer &b = k == 0 ? out : operands[k - 1];
      merge = strides[k].back() == b.strides[d] * out.shape[d];
    }
    if (merge) {
      shape.back() *= out.shape[d];
      for (int k = 0; k < nOps; ++k) {
        const Buffer &b = k == 0 ? out : operands[k - 1];
        strides[k].back() = b.strides[d];
      }
      continue;
    }
    shape.push_back(out.shape[d]);
    for (int k = 0; k < nOps; ++k) {
      const Buffer &b = k == 0 ? out : operands[k - 1];
      strides[k].push_back(b.strides[d]);
    }
  }
  if (shape.empty()) {
    shape.push_back(1);
    for (int k = 0; k < nOps; ++k)
      strides[k].push_back(1);
  }
  int rank = static_cast<int>(shape.size());
  int64_t innerLen = shape.back();
  int64_t outer = 1;
  for (int d = 0; d < rank - 1; ++d)
    outer *= shape[d];
  if (innerLen == 0 || outer == 0)
    return;

  llvm::SmallVector<char *, 4> bases(nOps);
  llvm::SmallVector<int64_t, 4> elem(nOps), innerStrides(nOps);
  for (int k = 0; k < nOps; ++k) {
    const Buffer &b = k == 0 ? out : operands[k - 1];
    bases[k] = static_cast<char *>(b.data());
    elem[k] = static_cast<int64_t>(b.elementBytes());
    innerStrides[k] = strides[k].back();
  }
  // Work units: (outer row, chunk of the inner run).
  const int64_t chunk = 1 << 14;
  int64_t chunks = (innerLen + chunk - 1) / chunk;
  int64_t units = outer * chunks;
  auto body = [&](int64_t begin, int64_t end) {
    llvm::SmallVector<char *, 4> ptrs(nOps);
    for (int64_t u = begin; u < end; ++u) {
      int64_t row = u / chunks, c = u % chunks;
      int64_t start = c * chunk;
      int64_t n = std::min(chunk, innerLen - start);
      // Offset of the row from its multi-index.
      for (int k = 0; k < nOps; ++k) {
        int64_t off = start * strides[k].back(), rem = row;
        for (int d = rank - 2; d >= 0; --d) {
          off += (rem % shape[d]) * strides[k][d];
          rem /= shape[d];
        }
        ptrs[k] = bases[k] + off * elem[k];
      }
      inner(ptrs.data(), innerStrides.data(), n);
    }
  };
  // One reference fits in std::function's own storage: no allocation.
  parallelFor(units, std::max<int64_t>(1, (1 << 15) / std::min(innerLen, chunk)),
              [&body](int64_t begin, int64_t end) { body(begin, end); });
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

namespace {

class FlexExecutable : public Executable {
public:
  explicit FlexExecutable(Backend &backend) : backend_(backend) {}

  std::vector<Buffer> run(std::vector<Buffer> &args,
                          const std::vector<bool> &) override {
    StepContext ctx{backend_.allocator(), nullptr};
    llvm::SmallVector<bool, 4> reusable;
    return runPlan(plan_, args, constants_, backend_.counters.executedOps,
                   [&](const StepRun &r) {
                     reusableOperands(r.step.operands, r.step.dying, r.slots,
                                      reusable);
                     ctx.reusable = reusable.data();
                     steps_[r.step.index](r.operands, r.results, ctx);
                   });
  }

  int64_t kernelCount() const override { return plan_.steps.size(); }

  Backend &backend_;
  Plan plan_;
  std::vector<Step> steps_;
  std::vector<Buffer> constants_;
};

/// Every op Flex runs, from the kernel files' register functions.
void registerAllKernels(KernelRegistry &r) {
  registerCreationKernels(r);
  registerElementwiseKernels(r);
  registerReductionKernels(r);
  registerMatmulKernels(r);
  registerShapeKernels(r);
  registerIndexingKernels(r);
  registerNNKernels(r);
  registerQuantKernels(r);
  registerCollectiveSteps(r);
  registerSortSteps(r);
}

class FlexBackendImpl : public Backend {
public:
  FlexBackendImpl() { registerAllKernels(registry_); }

  DeviceKind kind() const override { return DeviceKind::Flex; }
  std::string name() const override { return "flex"; }
  Allocator &allocator() override { return allocator_; }

  /// A Flex plan is one host step per op.
  std::unique_ptr<Executable> load(const Artifact &a) override {
    auto exe = std::make_unique<FlexExecutable>(*this);
    for (const OpDesc &op : a.ops) {
      const KernelBuilder *builder = registry_.lookup(op.name);
      if (!builder)
        throw Error("flex: no kernel for " + op.name);
      exe->steps_.push_back((*builder)(op));
    }
    for (const PlanStep &s : a.plan.steps)
      if (s.kind != kHostOpStep || s.index < 0 ||
          s.index >= static_cast<int>(exe->steps_.size()))
        throw Error("flex: the plan has a step Flex does not run");
    for (const OpDesc &c : a.constants)
      exe->constants_.push_back(constantBuffer(c, allocator_));
    exe->plan_ = a.plan;
    return exe;
  }

private:
  HostAllocator allocator_;
  KernelRegistry registry_;
};

} // namespace

void kiln::detail::registerFlexBackend() {
  registerBackend(DeviceKind::Flex, [](int index) -> Backend & {
    static Backend *flex = nullptr;
    return hostBackend(DeviceKind::Flex, index, flex,
                       [] { return new FlexBackendImpl(); });
  });
}

bool kiln::detail::flexHasKernel(const std::string &opName) {
  static const KernelRegistry *registry = [] {
    auto *r = new KernelRegistry();
    registerAllKernels(*r);
    return r;
  }();
  return registry->lookup(opName) != nullptr;
}
