//===- CompileWatchdog.cpp - A time limit on each compile -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CompileWatchdog.h"
#include "kiln/Support/Env.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

using namespace kiln;
using namespace kiln::detail;

namespace {

using Clock = std::chrono::steady_clock;

/// The compiles being watched, and one thread that wakes at the earliest
/// deadline. It is never joined: it lives as long as the process.
class Watcher {
public:
  static Watcher &get() {
    static Watcher *w = new Watcher();
    return *w;
  }

  long arm(double seconds, std::string what) {
    std::lock_guard<std::mutex> lock(mu);
    long id = ++next;
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(seconds));
    armed[id] = {deadline, seconds, std::move(what)};
    if (!thread.joinable())
      thread = std::thread([this] { watch(); });
    wake.notify_one();
    return id;
  }

  void disarm(long id) {
    std::lock_guard<std::mutex> lock(mu);
    armed.erase(id);
  }

private:
  struct Watch {
    Clock::time_point deadline;
    double seconds;
    std::string what;
  };

  void watch() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      if (armed.empty()) {
        wake.wait(lock);
        continue;
      }
      auto first = armed.begin();
      for (auto it = armed.begin(); it != armed.end(); ++it)
        if (it->second.deadline < first->second.deadline)
          first = it;
      if (Clock::now() < first->second.deadline) {
        wake.wait_until(lock, first->second.deadline);
        continue;
      }
      std::fprintf(stderr,
                   "kiln: a compile ran longer than KILN_COMPILE_TIMEOUT "
                   "(%g s) and is taken for a hang: %s\n",
                   first->second.seconds, first->second.what.c_str());
      std::fflush(stderr);
      std::abort();
    }
  }

  std::mutex mu;
  std::condition_variable wake;
  std::map<long, Watch> armed;
  long next = 0;
  std::thread thread;
};

} // namespace

CompileWatchdog::CompileWatchdog(const std::string &backend,
                                 const std::function<std::string()> &describe) {
  double seconds = env::compileTimeoutSeconds();
  if (seconds <= 0)
    return;
  id = Watcher::get().arm(seconds,
                          "the " + backend + " compile of\n" + describe());
}

CompileWatchdog::~CompileWatchdog() {
  if (id)
    Watcher::get().disarm(id);
}
