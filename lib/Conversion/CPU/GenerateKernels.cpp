//===- GenerateKernels.cpp - The --kiln-generate-kernels pass -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each kernel that --kiln-fuse outlined goes to the generator of its kind
// (Elementwise.cpp, Reduction.cpp, Matmul.cpp) and, for shapes those do not
// cover, to the linalg path (Generic.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KernelGen.h"
#include "kiln/Conversion/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/TargetParser/Host.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGENERATEKERNELS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

namespace {

/// Whether any argument or result of `kernel` has a dynamic dim.
bool hasDynamicDims(func::FuncOp kernel) {
  auto dynamic = [](Type t) {
    auto ranked = llvm::dyn_cast<RankedTensorType>(t);
    return ranked && !ranked.hasStaticShape();
  };
  return llvm::any_of(kernel.getArgumentTypes(), dynamic) ||
         llvm::any_of(kernel.getResultTypes(), dynamic);
}

struct KilnGenerateKernelsPass
    : public mlir::kiln::impl::KilnGenerateKernelsBase<
          KilnGenerateKernelsPass> {
  using KilnGenerateKernelsBase::KilnGenerateKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kKernelKindAttr))
        kernels.push_back(fn);
    bool stream = streamStores < 0 ? streamStoresOnHost() : streamStores > 0;
    for (func::FuncOp k : kernels) {
      KernelKind kind = *kernelKindOf(k);
      // The kernel ABI passes flat buffers: every argument and result must
      // be a ranked tensor (a dynamic size as an `index` argument is not).
      auto notATensor = [](Type t) { return !llvm::isa<RankedTensorType>(t); };
      if (llvm::any_of(k.getArgumentTypes(), notATensor) ||
          llvm::any_of(k.getResultTypes(), notATensor)) {
        k.emitError() << "kiln-generate-kernels: the "
                      << stringifyKernelKind(kind) << " kernel @" << k.getName()
                      << " takes or returns a value that is not a ranked "
                         "tensor; kernels take tensors only";
        return signalPassFailure();
      }
      LogicalResult ok = failure();
      if (kind == KernelKind::Elementwise)
        ok = generateElementwise(k, module, stream);
      else if (kind == KernelKind::Reduction)
        ok = generateReduction(k, module, stream);
      else if (kind == KernelKind::Matmul)
        ok = generateMatmul(k, module, MatmulTiling::forVectorBits(vectorBits));
      else
        ok = generateGeneric(k, module);
      // A shape the dedicated generators do not cover (a partial broadcast
      // inside a row, dynamic dims, ...) still runs, through linalg; but a
      // matmul as naive loops is so slow that the caller may say no.
      if (failed(ok) && kind == KernelKind::Matmul && !genericDynamicMatmuls &&
          hasDynamicDims(k)) {
        k.emitError() << "kiln-generate-kernels: the matmul kernel @"
                      << k.getName()
                      << " has dynamic dims that the tiled generator does "
                         "not take (it takes a dynamic M, rows [S, T] of a "
                         "B without batch dims, a leading batch dim S, or "
                         "the K of a weight's gradient); compile it for "
                         "static sizes";
        return signalPassFailure();
      }
      if (failed(ok) && kind != KernelKind::Generic)
        ok = generateGeneric(k, module);
      if (failed(ok)) {
        k.emitError() << "kiln-generate-kernels: cannot generate the "
                      << stringifyKernelKind(kind) << " kernel @"
                      << k.getName();
        return signalPassFailure();
      }
    }
    if (failed(
            lowerGenericKernels(module, [&](OpPassManager &pm, Operation *op) {
              return runPipeline(pm, op);
            })))
      return signalPassFailure();
    // Callers of the templates (the graph function) are the runtime's
    // business; the templates themselves are no longer needed when nothing
    // calls them.
    for (func::FuncOp k : kernels)
      if (k.symbolKnownUseEmpty(module))
        k.erase();
  }
};

} // namespace
