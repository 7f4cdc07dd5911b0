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

} // namespace kiln::detail

#endif // KILN_RUNTIME_CUDABACKEND_H
