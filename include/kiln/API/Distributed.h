//===- Distributed.h - Data-parallel training -------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Data-parallel training: every rank runs the same program on its own share
// of the data, and the gradients are averaged over the ranks before the
// update, so that every rank keeps the same parameters. The average is part
// of the graph (kiln.all_reduce): the compiler packs the gradients into
// buckets and starts each bucket's reduction as soon as backward has made
// it, so communication overlaps the rest of backward (docs/distributed.md).
//
//   kiln::distributed::init();                  // MPI under mpirun
//   kiln::distributed::broadcastParameters(params);
//   auto [begin, end] = kiln::distributed::shard(batch);
//   Gradients g = kiln::distributed::averageGradients(backward(loss));
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_DISTRIBUTED_H
#define KILN_API_DISTRIBUTED_H

#include "kiln/API/Autodiff.h"
#include "kiln/API/Tensor.h"
#include "kiln/Support/Collective.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace kiln::distributed {

/// Joins the job this process was launched in: under mpirun or mpiexec
/// (Open MPI), the MPI communicator; otherwise a job of one rank, in which
/// collectives are identities. A collective that waits longer than
/// `timeout` for the other ranks fails with a kiln::Error. Returns whether
/// the process is part of an MPI job. Throws kiln::Error when MPI cannot be
/// loaded.
bool init(std::chrono::milliseconds timeout = std::chrono::seconds(60));
/// Leaves the job (the MPI communicator is finalized).
void finalize();
/// This rank (0 in a job of one) and the number of ranks. A thread that is
/// an in-process rank (tests) sees its own.
int rank();
int size();

/// The sum or mean of `t` over the ranks (kiln.all_reduce), recorded like
/// any op: f64, f32, i64 or i32; a mean of floats. Its gradient is the same
/// reduction of the gradient.
DispatchTensor allReduce(const DispatchTensor &t, ReduceOp op = ReduceOp::Sum);

/// The gradients averaged over the ranks: each an all_reduce mean, which
/// the compiler packs into buckets and overlaps with backward.
Gradients averageGradients(const Gradients &grads);

/// Replaces the values of every tensor in `params` with rank `root`'s
/// (materializing them), so that every rank starts from the same model.
void broadcastParameters(const std::vector<DispatchTensor *> &params,
                         int root = 0);

/// This rank's share [begin, end) of `n` items: contiguous, in rank order,
/// sizes differing by at most one.
std::pair<int64_t, int64_t> shard(int64_t n);

/// Runs body(rank) on `ranks` threads of this process, each a rank of one
/// job (its own rank() and size(), its collectives among these threads):
/// data parallelism without MPI, for tests and trials. A rank that fails
/// (or never calls a collective the others wait in, past `timeout`) stops
/// the others; the first failure is rethrown as a kiln::Error naming its
/// rank.
void runInProcess(int ranks, const std::function<void(int rank)> &body,
                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// The all-reduces this thread's graphs have started (the latest 4096),
/// with their times (then forgotten when `clear`): how much of each was
/// hidden behind other work is waitedFromMs against endedMs.
std::vector<CollectiveEvent> collectives(bool clear = false);

} // namespace kiln::distributed

#endif // KILN_API_DISTRIBUTED_H
