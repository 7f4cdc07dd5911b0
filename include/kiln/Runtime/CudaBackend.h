//===- CudaBackend.h - The CUDA backend -------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CUDABACKEND_H
#define KILN_RUNTIME_CUDABACKEND_H

#include "kiln/Runtime/Backend.h"

namespace kiln::detail {

/// The backend of CUDA GPU `index`: fused kernels generated as PTX, loaded
/// through the CUDA driver (opened at run time, so Kiln needs no CUDA to
/// build or run) and launched on one stream per device. Throws kiln::Error
/// with the reason when the GPU cannot be used here: no driver, no GPU, an
/// index past the last GPU.
Backend &getCudaBackend(int index);
/// Registers getCudaBackend for cuda devices.
void registerCudaBackend();

/// What the Cuda target compiles device `index`'s kernels for: its chip
/// ("sm_90") and whether f32 matmuls use the tensor cores (KILN_CUDA_MMA).
/// Throws as getCudaBackend does.
struct CudaCodeTarget {
  std::string chip;
  bool mma = true;
};
CudaCodeTarget cudaCodeTarget(int index);

namespace cuda {
/// The chip Kiln compiles for on a GPU of compute capability major.minor:
/// the newest one LLVM's NVPTX backend and PTX 8.0 know that the GPU runs
/// (empty: none).
std::string chipFor(int major, int minor);
} // namespace cuda

} // namespace kiln::detail

#endif // KILN_RUNTIME_CUDABACKEND_H
