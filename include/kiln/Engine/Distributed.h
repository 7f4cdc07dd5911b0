//===- Distributed.h - The job a graph's collectives run in -----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the API's kiln::distributed needs of the runtime's communicators:
// joining the process's job, the calling thread's rank and size, and a
// broadcast.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_DISTRIBUTED_H
#define KILN_ENGINE_DISTRIBUTED_H

#include "kiln/Support/Collective.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace kiln::detail {

/// Under an MPI launcher, makes the MPI communicator the process's (once);
/// elsewhere the process is a job of one rank. Returns whether MPI joined.
bool joinProcessJob(std::chrono::milliseconds timeout);
/// Drops the process's communicator.
void leaveProcessJob();
/// The calling thread's rank and the job's size (0 and 1 with no
/// communicator).
int jobRank();
int jobSize();
/// Copies `bytes` at `data` of rank `root` to every rank; nothing with no
/// communicator.
void jobBroadcast(void *data, size_t bytes, int root);

/// Runs body(rank) on `ranks` threads, each a rank of one in-process job;
/// a rank that fails stops the others. Throws the first failure's error.
void runInProcessJob(int ranks, std::chrono::milliseconds timeout,
                     const std::function<void(int)> &body);

/// The calling thread's graph collectives so far (then forgets them when
/// `clear`).
std::vector<distributed::CollectiveEvent> jobCollectives(bool clear);

} // namespace kiln::detail

#endif // KILN_ENGINE_DISTRIBUTED_H
