//===- Release.cpp - C++ work with the GIL released, interruptibly --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// runReleased: a materialization runs on a worker thread while the
// interpreter's thread waits with the GIL released and checks for signals,
// so that Ctrl-C returns at once and the graph finishes in the background.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace nb = nanobind;

namespace {

/// One piece of runReleased's work and its outcome.
struct Job {
  std::function<void()> work;
  std::exception_ptr error;
  std::atomic<bool> done{false};
};

/// Spins (with pause) up to `us` microseconds until `ready()`: a handoff
/// between two threads that sleep on a condition variable costs tens of
/// microseconds on a small virtual machine, a short spin a few.
template <typename F> bool spinFor(int us, F ready) {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  return true;
}

/// The thread that runs runReleased's work, one job at a time. Never
/// destroyed: it may still be running when the interpreter exits.
class Worker {
public:
  static Worker &get() {
    static Worker *w = new Worker();
    return *w;
  }

  void post(const std::shared_ptr<Job> &job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(job);
      pending_.fetch_add(1);
    }
    cv_.notify_all();
  }

  /// Waits up to `ms` for `job`; true when it is done.
  bool wait(const std::shared_ptr<Job> &job, int ms) {
    if (spinFor(100, [&] { return job->done.load(); }))
      return true;
    std::unique_lock<std::mutex> lock(mu_);
    return done_.wait_for(lock, std::chrono::milliseconds(ms),
                          [&] { return job->done.load(); });
  }

private:
  Worker() {
    std::thread([this] { loop(); }).detach();
  }

  void loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      spinFor(100, [&] { return pending_.load() > 0; });
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        job = std::move(queue_.front());
        queue_.pop_front();
        pending_.fetch_sub(1);
      }
      try {
        job->work();
      } catch (...) {
        job->error = std::current_exception();
      }
      // The work's captures (tensors) are released here, off the lock.
      job->work = nullptr;
      {
        std::lock_guard<std::mutex> lock(mu_);
        job->done.store(true);
      }
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_, done_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::atomic<int> pending_{0};
};

/// The job a KeyboardInterrupt left running (guarded by the GIL).
std::shared_ptr<Job> &interrupted() {
  static std::shared_ptr<Job> *job = new std::shared_ptr<Job>();
  return *job;
}

/// Waits for `job` with the GIL released, checking for signals.
void waitInterruptibly(const std::shared_ptr<Job> &job) {
  for (;;) {
    bool done;
    {
      nb::gil_scoped_release release;
      done = Worker::get().wait(job, 50);
    }
    if (done)
      return;
    if (PyErr_CheckSignals() != 0) {
      interrupted() = job;
      throw nb::python_error();
    }
  }
}

} // namespace

void kiln::python::finishInterrupted() {
  // Its outcome was the KeyboardInterrupt already raised.
  if (std::shared_ptr<Job> before = interrupted()) {
    waitInterruptibly(before);
    interrupted().reset();
  }
}

void kiln::python::runReleased(std::function<void()> work) {
  finishInterrupted();
  auto job = std::make_shared<Job>();
  job->work = std::move(work);
  Worker::get().post(job);
  waitInterruptibly(job);
  if (job->error)
    std::rethrow_exception(job->error);
}
