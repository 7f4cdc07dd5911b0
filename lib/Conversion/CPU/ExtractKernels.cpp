//===- ExtractKernels.cpp - Keep only the generated phase functions -------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNEXTRACTKERNELS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct KilnExtractKernelsPass
    : public mlir::kiln::impl::KilnExtractKernelsBase<KilnExtractKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The phases and whatever they call (a generic kernel's implementation,
    // runtime functions) stay.
    llvm::SmallPtrSet<Operation *, 16> live;
    SmallVector<Operation *> work;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kPhaseAttr) && live.insert(fn).second)
        work.push_back(fn);
    while (!work.empty()) {
      Operation *fn = work.pop_back_val();
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(fn);
      if (!uses)
        continue;
      for (const SymbolTable::SymbolUse &use : *uses)
        if (Operation *callee = SymbolTable::lookupSymbolIn(
                module, use.getSymbolRef().getRootReference()))
          if (live.insert(callee).second)
            work.push_back(callee);
    }
    SmallVector<func::FuncOp> dead;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!live.count(fn))
        dead.push_back(fn);
    for (func::FuncOp fn : dead)
      fn.erase();
  }
};

} // namespace
