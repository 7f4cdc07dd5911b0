//===- DedupeKernels.cpp - One copy of identical outlined kernels ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Two kernels are the same when their functions print the same under one
// name: signature, attributes, constants and body. The comparison is of the
// whole text, so two different kernels are never merged.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Transforms/Fusion.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDEDUPEKERNELS
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// `fn` printed under a fixed name.
std::string textOf(func::FuncOp fn) {
  StringAttr name = fn.getSymNameAttr();
  fn.setSymName("kernel");
  std::string text;
  llvm::raw_string_ostream os(text);
  fn->print(os, OpPrintingFlags().useLocalScope());
  fn.setSymNameAttr(name);
  return text;
}

struct KilnDedupeKernelsPass
    : public mlir::kiln::impl::KilnDedupeKernelsBase<KilnDedupeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<func::FuncOp> firstOfText;
    // Each copy and the name of the first kernel of its text.
    SmallVector<std::pair<func::FuncOp, StringAttr>> copies;
    // The functions that call kernels (kernels call none).
    SmallVector<func::FuncOp> callers;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      if (!fn->hasAttr(kKernelKindAttr)) {
        callers.push_back(fn);
        continue;
      }
      auto [it, inserted] = firstOfText.try_emplace(textOf(fn), fn);
      if (!inserted)
        copies.push_back({fn, it->second.getSymNameAttr()});
    }
    // Every use of a copy's symbol (the calls) names the first instead.
    for (auto [copy, first] : copies) {
      for (func::FuncOp caller : callers)
        if (failed(SymbolTable::replaceAllSymbolUses(copy, first, caller)))
          return signalPassFailure();
      copy.erase();
    }
  }
};

} // namespace
