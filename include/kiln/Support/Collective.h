//===- Collective.h - Words of the collectives ------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_COLLECTIVE_H
#define KILN_SUPPORT_COLLECTIVE_H

#include <cstdint>
#include <string>

namespace kiln::distributed {

/// How an all-reduce combines the ranks' values: their sum, or their mean
/// (the sum divided by the number of ranks, for float dtypes).
enum class ReduceOp { Sum, Mean };

/// One all-reduce a graph started, for KILN_LOG=comm, tests and benchmarks.
/// Times are milliseconds since the rank's collective queue was made.
struct CollectiveEvent {
  int64_t seq = 0;
  int64_t bytes = 0;
  std::string what;         ///< "sum of 262144 x f32"
  double startedMs = 0;     ///< handed to the queue (the graph goes on)
  double beganMs = 0;       ///< the communicator's call began
  double endedMs = 0;       ///< it returned
  double waitedFromMs = -1; ///< the graph began to wait for it (-1: not yet)
  double waitedToMs = -1;   ///< and had its result
};

} // namespace kiln::distributed

#endif // KILN_SUPPORT_COLLECTIVE_H
