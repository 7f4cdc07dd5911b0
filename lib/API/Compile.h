//===- Compile.h - From a subgraph to an executable -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The MLIR half of materialization, kept in one translation unit so that the
// rest of the API compiles without MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_API_COMPILE_H
#define KILN_LIB_API_COMPILE_H

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/Engine.h"

#include <memory>
#include <string>

namespace kiln::detail {

/// Builds the kiln module of `graph`, runs the common passes and the
/// backend's pipeline, and compiles it. Throws kiln::Error on failure.
/// `donated` (empty, or one flag per leaf) names the inputs whose buffers
/// the run gives up, for the checkpointing plan's model of memory.
std::unique_ptr<Executable>
compileSubgraph(const Subgraph &graph, Backend &backend, const std::string &key,
                const std::vector<bool> &donated = {});

} // namespace kiln::detail

#endif // KILN_LIB_API_COMPILE_H
