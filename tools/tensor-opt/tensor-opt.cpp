//===- tensor-opt.cpp - The kiln optimizer driver -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt over the kiln dialect, Kiln's passes, and the upstream dialects
// and passes that Kiln's pipelines use.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Conversion/GPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Support/Nesting.h"
#include "kiln/Target/Target.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::kiln::registerKilnPasses();
  mlir::kiln::registerKilnConversionPasses();
  kiln::detail::registerKilnGraphPipeline();
  mlir::kiln::registerKilnCPUPipelines();
  mlir::kiln::registerKilnGPUPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::kiln::KilnDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR for PTX.
  mlir::registerAllToLLVMIRTranslations(registry);

  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Kiln optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // The parser recurses once per nested region, type or attribute: a file
  // nested deeper than any real graph would overflow its stack.
  if (std::optional<kiln::TextPosition> at =
          kiln::findDeepNesting(file->getBuffer())) {
    llvm::errs() << file->getBufferIdentifier() << ":" << at->line << ":"
                 << at->column << ": error: nesting deeper than "
                 << kiln::kMaxNesting
                 << " levels of brackets; tensor-opt does not parse it\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return 1;
  out->keep();
  return 0;
}
