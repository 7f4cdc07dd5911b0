//===- Communicator.h - Collectives between the ranks of a job --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A Communicator joins the ranks of a data-parallel job: each rank (a
// process under MPI, a thread in the in-process world that tests use) holds
// one and calls the same collectives in the same order. The collectives
// block until every rank has called them; a rank that never arrives makes
// the others fail with a kiln::Error after the world's timeout, and a rank
// that calls a different collective, count or dtype makes every rank fail
// with an error that names both calls.
//
// Results are bit-identical on every rank: a sum adds the ranks'
// contributions in rank order, whatever the rank that computes it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_COMMUNICATOR_H
#define KILN_RUNTIME_COMMUNICATOR_H

#include "kiln/Support/DType.h"
#include "kiln/Support/Collective.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::distributed {

class Communicator {
public:
  virtual ~Communicator();

  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The backend, for messages and logs ("in-process", "mpi").
  virtual std::string backendName() const = 0;
  /// How long a collective waits for the other ranks before it fails
  /// (device collectives built over this one wait as long).
  virtual std::chrono::milliseconds timeout() const = 0;

  /// Replaces the `count` elements of `dtype` at `data` with their sum (or
  /// mean) over all ranks. F64, F32, I64 and I32 sum; Mean takes F64 and
  /// F32. Other dtypes are a kiln::Error.
  virtual void allReduce(void *data, int64_t count, DType dtype,
                         ReduceOp op) = 0;
  /// Copies `bytes` bytes at `data` of rank `root` to `data` of every rank.
  virtual void broadcast(void *data, size_t bytes, int root) = 0;
  /// Returns when every rank has called it.
  virtual void barrier() = 0;
};

/// How errors name a rank's collective: "allReduce #3 (sum of 8 f32)",
/// "broadcast #1 (4 bytes from rank 0)", "barrier #2" (`seq` counts the
/// rank's collectives from 1).
std::string allReduceName(int64_t seq, int64_t count, DType dtype,
                          ReduceOp op);
std::string broadcastName(int64_t seq, size_t bytes, int root);
std::string barrierName(int64_t seq);

/// The error every collective checks before it runs: a dtype allReduce
/// cannot combine with `op`, or a negative count. Empty when the call is
/// valid.
std::string checkAllReduce(int64_t count, DType dtype, ReduceOp op);

/// `size` ranks in one process, one thread each: the world hands rank r
/// its communicator, and the threads call the collectives. A collective
/// that waits longer than `timeout` for the other ranks fails with a
/// kiln::Error naming the ranks that did not arrive.
class InProcessWorld {
public:
  explicit InProcessWorld(int size, std::chrono::milliseconds timeout =
                                        std::chrono::seconds(60));
  ~InProcessWorld();
  InProcessWorld(const InProcessWorld &) = delete;
  InProcessWorld &operator=(const InProcessWorld &) = delete;

  int size() const;
  /// Rank `rank`'s communicator (each rank takes exactly one).
  std::unique_ptr<Communicator> communicator(int rank);
  /// Makes every collective in progress or to come fail at once with
  /// `reason` (a rank that hit an error calls it so that the others do not
  /// wait for the timeout).
  void abort(const std::string &reason);

  struct State;

private:
  std::shared_ptr<State> state_;
};

/// Whether an MPI launcher (mpiexec, mpirun) started this process.
bool launchedByMpi();

/// This process's communicator in the MPI job that launched it (a job of
/// one rank when no launcher did). Open MPI's libmpi.so.40 is loaded at
/// run time, so Kiln builds and runs without it; where it is missing this
/// is a kiln::Error that says so. The collectives run on a communication
/// thread, one at a time in call order; a collective not done after
/// `timeout` (a rank died, or never calls it) is a kiln::Error, after which
/// destroying the communicator ends the whole job (MPI_Abort) instead of
/// waiting for it. Before each collective the ranks compare what they call
/// (the collective, count, dtype, root), so ranks out of step fail with an
/// error instead of exchanging garbage. One per process.
std::unique_ptr<Communicator>
mpiCommunicator(std::chrono::milliseconds timeout = std::chrono::seconds(60));

//===----------------------------------------------------------------------===//
// Collectives of a running graph
//===----------------------------------------------------------------------===//

/// An all-reduce that a CollectiveQueue has started.
class PendingCollective {
public:
  /// Blocks until the collective has ended; throws its error (kiln::Error)
  /// if it failed.
  void wait();

  struct State;
  explicit PendingCollective(std::shared_ptr<State> state)
      : state_(std::move(state)) {}

private:
  std::shared_ptr<State> state_;
};

/// Runs one communicator's collectives on a thread of its own, one at a
/// time in the order they are started, so that the graph that starts them
/// goes on computing meanwhile (Open MPI makes no progress on a collective
/// that no thread is inside of). The graph collectives a thread runs
/// (kiln.all_reduce_start) go to its current queue.
class CollectiveQueue {
public:
  explicit CollectiveQueue(Communicator &comm);
  /// Waits for every collective started.
  ~CollectiveQueue();
  CollectiveQueue(const CollectiveQueue &) = delete;
  CollectiveQueue &operator=(const CollectiveQueue &) = delete;

  Communicator &communicator() const { return comm_; }
  /// Starts the all-reduce of the `count` elements at `data`, which `keep`
  /// keeps alive until it has ended.
  PendingCollective allReduce(void *data, int64_t count, DType dtype,
                              ReduceOp op, std::shared_ptr<void> keep);
  /// Runs `f` on the queue's thread after every collective started before
  /// it, and returns when it has: for collectives of the communicator that
  /// are not all-reduces of host memory (the handshake of a device
  /// communicator), so that every rank makes them in the same order.
  /// Rethrows what `f` throws.
  void runInOrder(const std::function<void(Communicator &)> &f);

  /// The state a device backend keeps for this queue under `key` (its
  /// device communicator), made by `make` on first use and destroyed with
  /// the queue.
  std::shared_ptr<void>
  attachment(const std::string &key,
             const std::function<std::shared_ptr<void>()> &make);

  /// Records a collective that runs elsewhere (NCCL, on a device's stream)
  /// with the queue's own, so that events() and KILN_LOG=comm show it;
  /// returns its number. Its reduction is taken to begin when it is
  /// started.
  int64_t recordStart(int64_t count, DType dtype, ReduceOp op);
  /// Collective `seq` (recordStart) was waited for from `fromMs` and had
  /// ended at `toMs` (times of nowMs()).
  void recordWait(int64_t seq, double fromMs, double toMs);
  /// Milliseconds since the queue was made.
  double nowMs() const;

  /// The collectives started so far (the latest 4096), oldest first.
  std::vector<CollectiveEvent> events() const;
  void clearEvents();

  struct Impl;

private:
  Communicator &comm_;
  std::unique_ptr<Impl> impl_;
};

/// The queue of the calling thread's graph collectives: that of its
/// innermost CommunicatorScope, else the process's (setProcessCommunicator),
/// else none: the job is one rank and collectives are identities.
CollectiveQueue *currentCollectives();

/// The queue of the calling thread's CommunicatorScope: set on the threads
/// of in-process ranks only.
CollectiveQueue *threadCollectives();

/// Makes `comm` the process's communicator (null: none), for every thread
/// without a scope of its own. distributed::init sets it.
void setProcessCommunicator(std::unique_ptr<Communicator> comm);
Communicator *processCommunicator();

/// While it lives, the calling thread's graph collectives run on `comm`
/// (an in-process rank holds one on its thread).
class CommunicatorScope {
public:
  explicit CommunicatorScope(Communicator &comm);
  ~CommunicatorScope();
  CommunicatorScope(const CommunicatorScope &) = delete;
  CommunicatorScope &operator=(const CommunicatorScope &) = delete;
  CollectiveQueue &queue() { return *queue_; }

private:
  std::unique_ptr<CollectiveQueue> queue_;
  CollectiveQueue *previous_;
};

} // namespace kiln::distributed

#endif // KILN_RUNTIME_COMMUNICATOR_H
