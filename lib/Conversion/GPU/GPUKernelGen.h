//===- GPUKernelGen.h - Kiln's GPU kernel generator -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Shared pieces of the GPU generators: the host function that holds a
// kernel's launches, launch and loop builders, and the block-wide
// reduction. The kiln ops themselves are emitted by the CPU generator's
// Evaluator (kiln/Conversion/KernelGen.h), so both backends compute the same
// arithmetic.
//
// A launch captures nothing but the host function's arguments (flat static
// buffers) and constants: after gpu-kernel-outlining every kernel parameter
// is then one buffer pointer, which is all the runtime passes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_GPU_GPUKERNELGEN_H
#define KILN_LIB_CONVERSION_GPU_GPUKERNELGEN_H

#include "kiln/Conversion/KernelGen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::kiln::gpugen {

// A host function carries the kernel contract's kiln.kernel_of (the
// template it was generated from) and kiln.workspace (the bytes of device
// workspace it needs).
/// Suffix of a host function's name.
constexpr const char kHostSuffix[] = "__gpu";

/// Threads per block of the one-dimensional kernels.
constexpr int64_t kBlockSize = 256;
/// At most this many blocks; grid-stride loops cover the rest.
constexpr int64_t kMaxBlocks = 16384;
/// Byte alignment of every buffer the runtime passes (cuMemAlloc gives 256).
constexpr int64_t kBufferAlignment = 16;

struct Options {
  int64_t sm = 80; ///< compute capability, e.g. 80 for sm_80
  bool mma = true;
  bool useMma() const { return mma && sm >= 80; }
};

/// The host function of a kernel: `@<tmpl>__gpu(inputs..., outputs...,
/// [workspace])`, every argument a 1-D static memref.
struct HostFunction {
  func::FuncOp fn;
  SmallVector<Value> inputs;  ///< per ABI slot (quantized: values, scales)
  SmallVector<Value> outputs; ///< per ABI slot
  Value workspace;            ///< memref<Nxi8>, or null
  /// ABI slot of each template argument (a quantized one takes two).
  SmallVector<unsigned> slotOf;
};

/// Creates the host function of `tmpl` before `tmpl`, with an empty body
/// ending in `return`. `workspaceBytes` > 0 adds the workspace argument.
HostFunction createHostFunction(OpBuilder &b, func::FuncOp tmpl,
                                int64_t workspaceBytes);

/// The number of elements of a static shape.
int64_t numElements(ArrayRef<int64_t> shape);

/// A gpu.launch with constant sizes, inserted before the host function's
/// return. The builder is left inside the body, before its terminator.
gpu::LaunchOp createLaunch(OpBuilder &b, HostFunction &host,
                           std::array<int64_t, 3> grid,
                           std::array<int64_t, 3> block);

/// Blocks for `units` units of `perBlock` each, capped at kMaxBlocks.
int64_t blocksFor(int64_t units, int64_t perBlock);

/// The flat thread index and the grid-stride loop over [0, total) of a 1-D
/// launch; the builder is left in the loop body.
scf::ForOp gridStrideLoop(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                          int64_t total);

/// Reduces `value` (one per thread) over the block with `combine`: a
/// butterfly of shuffles inside each warp, then every thread combines the
/// warps' partials, left in `scratch` (workgroup memory of one element per
/// warp), in warp order. Every thread gets the same, deterministic result.
/// `threadId` is the flat thread index; `blockSize` a multiple of 32.
Value blockReduce(OpBuilder &b, Location loc, Value value, Value threadId,
                  int64_t blockSize, Value scratch,
                  function_ref<Value(Value, Value)> combine);

/// A workgroup (shared memory) buffer of the launch.
Value addSharedBuffer(gpu::LaunchOp launch, Type element, int64_t size);

/// Loads and stores with the alignment a V-lane vector of `element` has at
/// an offset that is a multiple of V.
Value loadVector(OpBuilder &b, Location loc, Value buffer, Value offset,
                 int64_t lanes);
void storeVector(OpBuilder &b, Location loc, Value value, Value buffer,
                 Value offset);

/// The generators. Each adds a host function for `tmpl` or fails (leaving
/// the module as it was) when the template is not its kind.
LogicalResult generateElementwise(func::FuncOp tmpl, const Options &options);
LogicalResult generateReduction(func::FuncOp tmpl, const Options &options);
LogicalResult generateMatmul(func::FuncOp tmpl, const Options &options);
/// Lowers `tmpl` through linalg (running `pipeline` on a nested module
/// through `runPipeline`) and maps its parallel loops to launches.
LogicalResult generateGeneric(
    func::FuncOp tmpl,
    function_ref<LogicalResult(OpPassManager &, Operation *)> runPipeline);

/// Replaces math ops that the NVVM lowering would send to libdevice: f32
/// transcendentals by polynomial approximations, sqrt/fabs/floor/ceil/trunc/
/// roundeven/fma/copysign by LLVM intrinsics (native PTX instructions).
LogicalResult lowerMathForNVVM(Operation *root);

} // namespace mlir::kiln::gpugen

#endif // KILN_LIB_CONVERSION_GPU_GPUKERNELGEN_H
