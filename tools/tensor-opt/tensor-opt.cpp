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
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::kiln::registerKilnPasses();
  mlir::kiln::registerKilnConversionPasses();
  mlir::kiln::registerKilnGraphPipeline();
  mlir::kiln::registerKilnCPUPipelines();
  mlir::kiln::registerKilnGPUPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::kiln::KilnDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR for PTX.
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
