//===- CPUPipeline.h - From fused kiln graphs to CPU code -------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the Cpu backend runs on the kernels that the graph pipeline formed
// (--kiln-graph-pipeline=target=cpu), as two registered pipelines, so that
// tensor-opt reproduces it:
//
//   --kiln-cpu-pipeline       kernel generation: the kernels become phase
//                             functions (--kiln-generate-kernels); the graph
//                             function that calls them stays (the runtime
//                             builds its plan from it);
//   --kiln-cpu-lower-to-llvm  the phase functions alone, lowered to the
//                             LLVM dialect (what the JIT compiles).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_CPUPIPELINE_H
#define KILN_CONVERSION_CPUPIPELINE_H

#include "kiln/Support/KernelAbi.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::kiln {

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector registers the micro-kernels target (256 or "
                     "512); 0 asks the host"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> streamStores{
      *this, "stream-stores",
      llvm::cl::desc("Large outputs with non-temporal stores: 1 yes, 0 no, "
                     "-1 asks the host"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> genericDynamicMatmuls{
      *this, "generic-dynamic-matmuls",
      llvm::cl::desc("A matmul with dynamic dims the tiled generator does "
                     "not take runs as linalg loops (else an error)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Go on with --kiln-cpu-lower-to-llvm"),
      llvm::cl::init(false)};
};

/// --kiln-cpu-pipeline.
void buildKilnCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);
/// --kiln-cpu-lower-to-llvm.
void buildKilnCPULowerToLLVMPipeline(OpPassManager &pm);
void registerKilnCPUPipelines();

/// Whether large outputs are streamed on this host (not on AMD Zen cores,
/// where plain stores measured faster).
bool streamStoresOnHost();

/// The runtime functions generated code calls (the Cpu backend defines
/// them; kiln/Support/KernelAbi.h).
using ::kiln::abi::kStreamFenceFn;
using ::kiln::abi::kStreamStoreFn;

} // namespace mlir::kiln

#endif // KILN_CONVERSION_CPUPIPELINE_H
