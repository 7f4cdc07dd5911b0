//===- Plan.cpp - A compiled graph's steps over buffer slots --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Plan.h"

using namespace kiln;
using namespace kiln::detail;

PlanBuilder::PlanBuilder(int numArgs) {
  plan_.numArgs = numArgs;
  plan_.numSlots = numArgs;
}

int PlanBuilder::constant(int index) {
  int slot = plan_.numSlots++;
  plan_.constants.push_back({slot, index});
  return slot;
}

std::vector<int> PlanBuilder::step(int kind, int index,
                                   std::vector<int> operands, int numResults) {
  PlanStep s;
  s.kind = kind;
  s.index = index;
  s.operands = std::move(operands);
  for (int i = 0; i < numResults; ++i)
    s.results.push_back(plan_.numSlots++);
  plan_.steps.push_back(std::move(s));
  return plan_.steps.back().results;
}

Plan PlanBuilder::finish(std::vector<int> resultSlots) {
  // A slot dies at its last reader, unless the plan returns it (then the
  // caller holds it). A slot nobody reads is held until the run ends.
  std::vector<int> lastReader(plan_.numSlots, -1);
  for (size_t i = 0; i < plan_.steps.size(); ++i)
    for (int slot : plan_.steps[i].operands)
      lastReader[slot] = static_cast<int>(i);
  std::vector<bool> isResult(plan_.numSlots, false);
  for (int s : resultSlots)
    isResult[s] = true;
  for (int slot = 0; slot < plan_.numSlots; ++slot)
    if (lastReader[slot] >= 0 && !isResult[slot])
      plan_.steps[lastReader[slot]].dying.push_back(slot);
  plan_.resultSlots = std::move(resultSlots);
  return std::move(plan_);
}
