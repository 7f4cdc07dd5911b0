//===- CollectiveQueue.cpp - Collectives run beside a graph ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Communicator.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/Error.h"

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

using namespace kiln;
using namespace kiln::distributed;

struct PendingCollective::State {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
  /// The queue's record of this collective, and the queue.
  CollectiveQueue::Impl *queue = nullptr;
  int64_t seq = 0;
};

struct CollectiveQueue::Impl {
  using Clock = std::chrono::steady_clock;
  Clock::time_point origin = Clock::now();
  int rank = 0;
  bool log = env::logEnabled("comm");

  mutable std::mutex mu;
  std::condition_variable wake;
  std::deque<std::function<void()>> work;
  bool stopping = false;
  /// The latest kMaxEvents collectives (a long run would otherwise grow
  /// this without end).
  static constexpr size_t kMaxEvents = 4096;
  std::deque<CollectiveEvent> events;
  int64_t nextSeq = 0;
  std::thread thread;

  double now() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - origin)
        .count();
  }

  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [&] { return stopping || !work.empty(); });
        if (work.empty())
          return;
        job = std::move(work.front());
        work.pop_front();
      }
      job();
    }
  }

  /// The record of collective `seq` (null once cleared). Under `mu`.
  CollectiveEvent *find(int64_t seq) {
    if (events.empty() || seq < events.front().seq)
      return nullptr;
    size_t i = static_cast<size_t>(seq - events.front().seq);
    return i < events.size() ? &events[i] : nullptr;
  }

  void note(const char *what, const CollectiveEvent &e, double at) const {
    if (!log)
      return;
    std::fprintf(stderr,
                 "kiln: comm rank %d: all_reduce #%lld %s (%s, %.2f MiB) at "
                 "%.2f ms\n",
                 rank, static_cast<long long>(e.seq), what, e.what.c_str(),
                 e.bytes / 1048576.0, at);
  }
};

void PendingCollective::wait() {
  State &s = *state_;
  CollectiveQueue::Impl &q = *s.queue;
  double from = q.now();
  std::unique_lock<std::mutex> lock(s.mu);
  s.cv.wait(lock, [&] { return s.done; });
  double to = q.now();
  {
    std::lock_guard<std::mutex> qlock(q.mu);
    if (CollectiveEvent *e = q.find(s.seq)) {
      e->waitedFromMs = from;
      e->waitedToMs = to;
    }
  }
  if (q.log)
    std::fprintf(stderr,
                 "kiln: comm rank %d: all_reduce #%lld waited for %.2f ms at "
                 "%.2f ms\n",
                 q.rank, static_cast<long long>(s.seq), to - from, to);
  if (s.error)
    std::rethrow_exception(s.error);
}

CollectiveQueue::CollectiveQueue(Communicator &comm)
    : comm_(comm), impl_(std::make_unique<Impl>()) {
  impl_->rank = comm.rank();
  impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

CollectiveQueue::~CollectiveQueue() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  impl_->thread.join();
}

PendingCollective CollectiveQueue::allReduce(void *data, int64_t count,
                                             DType dtype, ReduceOp op,
                                             std::shared_ptr<void> keep) {
  auto state = std::make_shared<PendingCollective::State>();
  state->queue = impl_.get();
  CollectiveEvent e;
  e.bytes = count * static_cast<int64_t>(dtype.byteSize());
  e.what = std::string(op == ReduceOp::Sum ? "sum" : "mean") + " of " +
           std::to_string(count) + " x " + dtype.str();
  e.startedMs = impl_->now();
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    e.seq = impl_->nextSeq++;
    state->seq = e.seq;
    impl_->events.push_back(e);
    if (impl_->events.size() > Impl::kMaxEvents)
      impl_->events.pop_front();
    Impl *impl = impl_.get();
    Communicator *comm = &comm_;
    impl_->work.push_back([=, keep = std::move(keep)] {
      double began = impl->now();
      std::exception_ptr error;
      try {
        comm->allReduce(data, count, dtype, op);
      } catch (...) {
        error = std::current_exception();
      }
      double ended = impl->now();
      CollectiveEvent done = e;
      {
        std::lock_guard<std::mutex> qlock(impl->mu);
        if (CollectiveEvent *rec = impl->find(e.seq)) {
          rec->beganMs = began;
          rec->endedMs = ended;
        }
      }
      impl->note(error ? "failed" : "reduced", done, ended);
      {
        std::lock_guard<std::mutex> slock(state->mu);
        state->done = true;
        state->error = error;
      }
      state->cv.notify_all();
    });
  }
  impl_->wake.notify_one();
  impl_->note("started", e, e.startedMs);
  return PendingCollective(std::move(state));
}

std::vector<CollectiveEvent> CollectiveQueue::events() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return {impl_->events.begin(), impl_->events.end()};
}

void CollectiveQueue::clearEvents() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->events.clear();
}

//===----------------------------------------------------------------------===//
// Which queue a thread's graph collectives use
//===----------------------------------------------------------------------===//

namespace {

thread_local CollectiveQueue *threadQueue = nullptr;

struct ProcessComm {
  std::mutex mu;
  std::unique_ptr<Communicator> comm;
  std::unique_ptr<CollectiveQueue> queue;
};

ProcessComm &processComm() {
  // Never destroyed: a queue's thread must not outlive its communicator at
  // exit, so the process's pair stays until the process ends (or until
  // setProcessCommunicator replaces it).
  static ProcessComm *p = new ProcessComm();
  return *p;
}

} // namespace

CollectiveQueue *distributed::currentCollectives() {
  if (threadQueue)
    return threadQueue;
  ProcessComm &p = processComm();
  std::lock_guard<std::mutex> lock(p.mu);
  return p.queue.get();
}

CollectiveQueue *distributed::threadCollectives() { return threadQueue; }

void distributed::setProcessCommunicator(std::unique_ptr<Communicator> comm) {
  ProcessComm &p = processComm();
  std::lock_guard<std::mutex> lock(p.mu);
  p.queue.reset();
  p.comm = std::move(comm);
  if (p.comm)
    p.queue = std::make_unique<CollectiveQueue>(*p.comm);
}

Communicator *distributed::processCommunicator() {
  ProcessComm &p = processComm();
  std::lock_guard<std::mutex> lock(p.mu);
  return p.comm.get();
}

CommunicatorScope::CommunicatorScope(Communicator &comm)
    : queue_(std::make_unique<CollectiveQueue>(comm)), previous_(threadQueue) {
  threadQueue = queue_.get();
}

CommunicatorScope::~CommunicatorScope() { threadQueue = previous_; }
