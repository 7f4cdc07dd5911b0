//===- FlexBackend.cpp - The eager reference backend ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Compiling for Flex builds a plan: one step per kiln op of @main, over
// numbered buffer slots, with the slots each step is the last reader of.
// Running the plan fills the argument slots, runs the steps and frees each
// buffer as soon as its last reader is done.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/FlexBackend.h"
#include "FlexKernels.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

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

struct PlanStep {
  Step fn;
  std::vector<int> operands;
  std::vector<int> results;
  std::vector<int> dying; ///< slots whose last reader is this step
  std::string name;
};

class FlexExecutable : public Executable {
public:
  FlexExecutable(Backend &backend) : backend_(backend) {}

  std::vector<Buffer> run(std::vector<Buffer> &args,
                          const std::vector<bool> &) override {
    std::vector<Buffer> slots(numSlots_);
    for (size_t i = 0; i < args.size(); ++i)
      slots[i] = args[i];
    // The caller's vector must not keep donated storages alive.
    args.clear();
    for (auto &[slot, buffer] : constants_)
      slots[slot] = buffer;
    StepContext ctx{backend_.allocator(), nullptr};
    // Reused across steps: a step allocates only its results.
    llvm::SmallVector<const Buffer *, 4> operands;
    std::vector<Buffer> results;
    llvm::SmallVector<bool, 4> reusable;
    for (const PlanStep &s : steps_) {
      operands.clear();
      for (int slot : s.operands)
        operands.push_back(&slots[slot]);
      reusableOperands(s.operands, s.dying, slots, reusable);
      ctx.reusable = reusable.data();
      results.assign(s.results.size(), Buffer());
      s.fn(operands, results, ctx);
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

  int64_t kernelCount() const override { return steps_.size(); }

  Backend &backend_;
  int numSlots_ = 0;
  std::vector<PlanStep> steps_;
  std::vector<std::pair<int, Buffer>> constants_;
  std::vector<int> resultSlots_;
};

} // namespace

namespace {

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
}

class FlexBackendImpl : public Backend {
public:
  FlexBackendImpl() { registerAllKernels(registry_); }

  DeviceKind kind() const override { return DeviceKind::Flex; }
  std::string name() const override { return "flex"; }
  Allocator &allocator() override { return allocator_; }

  std::unique_ptr<Executable> compile(mlir::ModuleOp module,
                                      const std::string &) override {
    auto func = module.lookupSymbol<mlir::func::FuncOp>("main");
    if (!func)
      throw Error("flex: the module has no function @main");
    auto exe = std::make_unique<FlexExecutable>(*this);
    llvm::DenseMap<mlir::Value, int> slotOf;
    int next = 0;
    for (mlir::BlockArgument arg : func.getArguments())
      slotOf[arg] = next++;

    std::vector<int> lastReader(1024, -1);
    auto noteRead = [&](int slot, int step) {
      if (slot >= (int)lastReader.size())
        lastReader.resize(slot * 2 + 1, -1);
      lastReader[slot] = step;
    };

    // x * sigmoid(x), which is how silu arrives after decomposition, runs
    // as one pass when the sigmoid has no other reader.
    llvm::DenseMap<mlir::Operation *, mlir::Value> siluOf;
    llvm::SmallPtrSet<mlir::Operation *, 8> fusedSigmoids;
    func.walk([&](mlir::kiln::SigmoidOp sig) {
      if (!sig->hasOneUse())
        return;
      auto mul = llvm::dyn_cast<mlir::kiln::MulOp>(*sig->user_begin());
      mlir::Value x = sig.getInput();
      if (!mul || mul.getType() != x.getType())
        return;
      mlir::Value other = mul->getOperand(0) == sig.getResult()
                              ? mul->getOperand(1)
                              : mul->getOperand(0);
      if (other != x)
        return;
      siluOf[mul] = x;
      fusedSigmoids.insert(sig);
    });

    for (mlir::Operation &op : func.getBody().front()) {
      if (fusedSigmoids.contains(&op))
        continue;
      if (auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(op)) {
        for (mlir::Value v : ret.getOperands())
          exe->resultSlots_.push_back(slotOf.at(v));
        continue;
      }
      if (auto c = llvm::dyn_cast<mlir::kiln::ConstantOp>(op)) {
        int slot = next++;
        slotOf[c.getResult()] = slot;
        exe->constants_.push_back({slot, constantBuffer(c, allocator_)});
        continue;
      }
      auto silu = siluOf.find(&op);
      llvm::StringRef name = silu != siluOf.end()
                                 ? llvm::StringRef("kiln.silu")
                                 : op.getName().getStringRef();
      const KernelBuilder *builder = registry_.lookup(name);
      if (!builder)
        throw Error("flex: no kernel for " + name.str());
      PlanStep step;
      step.name = name.str();
      step.fn = (*builder)(&op);
      int index = static_cast<int>(exe->steps_.size());
      llvm::SmallVector<mlir::Value, 4> operands(op.getOperands());
      if (silu != siluOf.end())
        operands.assign({silu->second});
      for (mlir::Value v : operands) {
        int slot = slotOf.at(v);
        step.operands.push_back(slot);
        noteRead(slot, index);
      }
      for (mlir::Value r : op.getResults()) {
        slotOf[r] = next;
        step.results.push_back(next++);
      }
      exe->steps_.push_back(std::move(step));
    }
    exe->numSlots_ = next;
    lastReader.resize(std::max<size_t>(lastReader.size(), next), -1);
    std::vector<bool> isResult(next, false);
    for (int s : exe->resultSlots_)
      isResult[s] = true;
    for (int slot = 0; slot < next; ++slot)
      if (lastReader[slot] >= 0 && !isResult[slot])
        exe->steps_[lastReader[slot]].dying.push_back(slot);
    return exe;
  }

private:
  HostAllocator allocator_;
  KernelRegistry registry_;
};

} // namespace

std::unique_ptr<Backend> kiln::detail::createFlexBackend() {
  return std::make_unique<FlexBackendImpl>();
}

bool kiln::detail::flexHasKernel(const std::string &opName) {
  static const KernelRegistry *registry = [] {
    auto *r = new KernelRegistry();
    registerAllKernels(*r);
    return r;
  }();
  return registry->lookup(opName) != nullptr;
}
