//===- GPUPipeline.cpp - From fused kernels to PTX ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUPipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Support/Env.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::kiln;

std::string mlir::kiln::ptxFeaturesFor(llvm::StringRef chip) {
  unsigned sm = 0;
  if (chip.starts_with("sm_"))
    (void)chip.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, sm);
  // PTX 8.0 (CUDA 12.0) covers sm_90 and everything before it; newer chips
  // need the ISA that introduced them.
  return sm >= 100 ? "+ptx86" : "+ptx80";
}

void mlir::kiln::buildKilnGPUKernelsToPTXPipeline(
    OpPassManager &pm, const GPUToPTXOptions &options) {
  pm.addPass(createGpuKernelOutliningPass());
  // f64 transcendentals become libdevice calls (__nv_log, ...), which
  // gpu-module-to-binary links from the CUDA toolkit it finds through
  // CUDA_ROOT. The upstream pipeline has no option for it, so point the
  // variable at the usual install when the user has not set one.
  (void)::kiln::env::cudaToolkit();
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features.empty()
                           ? ptxFeaturesFor(options.chip)
                           : std::string(options.features);
  // PTX text: the driver compiles it for the GPU it runs on.
  nvvm.cubinFormat = "isa";
  nvvm.optLevel = options.optLevel;
  // Kernel parameters are the buffers' pointers, nothing else.
  nvvm.kernelUseBarePtrCallConv = true;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

void mlir::kiln::buildKilnGPUToPTXPipeline(OpPassManager &pm,
                                           const GPUToPTXOptions &options) {
  KilnGenerateGPUKernelsOptions gen;
  gen.chip = options.chip;
  gen.mma = options.mma;
  gen.keepGraph = false;
  pm.addPass(createKilnGenerateGPUKernels(gen));
  buildKilnGPUKernelsToPTXPipeline(pm, options);
}

void mlir::kiln::registerKilnGPUPipelines() {
  PassPipelineRegistration<GPUToPTXOptions>(
      "kiln-gpu-kernels-to-ptx",
      "Outline the launches of --kiln-generate-gpu-kernels and lower them "
      "to PTX (gpu-kernel-outlining, gpu-lower-to-nvvm-pipeline with "
      "cubin-format=isa and bare-pointer kernels)",
      buildKilnGPUKernelsToPTXPipeline);
  PassPipelineRegistration<GPUToPTXOptions>(
      "kiln-gpu-to-ptx",
      "Generate GPU kernels from fused kernel templates and lower them to "
      "PTX (--kiln-generate-gpu-kernels, then kiln-gpu-kernels-to-ptx)",
      buildKilnGPUToPTXPipeline);
}

std::vector<std::pair<std::string, std::string>>
mlir::kiln::collectPTX(ModuleOp module) {
  std::vector<std::pair<std::string, std::string>> out;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects())
      if (auto object = llvm::dyn_cast<gpu::ObjectAttr>(a))
        if (object.getFormat() == gpu::CompilationTarget::Assembly)
          out.push_back({binary.getName().str(), object.getObject().str()});
  });
  return out;
}
