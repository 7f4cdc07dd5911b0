//===- Passes.h - Conversions out of the kiln dialect -----------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_PASSES_H
#define KILN_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/Passes.h.inc"

/// Whether --kiln-generate-kernels writes outputs of 16 MiB or more made by
/// light ops with non-temporal stores when its stream-stores option leaves
/// it to the host: KILN_STREAM_STORES=0 or 1 when set, otherwise yes except
/// on AMD Zen cores. The Cpu backend's cache key includes the answer.
} // namespace mlir::kiln

#endif // KILN_CONVERSION_PASSES_H
