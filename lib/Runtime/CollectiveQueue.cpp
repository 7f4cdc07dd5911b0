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
#include <future>
#include <map>
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
  /// Device state kept for the queue (attachment()); destroyed after the
  /// thread has stopped.
  std::mutex attachMu;
  std::map<std::string, std::shared_ptr<void>> attachments;

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

  /// Numbers `e` and keeps its record.
  void add(CollectiveEvent &e) {
    std::lock_guard<std::mutex> lock(mu);
    e.seq = nextSeq++;
    events.push_back(e);
    if (events.size() > kMaxEvents)
      events.pop_front();
  }

  /// Collective `seq` was waited for from `from` to `to`; `ended`: when it
  /// was seen to end, where the queue did not run it itself (else < 0).
  void waited(int64_t seq, double from, double to, double ended) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (CollectiveEvent *e = find(seq)) {
        e->waitedFromMs = from;
        e->waitedToMs = to;
        if (ended >= 0)
          e->endedMs = ended;
      }
    }
    if (log)
      std::fprintf(stderr,
                   "kiln: comm rank %d: all_reduce #%lld waited for %.2f ms "
                   "at %.2f ms\n",
                   rank, static_cast<long long>(seq), to - from, to);
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

namespace {

/// The record of an all-reduce, before it starts.
CollectiveEvent eventOf(int64_t count, DType dtype, ReduceOp op) {
  CollectiveEvent e;
  e.bytes = count * static_cast<int64_t>(dtype.byteSize());
  e.what = std::string(op == ReduceOp::Sum ? "sum" : "mean") + " of " +
           std::to_string(count) + " x " + dtype.str();
  return e;
}

} // namespace

void PendingCollective::wait() {
  State &s = *state_;
  CollectiveQueue::Impl &q = *s.queue;
  double from = q.now();
  std::unique_lock<std::mutex> lock(s.mu);
  s.cv.wait(lock, [&] { return s.done; });
  q.waited(s.seq, from, q.now(), -1);
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
  CollectiveEvent e = eventOf(count, dtype, op);
  e.startedMs = impl_->now();
  impl_->add(e);
  state->seq = e.seq;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
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

void CollectiveQueue::runInOrder(
    const std::function<void(Communicator &)> &f) {
  std::promise<void> done;
  std::future<void> result = done.get_future();
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->work.push_back([&, comm = &comm_] {
      try {
        f(*comm);
        done.set_value();
      } catch (...) {
        done.set_exception(std::current_exception());
      }
    });
  }
  impl_->wake.notify_one();
  result.get();
}

std::shared_ptr<void> CollectiveQueue::attachment(
    const std::string &key,
    const std::function<std::shared_ptr<void>()> &make) {
  // Made under the lock, so that two threads never make it twice.
  std::lock_guard<std::mutex> lock(impl_->attachMu);
  std::shared_ptr<void> &slot = impl_->attachments[key];
  if (!slot)
    slot = make();
  return slot;
}

int64_t CollectiveQueue::recordStart(int64_t count, DType dtype,
                                     ReduceOp op) {
  CollectiveEvent e = eventOf(count, dtype, op);
  e.startedMs = e.beganMs = impl_->now();
  impl_->add(e);
  impl_->note("started", e, e.startedMs);
  return e.seq;
}

double CollectiveQueue::nowMs() const { return impl_->now(); }

void CollectiveQueue::recordWait(int64_t seq, double fromMs, double toMs) {
  impl_->waited(seq, fromMs, toMs, toMs);
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
