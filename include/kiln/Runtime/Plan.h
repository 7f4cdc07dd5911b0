//===- Plan.h - A compiled graph's steps over buffer slots ------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every backend runs a compiled graph as one plan: numbered buffer slots
// (the arguments first, then constants and each step's results) and steps
// that read slots and fill new ones. Which step is which is the backend's
// business (`kind` and `index` point into its own tables: host ops, kernel
// calls, launches); where each buffer dies is the plan's, computed once by
// PlanBuilder, and runPlan frees every buffer right after its last reader.
//
//   PlanBuilder b(/*numArgs=*/2);
//   int c = b.constant(0);
//   std::vector<int> r = b.step(kKernel, 0, {0, c}, /*numResults=*/1);
//   Plan plan = b.finish({r[0]}); // slots 0 and c die at that step
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLAN_H
#define KILN_RUNTIME_PLAN_H

#include "kiln/Runtime/Buffer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

namespace kiln::detail {

struct PlanStep {
  int kind = 0;  ///< the backend's kind of step
  int index = 0; ///< into the backend's table of that kind
  std::vector<int> operands, results;
  /// Slots whose last reader is this step (never a result of the plan).
  std::vector<int> dying;
};

struct Plan {
  int numArgs = 0, numSlots = 0;
  std::vector<PlanStep> steps;
  /// (slot, index into the artifact's constants).
  std::vector<std::pair<int, int>> constants;
  std::vector<int> resultSlots;
};

/// Numbers the slots of a plan as its steps are added, and computes which
/// slots die where when it is finished.
class PlanBuilder {
public:
  explicit PlanBuilder(int numArgs);
  /// A slot for constant `index` of the artifact.
  int constant(int index);
  /// Adds a step reading `operands` (slots) and returns the slots of its
  /// `numResults` results.
  std::vector<int> step(int kind, int index, std::vector<int> operands,
                        int numResults);
  /// The plan returning `resultSlots`; the builder is spent.
  Plan finish(std::vector<int> resultSlots);

private:
  Plan plan_;
};

/// What a step of a running plan sees.
struct StepRun {
  const PlanStep &step;
  llvm::ArrayRef<const Buffer *> operands;
  llvm::MutableArrayRef<Buffer> results;
  /// Every slot: which buffers are still held (for in-place reuse).
  llvm::ArrayRef<Buffer> slots;
};

/// Runs `plan` on `args` (cleared: the plan owns them now, so that a
/// donated input's storage can die at its last reader) with the constant
/// buffers `constants`: `runStep(const StepRun &)` fills each step's
/// results. Returns the plan's results; counts every step in `executed`.
template <typename RunStep>
std::vector<Buffer> runPlan(const Plan &plan, std::vector<Buffer> &args,
                            const std::vector<Buffer> &constants,
                            std::atomic<int64_t> &executed, RunStep &&runStep) {
  std::vector<Buffer> slots(plan.numSlots);
  for (size_t i = 0; i < args.size() && i < slots.size(); ++i)
    slots[i] = std::move(args[i]);
  args.clear();
  for (const auto &[slot, index] : plan.constants)
    slots[slot] = constants[index];
  // Reused across steps: a step allocates only its results.
  llvm::SmallVector<const Buffer *, 4> operands;
  std::vector<Buffer> results;
  for (const PlanStep &s : plan.steps) {
    operands.clear();
    for (int slot : s.operands)
      operands.push_back(&slots[slot]);
    results.assign(s.results.size(), Buffer());
    runStep(StepRun{s, operands, results, slots});
    executed.fetch_add(1, std::memory_order_relaxed);
    for (int slot : s.dying)
      slots[slot] = Buffer();
    for (size_t i = 0; i < s.results.size(); ++i)
      slots[s.results[i]] = std::move(results[i]);
  }
  std::vector<Buffer> out;
  out.reserve(plan.resultSlots.size());
  for (int slot : plan.resultSlots)
    out.push_back(slots[slot]);
  return out;
}

} // namespace kiln::detail

#endif // KILN_RUNTIME_PLAN_H
