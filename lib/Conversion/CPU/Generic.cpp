//===- Generic.cpp - Kernels through linalg -------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Ops without a dedicated generator (gather, scatter, convolution, pooling,
// cumsum, ...) go through --convert-kiln-to-linalg, one-shot bufferization
// with outputs as out-parameters, and linalg-to-loops. A phase function with
// the flat kernel ABI reinterprets the flat buffers with their shapes and
// calls the bufferized function. The generic path runs as one work unit.
// Indexing ops check their indices (the pass's index-checks option): the
// Cpu runtime provides kBadIndexFn.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KernelGen.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

/// Marks a template whose phases the linalg path still has to make; it
/// never leaves --kiln-generate-kernels.
static constexpr llvm::StringLiteral kPendingAttr = "kiln.generic_pending";

void kernelgen::buildGenericKernelPipeline(OpPassManager &pm) {
  ConvertKilnToLinalgOptions lower;
  lower.indexChecks = true;
  pm.addPass(createConvertKilnToLinalg(lower));
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A result's buffer is the caller's out-parameter itself, not a
  // temporary copied into it at the end.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.hoistDynamicAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
}

void kernelgen::buildGenericLoopsPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
}

/// memref.copy between strided views (a concat's pieces over a dynamic
/// dim) lowers to a runtime call that copies element by element; as a
/// linalg.copy it becomes loops, which LLVM vectorizes.
static void copiesAsLinalg(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  module.walk([&](memref::CopyOp c) {
    auto from = llvm::dyn_cast<MemRefType>(c.getSource().getType());
    auto to = llvm::dyn_cast<MemRefType>(c.getTarget().getType());
    if (from && to &&
        !(from.getLayout().isIdentity() && to.getLayout().isIdentity()))
      copies.push_back(c);
  });
  for (memref::CopyOp c : copies) {
    OpBuilder b(c);
    linalg::CopyOp::create(b, c.getLoc(), c.getSource(), c.getTarget());
    c.erase();
  }
}

LogicalResult kernelgen::generateGeneric(func::FuncOp tmpl, ModuleOp module) {
  (void)module;
  // The pass runs the linalg pipeline; see lowerGenericKernels.
  tmpl->setAttr(kPendingAttr, UnitAttr::get(tmpl.getContext()));
  return success();
}

LogicalResult kernelgen::lowerGenericKernels(
    ModuleOp module,
    function_ref<LogicalResult(OpPassManager &, Operation *)> runPipeline) {
  SmallVector<func::FuncOp> pending;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn->hasAttr(kPendingAttr))
      pending.push_back(fn);
  for (func::FuncOp tmpl : pending) {
    OpBuilder b(tmpl.getContext());
    Location loc = tmpl.getLoc();
    Abi abi = abiOf(tmpl, false);

    // Lower a copy in a nested module.
    b.setInsertionPointToEnd(module.getBody());
    auto nested = ModuleOp::create(b, loc);
    b.setInsertionPointToEnd(nested.getBody());
    auto impl = llvm::cast<func::FuncOp>(b.clone(*tmpl));
    impl->removeAttr(kPendingAttr);
    impl.setPrivate();
    std::string implName = (tmpl.getName() + "__impl").str();
    impl.setName(implName);
    // Inputs are the caller's buffers, which views and other kernels may
    // still read: bufferization must copy before writing, never write
    // them in place.
    for (unsigned i = 0; i < impl.getNumArguments(); ++i)
      impl.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
    OpPassManager pm(ModuleOp::getOperationName()),
        loops(ModuleOp::getOperationName());
    buildGenericKernelPipeline(pm);
    buildGenericLoopsPipeline(loops);
    bool lowered = succeeded(runPipeline(pm, nested));
    if (lowered) {
      copiesAsLinalg(nested);
      lowered = succeeded(runPipeline(loops, nested));
    }
    if (!lowered) {
      nested.erase();
      return tmpl.emitError() << "the generic lowering of @" << tmpl.getName()
                              << " failed";
    }
    impl = nested.lookupSymbol<func::FuncOp>(implName);
    // Bufferized constants became globals next to impl: move them along,
    // renamed after the kernel so that kernels never share a name.
    SmallVector<Operation *> globals;
    for (Operation &op : nested.getBody()->getOperations())
      if (&op != impl.getOperation())
        globals.push_back(&op);
    for (Operation *g : globals) {
      auto sym = g->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      // A runtime function (kBadIndexFn) is declared once, by its own name.
      if (auto decl = llvm::dyn_cast<func::FuncOp>(g);
          decl && decl.isExternal()) {
        decl->remove();
        if (module.lookupSymbol(decl.getSymName())) {
          decl->destroy();
        } else {
          b.setInsertionPoint(tmpl);
          b.insert(decl);
        }
        continue;
      }
      if (sym) {
        std::string unique = (tmpl.getName() + "__" + sym.getValue()).str();
        if (failed(SymbolTable::replaceAllSymbolUses(
                g, b.getStringAttr(unique), impl)))
          return tmpl.emitError() << "cannot rename " << sym.getValue();
        SymbolTable::setSymbolName(g, unique);
      }
      g->remove();
      b.setInsertionPoint(tmpl);
      b.insert(g);
    }
    impl->remove();
    b.setInsertionPoint(tmpl);
    b.insert(impl);
    impl.setPrivate();
    nested.erase();

    // The phase: reinterpret the flat buffers and call.
    func::FuncOp fn = createPhase(b, module, tmpl, 0, abi, 1, 1);
    Block &entry = fn.getBody().front();
    b.setInsertionPoint(entry.getTerminator());
    FunctionType implType = impl.getFunctionType();
    if (implType.getNumInputs() != abi.args.size() - (abi.hasSizes ? 1 : 0) ||
        implType.getNumResults() != 0) {
      fn.erase();
      return tmpl.emitError() << "the generic lowering of @" << tmpl.getName()
                              << " has an unexpected signature";
    }
    // Dynamic dims are S, read from the sizes argument; strides follow.
    Value s = abi.hasSizes ? dynamicSize(b, loc, entry, abi) : Value();
    SmallVector<Value> args;
    for (auto [i, t] : llvm::enumerate(implType.getInputs())) {
      auto shaped = llvm::dyn_cast<MemRefType>(t);
      if (!shaped || !shaped.getLayout().isIdentity() ||
          (!shaped.hasStaticShape() && !s)) {
        fn.erase();
        return tmpl.emitError()
               << "the generic lowering of @" << tmpl.getName()
               << " takes a buffer that is not a row-major memref";
      }
      SmallVector<OpFoldResult> sizes, strides(shaped.getRank());
      for (int64_t d = 0; d < shaped.getRank(); ++d)
        sizes.push_back(shaped.isDynamicDim(d) ? OpFoldResult(s)
                                               : OpFoldResult(b.getIndexAttr(
                                                     shaped.getDimSize(d))));
      OpFoldResult stride = b.getIndexAttr(1);
      for (int64_t d = shaped.getRank() - 1; d >= 0; --d) {
        strides[d] = stride;
        if (d == 0)
          break;
        std::optional<int64_t> a = getConstantIntValue(stride),
                               n = getConstantIntValue(sizes[d]);
        if (a && n)
          stride = b.getIndexAttr(*a * *n);
        else
          stride = arith::MulIOp::create(
                       b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                       getValueOrCreateConstantIndexOp(b, loc, sizes[d]))
                       .getResult();
      }
      Value flat = entry.getArgument(2 + i);
      args.push_back(memref::ReinterpretCastOp::create(
          b, loc, shaped, flat, b.getIndexAttr(0), sizes, strides));
    }
    func::CallOp::create(b, loc, impl, args);
  }
  return success();
}
