//===- CudaProgram.h - The Cuda backend's part of an artifact ---*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the Cuda target (lib/Target/Cuda) writes into an artifact's payload
// and the Cuda backend (lib/Runtime/Cuda) runs: each fused kernel's
// launches (which PTX function, the grid, and which of the kernel's
// buffers each launch is passed), its output types and shapes and scratch,
// and the PTX modules. A plan step of kind kCudaKernelStep runs kernel
// `index`; host steps are reshapes (a new shape over the same storage) and
// collectives (on NCCL).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CUDAPROGRAM_H
#define KILN_RUNTIME_CUDAPROGRAM_H

#include "kiln/Support/DType.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::detail::cuda {

/// The plan steps that run a kernel of CudaProgram::kernels.
constexpr int kCudaKernelStep = 1;

/// One kernel launch: which kernel, how many threads, and which of the
/// kernel's buffers (ABI slots: inputs, outputs, workspace) it is passed.
struct LaunchSpec {
  std::string module, function;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::vector<int> args;
};

/// A fused kernel: its launches run in order.
struct KernelSpec {
  std::string name;
  std::vector<LaunchSpec> launches;
  int64_t workspaceBytes = 0;
  std::vector<DType> outTypes;
  std::vector<std::vector<int64_t>> outShapes;
};

struct CudaProgram {
  std::vector<KernelSpec> kernels;
  /// (module name, PTX text), one per generated gpu.module.
  std::vector<std::pair<std::string, std::string>> ptx;
};

/// The payload bytes of `p`.
std::string encode(const CudaProgram &p);
/// The program of a payload, or nothing when the bytes are not one.
std::optional<CudaProgram> decodeCudaProgram(std::string_view bytes);

} // namespace kiln::detail::cuda

#endif // KILN_RUNTIME_CUDAPROGRAM_H
