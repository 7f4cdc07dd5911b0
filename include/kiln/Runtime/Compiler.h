//===- Compiler.h - Compiling a kiln module for a backend -------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_COMPILER_H
#define KILN_RUNTIME_COMPILER_H

#include "kiln/Runtime/Backend.h"

#include "mlir/IR/BuiltinOps.h"

namespace kiln::detail {

/// Runs the passes every backend shares (autodiff, checkpointing,
/// decomposition, canonicalization) on function @main of `module`, then the
/// backend's own pipeline, and compiles it. `key` names the graph for caches
/// that outlive the process; `ops` is only reported in KILN_LOG=compile.
/// Throws kiln::Error with the diagnostics on failure.
std::unique_ptr<Executable> compileModule(mlir::ModuleOp module,
                                          Backend &backend,
                                          const std::string &key,
                                          size_t ops = 0);

} // namespace kiln::detail

#endif // KILN_RUNTIME_COMPILER_H
