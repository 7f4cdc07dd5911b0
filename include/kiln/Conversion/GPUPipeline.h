//===- GPUPipeline.h - From fused kernels to PTX ----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The GPU half of the compiler as pipelines that tensor-opt shows and the
// CUDA backend runs: --kiln-generate-gpu-kernels, then gpu-kernel-outlining
// and gpu-lower-to-nvvm-pipeline, which leave one gpu.binary of PTX text per
// kernel launch.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUPIPELINE_H
#define KILN_CONVERSION_GPUPIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::kiln {

struct GPUToPTXOptions : public PassPipelineOptions<GPUToPTXOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The GPU to compile for (sm_NN)"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features; empty picks the PTX ISA the chip needs"),
      llvm::cl::init("")};
  PassOptions::Option<bool> mma{
      *this, "mma", llvm::cl::desc("Tensor cores for f32 matmul (sm_80+)"),
      llvm::cl::init(true)};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level"),
      llvm::cl::init(3)};
};

/// The PTX ISA version the NVPTX backend needs for `chip` ("+ptx80" for
/// sm_90 and older, "+ptx86" for sm_100 and later).
std::string ptxFeaturesFor(llvm::StringRef chip);

/// gpu-kernel-outlining and gpu-lower-to-nvvm-pipeline (PTX text in the
/// gpu.binary, bare-pointer kernel parameters) over generated kernels.
void buildKilnGPUKernelsToPTXPipeline(OpPassManager &pm,
                                      const GPUToPTXOptions &options);

/// --kiln-generate-gpu-kernels followed by the above.
void buildKilnGPUToPTXPipeline(OpPassManager &pm,
                               const GPUToPTXOptions &options);

/// Registers kiln-gpu-kernels-to-ptx and kiln-gpu-to-ptx.
void registerKilnGPUPipelines();

/// The PTX of every gpu.binary of `module`, as (binary name, text).
std::vector<std::pair<std::string, std::string>> collectPTX(ModuleOp module);

} // namespace mlir::kiln

#endif // KILN_CONVERSION_GPUPIPELINE_H
