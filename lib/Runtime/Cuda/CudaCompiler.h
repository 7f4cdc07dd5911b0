//===- CudaCompiler.h - From a kiln module to PTX and a plan ----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The MLIR half of the CUDA backend. It fuses the graph, turns @main into a
// plan over buffer slots (kernel calls, reshapes, constants), generates the
// kernels' launches, reads every launch's kernel, grid and arguments from
// the outlined IR, and lowers the kernels to PTX (or takes the PTX from the
// disk cache). It touches no GPU, so it is tested without one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_CUDA_CUDACOMPILER_H
#define KILN_LIB_RUNTIME_CUDA_CUDACOMPILER_H

#include "kiln/Runtime/Buffer.h"
#include "kiln/Support/Collective.h"

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace kiln::detail::cuda {

/// One kernel launch: which kernel, how many threads, and which of the
/// kernel's buffers (ABI slots: inputs, outputs, workspace) it is passed.
struct LaunchSpec {
  std::string module, function;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::vector<int> args;
};

/// A fused kernel: its launches run in order.
struct KernelSpec {
  std::string name, kind;
  std::vector<LaunchSpec> launches;
  int64_t workspaceBytes = 0;
  std::vector<DType> outTypes;
  std::vector<std::vector<int64_t>> outShapes;
};

/// Which part of an all-reduce a step is: its start, its wait, or both
/// (kiln.all_reduce that was not split).
enum class CollectiveStep { None, Start, Wait, Both };

/// One step of the plan: a kernel, a reshape (a new shape over the same
/// contiguous storage), or a collective (run on NCCL).
struct StepSpec {
  int kernel = -1;
  CollectiveStep collective = CollectiveStep::None;
  distributed::ReduceOp reduce = distributed::ReduceOp::Sum;
  std::vector<int64_t> shape; ///< reshapes: the result shape
  std::vector<int> operands, results, dying;
};

struct Program {
  std::vector<KernelSpec> kernels;
  std::vector<StepSpec> steps;
  /// Constants of the graph, in host memory, and their slots.
  std::vector<std::pair<int, Buffer>> constants;
  std::vector<int> resultSlots;
  int numSlots = 0;
  /// (module name, PTX text), one per generated gpu.module.
  std::vector<std::pair<std::string, std::string>> ptx;
  std::string summary;  ///< what the kernels fuse
  std::string cacheId;  ///< the disk cache entry
  bool diskHit = false;
  double mlirMs = 0, llvmMs = 0;
};

/// What the PTX is for.
struct Target {
  std::string chip; ///< sm_NN
  bool mma = true;
};

/// The chip Kiln compiles for on a GPU of compute capability major.minor:
/// the newest one LLVM's NVPTX backend and PTX 8.0 know that the GPU runs.
std::string chipFor(int major, int minor);

/// Compiles function @main of `module`. `key` is the graph's structural
/// key. Constants are built with `hostAllocator`. Throws kiln::Error.
Program compileProgram(mlir::ModuleOp module, const std::string &key,
                       const Target &target, Allocator &hostAllocator);

} // namespace kiln::detail::cuda

#endif // KILN_LIB_RUNTIME_CUDA_CUDACOMPILER_H
