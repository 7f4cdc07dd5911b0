//===- MlirFuzzer.cpp - Parser, verifier and pipeline under libFuzzer -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes as a kiln module, the way tensor-opt and tensor-run take one:
// the nesting limit, the parser, the verifier and then, for a module of
// functions of kiln ops that verifies, the Cpu backend's passes up to
// kernel generation (--kiln-graph-pipeline=target=cpu, --kiln-cpu-pipeline).
// Each step may reject the input with a diagnostic; none may crash.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Support/Nesting.h"
#include "kiln/Target/Target.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <string_view>

static mlir::MLIRContext *context() {
  static mlir::MLIRContext *ctx = [] {
    // The generic kernels' pipeline names upstream passes.
    mlir::registerAllPasses();
    mlir::kiln::registerKilnPasses();
    mlir::kiln::registerKilnConversionPasses();
    kiln::detail::registerKilnGraphPipeline();
    mlir::kiln::registerKilnCPUPipelines();
    mlir::DialectRegistry registry;
    registry.insert<mlir::kiln::KilnDialect>();
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    auto *c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    c->disableMultithreading();
    // Diagnostics are expected: drop them.
    c->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return c;
  }();
  return ctx;
}

/// A module of functions whose bodies hold only kiln ops and returns: what
/// the engine builds and the backends take.
static bool isKilnGraph(mlir::ModuleOp module) {
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    auto fn = llvm::dyn_cast<mlir::func::FuncOp>(op);
    if (!fn || fn.isExternal())
      return false;
    bool ok = true;
    fn.walk([&](mlir::Operation *inner) {
      if (inner == fn.getOperation() || llvm::isa<mlir::func::ReturnOp>(inner))
        return;
      if (inner->getDialect() == nullptr ||
          inner->getDialect()->getNamespace() != "kiln" ||
          inner->getNumRegions() != 0)
        ok = false;
    });
    if (!ok)
      return false;
  }
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (kiln::findDeepNesting(text))
    return 0; // the tools reject it before parsing
  mlir::MLIRContext *ctx = context();
  mlir::ParserConfig config(ctx);
  // As the tools read a file: a null-terminated buffer (the lexer relies
  // on the terminator).
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(text.data(), text.size()), "input.mlir"),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, config);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  if (!isKilnGraph(*module))
    return 0;
  mlir::PassManager pm(ctx);
  if (mlir::failed(mlir::parsePassPipeline(
          "kiln-graph-pipeline{target=cpu},kiln-cpu-pipeline", pm)))
    __builtin_trap();
  (void)pm.run(*module);
  return 0;
}
