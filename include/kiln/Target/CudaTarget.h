//===- CudaTarget.h - The Cuda target without a GPU -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_CUDATARGET_H
#define KILN_TARGET_CUDATARGET_H

#include "kiln/Target/Target.h"

#include <memory>
#include <string>

namespace kiln::detail {

/// The Cuda target for chip `chip` ("sm_90"), f32 matmuls on the tensor
/// cores when `mma`: what the device's target is, made without a GPU (for
/// tests, which compile every graph of the GPU lit tests on any machine).
std::unique_ptr<Target> createCudaTarget(const std::string &chip, bool mma);

} // namespace kiln::detail

#endif // KILN_TARGET_CUDATARGET_H
