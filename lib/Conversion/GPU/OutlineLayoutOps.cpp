//===- OutlineLayoutOps.cpp - Layout ops as kernels of their own ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOUTLINELAYOUTOPS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct KilnOutlineLayoutOpsPass
    : public mlir::kiln::impl::KilnOutlineLayoutOpsBase<
          KilnOutlineLayoutOpsPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> graphs;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && !kernelKindOf(fn))
        graphs.push_back(fn);
    SymbolTable symbols(getOperation());
    for (func::FuncOp fn : graphs)
      outline(fn, symbols);
  }

  void outline(func::FuncOp fn, SymbolTable &symbols) {
    SmallVector<Operation *> ops;
    for (Operation &op : fn.getBody().front())
      if (isa<PermuteOp, SliceOp, FlipOp>(op))
        ops.push_back(&op);
    OpBuilder b(&getContext());
    for (auto [i, op] : llvm::enumerate(ops)) {
      Location loc = op->getLoc();
      b.setInsertionPoint(fn);
      auto kernel = func::FuncOp::create(
          b, loc, (fn.getName() + "_layout" + Twine(i)).str(),
          b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
      kernel.setPrivate();
      setKernelKind(kernel, KernelKind::Generic);
      symbols.insert(kernel);
      Block *body = kernel.addEntryBlock();
      b.setInsertionPointToEnd(body);
      IRMapping map;
      map.map(op->getOperands(), body->getArguments());
      Operation *clone = b.clone(*op, map);
      func::ReturnOp::create(b, loc, clone->getResults());
      b.setInsertionPoint(op);
      auto call = func::CallOp::create(b, loc, kernel, op->getOperands());
      op->replaceAllUsesWith(call.getResults());
      op->erase();
    }
  }
};

} // namespace
