//===- MLIRContext.h - Contexts and types for runtime compiles --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_MLIRCONTEXT_H
#define KILN_RUNTIME_MLIRCONTEXT_H

#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <vector>

namespace kiln::detail {

/// A single-threaded context with every dialect Kiln's pipelines use.
std::unique_ptr<mlir::MLIRContext> createContext();

} // namespace kiln::detail

#endif // KILN_RUNTIME_MLIRCONTEXT_H
