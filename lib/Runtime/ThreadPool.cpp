//===- ThreadPool.cpp - Parallel loops for host kernels -------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

using namespace kiln::detail;

namespace {

thread_local bool insideWorker = false;

/// A fixed set of workers fed from one queue. The calling thread always
/// takes a share of the work, so a pool of T-1 workers gives T-way loops.
class Pool {
public:
  static Pool &get() {
    static Pool pool;
    return pool;
  }

  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ensureWorkers();
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  int threads() const { return threads_.load(); }
  void setThreads(int n) { threads_.store(std::max(1, n)); }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto &t : workers_)
      t.join();
  }

private:
  Pool() {
    unsigned hw = std::thread::hardware_concurrency();
    threads_.store(hw ? static_cast<int>(hw) : 1);
  }

  void ensureWorkers() {
    size_t wanted = static_cast<size_t>(std::max(0, threads_.load() - 1));
    while (workers_.size() < wanted)
      workers_.emplace_back([this] { loop(); });
  }

  void loop() {
    insideWorker = true;
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_ && queue_.empty())
          return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> workers_;
  std::atomic<int> threads_{1};
  bool stop_ = false;
};

} // namespace

int kiln::detail::hostThreads() { return Pool::get().threads(); }

void kiln::detail::setHostThreads(int threads) {
  Pool::get().setThreads(threads);
}

void kiln::detail::parallelFor(
    int64_t n, int64_t minPerThread,
    const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0)
    return;
  int64_t threads = insideWorker ? 1 : Pool::get().threads();
  int64_t chunks =
      std::min<int64_t>(threads, std::max<int64_t>(1, n / std::max<int64_t>(1, minPerThread)));
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  int64_t per = (n + chunks - 1) / chunks;
  std::mutex mu;
  std::condition_variable done;
  int64_t remaining = chunks - 1;
  for (int64_t c = 1; c < chunks; ++c) {
    int64_t begin = c * per, end = std::min(n, begin + per);
    Pool::get().submit([&, begin, end] {
      if (begin < end)
        fn(begin, end);
      std::lock_guard<std::mutex> lock(mu);
      if (--remaining == 0)
        done.notify_one();
    });
  }
  fn(0, std::min(n, per));
  std::unique_lock<std::mutex> lock(mu);
  done.wait(lock, [&] { return remaining == 0; });
}
