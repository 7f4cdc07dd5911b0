//===- Distributed.cpp - The job a graph's collectives run in -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Distributed.h"
#include "kiln/Runtime/Communicator.h"
#include "kiln/Support/Error.h"

#include <mutex>
#include <thread>

using namespace kiln;
using namespace kiln::distributed;

namespace {

Communicator *current() {
  CollectiveQueue *q = currentCollectives();
  return q ? &q->communicator() : nullptr;
}

} // namespace

bool detail::joinProcessJob(std::chrono::milliseconds timeout) {
  if (processCommunicator())
    return true;
  if (!launchedByMpi())
    return false;
  setProcessCommunicator(mpiCommunicator(timeout));
  return true;
}

void detail::leaveProcessJob() { setProcessCommunicator(nullptr); }

int detail::jobRank() {
  Communicator *c = current();
  return c ? c->rank() : 0;
}

int detail::jobSize() {
  Communicator *c = current();
  return c ? c->size() : 1;
}

void detail::jobBroadcast(void *data, size_t bytes, int root) {
  if (Communicator *c = current())
    c->broadcast(data, bytes, root);
  else if (root != 0)
    throw Error("broadcast: root " + std::to_string(root) +
                " is not a rank of a job of one rank");
}

void detail::runInProcessJob(int ranks, std::chrono::milliseconds timeout,
                             const std::function<void(int)> &body) {
  if (ranks < 1)
    throw Error("runInProcess: a job needs at least one rank, not " +
                std::to_string(ranks));
  InProcessWorld world(ranks, timeout);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < ranks; ++r)
    comms.push_back(world.communicator(r));
  std::mutex mu;
  std::string first; // the first failure, which stopped the others
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      CommunicatorScope scope(*comms[r]);
      std::string why;
      try {
        body(r);
        return;
      } catch (const std::exception &e) {
        why = e.what();
      } catch (...) {
        why = "an exception that is not a std::exception";
      }
      std::string message = "rank " + std::to_string(r) + ": " + why;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (first.empty())
          first = message;
      }
      // Before the scope goes: its queue then drains at once, every
      // collective still queued failing instead of waiting for ranks that
      // stopped.
      world.abort(message);
    });
  for (std::thread &t : threads)
    t.join();
  if (!first.empty())
    throw Error(first);
}

std::vector<distributed::CollectiveEvent> detail::jobCollectives(bool clear) {
  CollectiveQueue *q = currentCollectives();
  if (!q)
    return {};
  std::vector<distributed::CollectiveEvent> events = q->events();
  if (clear)
    q->clearEvents();
  return events;
}
