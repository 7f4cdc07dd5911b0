//===- Compile.h - From a graph to an executable ----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The MLIR half of materialization: the kiln module of a subgraph, the
// graph pipeline every backend's graphs go through, and the backend's own
// compile. Kept apart from Engine.h so that the engine's callers (the API)
// compile without MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_COMPILE_H
#define KILN_ENGINE_COMPILE_H

#include "kiln/Engine/Engine.h"
#include "kiln/Runtime/Backend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::detail {

/// A single-threaded context with every dialect Kiln's pipelines use.
std::unique_ptr<mlir::MLIRContext> createContext();

/// Runs the graph pipeline (--kiln-graph-pipeline with `backend` as its
/// target: autodiff, checkpointing, decomposition, canonicalization,
/// fusion) on function @main of `module`, then compiles it with `backend`.
/// `key` names the graph for caches that outlive the process; `ops` is only
/// reported in KILN_LOG=compile. Throws kiln::Error with the diagnostics on
/// failure.
std::unique_ptr<Executable> compileModule(mlir::ModuleOp module,
                                          Backend &backend,
                                          const std::string &key,
                                          size_t ops = 0);

/// Builds the kiln module of `graph` and compiles it (compileModule).
/// `donated` (empty, or one flag per leaf) names the inputs whose buffers
/// the run gives up, for the checkpointing plan's model of memory. With
/// `dynamic`, the inputs' dynamic dims are `?` and every shape is inferred
/// from them; null when the graph does not generalize (some shape does not
/// follow from S alone, e.g. a reshape to sizes recorded for this S).
///
/// A dynamic `key` marks the size entries of reshapes, expands and slices
/// that follow S by their values (followedEntries), which may mark a
/// static size that happens to equal S, or miss one. When the graph's own
/// marks (the entries that follow its dynamic dims) differ, nothing is
/// compiled: `trueKey` is set to the key with those marks, under which the
/// caller looks up or compiles the graph instead.
std::unique_ptr<Executable>
compileSubgraph(const Subgraph &graph, Backend &backend, const std::string &key,
                const std::vector<bool> &donated = {},
                const DynamicDims *dynamic = nullptr,
                std::string *trueKey = nullptr);

} // namespace kiln::detail

#endif // KILN_ENGINE_COMPILE_H
