//===- CPUPipeline.cpp - From fused kiln graphs to CPU code ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;
using namespace mlir::kiln;

/// On an Intel Xeon a streamed layernorm ran 2.3x as fast as tensor-bench's
/// hand loop (plain stores); on an AMD Zen 5 core it ran at 0.79-1.01 of
/// the hand loop's speed streamed and 1.02-1.33 with plain stores (four
/// alternating runs). On a Zen 4 core (znver4) streaming wins: ew_chain 9.1
/// ms streamed against 14.4 plain, softmax 7.7 against 9.9, layernorm 3.07
/// against 3.14 (tensor-bench, one thread).
bool mlir::kiln::streamStoresOnHost() {
  return !llvm::StringRef(llvm::sys::getHostCPUName()).starts_with("znver5");
}

void mlir::kiln::buildKilnCPUPipeline(OpPassManager &pm,
                                      const CPUPipelineOptions &options) {
  KilnGenerateKernelsOptions generate;
  generate.vectorBits = options.vectorBits;
  generate.streamStores = options.streamStores;
  generate.genericDynamicMatmuls = options.genericDynamicMatmuls;
  pm.addPass(createKilnGenerateKernels(generate));
  if (options.lowerToLLVM)
    buildKilnCPULowerToLLVMPipeline(pm);
}

void mlir::kiln::buildKilnCPULowerToLLVMPipeline(OpPassManager &pm) {
  // The upstream conversions are named by their flags.
  static std::once_flag once;
  std::call_once(once, [] {
    registerConversionPasses();
    memref::registerMemRefPasses();
  });
  pm.addPass(createKilnExtractKernels());
  pm.addPass(createKilnApproximateMath());
  pm.addPass(createKilnExpandBFloat16());
  const char *toLLVM =
      "func.func(lower-affine),convert-scf-to-cf,convert-math-to-llvm,"
      "convert-math-to-libm,expand-strided-metadata,lower-affine,"
      "finalize-memref-to-llvm,convert-vector-to-llvm,convert-arith-to-llvm,"
      "convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
      "convert-ub-to-llvm,reconcile-unrealized-casts";
  if (failed(parsePassPipeline(toLLVM, pm)))
    llvm::report_fatal_error("kiln: the CPU lowering pipeline does not parse");
}

void mlir::kiln::registerKilnCPUPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "kiln-cpu-pipeline",
      "What the Cpu backend runs on the kernels of "
      "--kiln-graph-pipeline=target=cpu: --kiln-generate-kernels, and with "
      "lower-to-llvm also --kiln-cpu-lower-to-llvm",
      buildKilnCPUPipeline);
  PassPipelineRegistration<>(
      "kiln-cpu-lower-to-llvm",
      "The phase functions of --kiln-generate-kernels alone "
      "(--kiln-extract-kernels), with --kiln-approximate-math and "
      "--kiln-expand-bf16, lowered to the LLVM dialect",
      buildKilnCPULowerToLLVMPipeline);
}
