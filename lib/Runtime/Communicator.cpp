//===- Communicator.cpp - Collectives and the in-process world ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The in-process world runs each collective as rounds between barriers:
// every rank posts its call and arrives (round 1); each rank checks that
// all calls agree, and an allReduce computes its own slice of the result
// from every rank's buffer (round 2); then writes that slice to every
// rank's buffer (round 3). A buffer is only read between the first two
// barriers and only written between the last two, so no rank sees a
// half-written value, and each element is computed once, adding the ranks
// in rank order: every rank ends with the same bits.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Communicator.h"

#include "kiln/Support/Error.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

using namespace kiln;
using namespace kiln::distributed;

Communicator::~Communicator() = default;

std::string distributed::allReduceName(int64_t seq, int64_t count,
                                       DType dtype, ReduceOp op) {
  return "allReduce #" + std::to_string(seq) + " (" +
         (op == ReduceOp::Sum ? "sum" : "mean") + " of " +
         std::to_string(count) + " " + dtype.str() + ")";
}

std::string distributed::broadcastName(int64_t seq, size_t bytes, int root) {
  return "broadcast #" + std::to_string(seq) + " (" + std::to_string(bytes) +
         " bytes from rank " + std::to_string(root) + ")";
}

std::string distributed::barrierName(int64_t seq) {
  return "barrier #" + std::to_string(seq);
}

std::string distributed::checkAllReduce(int64_t count, DType dtype,
                                        ReduceOp op) {
  if (count < 0)
    return "allReduce of a negative count (" + std::to_string(count) + ")";
  DTypeKind k = dtype.kind();
  bool isFloat = k == DTypeKind::F64 || k == DTypeKind::F32;
  bool isInt = k == DTypeKind::I64 || k == DTypeKind::I32;
  if (op == ReduceOp::Mean && !isFloat)
    return "allReduce mean takes f64 or f32 values, not " + dtype.str();
  if (!isFloat && !isInt)
    return "allReduce sums f64, f32, i64 or i32 values, not " + dtype.str();
  return "";
}

namespace {

/// One rank's posted collective.
struct Call {
  std::string what; ///< "allReduce", "broadcast" or "barrier"
  int64_t count = 0;
  DType dtype;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  size_t bytes = 0;
  void *data = nullptr;
  int64_t seq = 0; ///< this rank's collectives so far, from 1

  std::string describe() const {
    if (what == "allReduce")
      return allReduceName(seq, count, dtype, op);
    if (what == "broadcast")
      return broadcastName(seq, bytes, root);
    return barrierName(seq);
  }
  bool sameAs(const Call &o) const {
    return what == o.what && count == o.count && dtype == o.dtype &&
           op == o.op && root == o.root && bytes == o.bytes && seq == o.seq;
  }
};

} // namespace

struct InProcessWorld::State {
  int size;
  std::chrono::milliseconds timeout;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Call> calls;
  std::vector<bool> taken, here;
  int waiting = 0;
  uint64_t generation = 0;
  std::string aborted; ///< why the world stopped; empty while it works

  State(int n, std::chrono::milliseconds t)
      : size(n), timeout(t), calls(n), taken(n, false), here(n, false) {}

  [[noreturn]] void fail(int rank, const Call &c, const std::string &why) {
    throw Error("distributed: " + c.describe() + " on rank " +
                std::to_string(rank) + " failed: " + why);
  }

  /// Returns when every rank has arrived, or throws after the timeout (the
  /// world then stays stopped) or when the world was aborted.
  void arrive(int rank, const Call &c) {
    std::unique_lock<std::mutex> lock(mu);
    if (!aborted.empty())
      fail(rank, c, aborted);
    uint64_t gen = generation;
    here[rank] = true;
    if (++waiting == size) {
      waiting = 0;
      std::fill(here.begin(), here.end(), false);
      ++generation;
      cv.notify_all();
      return;
    }
    bool done = cv.wait_for(lock, timeout, [&] {
      return generation != gen || !aborted.empty();
    });
    if (!aborted.empty())
      fail(rank, c, aborted);
    if (!done) {
      std::string missing;
      for (int r = 0; r < size; ++r)
        if (!here[r])
          missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      aborted = "rank " + missing + " did not arrive within " +
                std::to_string(timeout.count()) + " ms";
      cv.notify_all();
      fail(rank, c, aborted);
    }
  }

  /// After the first round: every rank's call must be rank 0's. The
  /// message is the same whichever rank finds the difference, and the
  /// world stops (the ranks no longer call collectives in step).
  void checkAgree(int rank, const Call &c) {
    std::lock_guard<std::mutex> lock(mu);
    for (int r = 1; r < size; ++r)
      if (!calls[r].sameAs(calls[0])) {
        if (aborted.empty())
          aborted = "rank " + std::to_string(r) + " called " +
                    calls[r].describe() + " where rank 0 called " +
                    calls[0].describe();
        cv.notify_all();
        fail(rank, c, aborted);
      }
  }

  void post(int rank, const Call &c) {
    std::lock_guard<std::mutex> lock(mu);
    calls[rank] = c;
  }
};

namespace {

template <typename T, typename Acc>
void sumSlice(const std::vector<Call> &calls, int64_t lo, int64_t hi,
              bool mean, std::vector<char> &out) {
  out.resize(static_cast<size_t>(hi - lo) * sizeof(T));
  T *dst = reinterpret_cast<T *>(out.data());
  double n = static_cast<double>(calls.size());
  for (int64_t i = lo; i < hi; ++i) {
    Acc acc = 0;
    for (const Call &c : calls)
      acc += static_cast<Acc>(static_cast<const T *>(c.data)[i]);
    dst[i - lo] = mean ? static_cast<T>(static_cast<double>(acc) / n)
                       : static_cast<T>(acc);
  }
}

class InProcessCommunicator : public Communicator {
public:
  InProcessCommunicator(std::shared_ptr<InProcessWorld::State> s, int rank)
      : s_(std::move(s)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return s_->size; }
  std::string backendName() const override { return "in-process"; }
  std::chrono::milliseconds timeout() const override { return s_->timeout; }

  void allReduce(void *data, int64_t count, DType dtype,
                 ReduceOp op) override {
    Call c = next("allReduce");
    c.count = count;
    c.dtype = dtype;
    c.op = op;
    c.data = data;
    run(c, [&] { return checkAllReduce(count, dtype, op); });
    // This rank's slice of the elements.
    int64_t per = (count + s_->size - 1) / std::max(1, s_->size);
    int64_t lo = std::min(count, per * rank_), hi = std::min(count, lo + per);
    std::vector<char> slice;
    bool mean = op == ReduceOp::Mean;
    switch (dtype.kind()) {
    case DTypeKind::F64:
      sumSlice<double, double>(s_->calls, lo, hi, mean, slice);
      break;
    case DTypeKind::F32:
      sumSlice<float, double>(s_->calls, lo, hi, mean, slice);
      break;
    case DTypeKind::I64:
      sumSlice<int64_t, int64_t>(s_->calls, lo, hi, false, slice);
      break;
    default:
      sumSlice<int32_t, int64_t>(s_->calls, lo, hi, false, slice);
      break;
    }
    s_->arrive(rank_, c); // every rank has read every buffer
    size_t elem = dtype.byteSize(), at = static_cast<size_t>(lo) * elem;
    if (!slice.empty())
      for (const Call &other : s_->calls)
        std::memcpy(static_cast<char *>(other.data) + at, slice.data(),
                    slice.size());
    s_->arrive(rank_, c); // every slice is written
  }

  void broadcast(void *data, size_t bytes, int root) override {
    Call c = next("broadcast");
    c.bytes = bytes;
    c.root = root;
    c.data = data;
    run(c, [&]() -> std::string {
      if (root < 0 || root >= s_->size)
        return "root " + std::to_string(root) + " is not a rank of " +
               std::to_string(s_->size);
      return "";
    });
    if (rank_ != root && bytes > 0)
      std::memcpy(data, s_->calls[root].data, bytes);
    s_->arrive(rank_, c); // the root's buffer is no longer read
  }

  void barrier() override {
    Call c = next("barrier");
    run(c, [] { return std::string(); });
    s_->arrive(rank_, c); // no rank reads the posted calls any more
  }

private:
  Call next(const char *what) {
    Call c;
    c.what = what;
    c.seq = ++seq_;
    return c;
  }
  /// Posts `c`, waits for every rank and checks that all calls agree.
  /// `check` gives the error of an invalid call (empty if it is valid):
  /// the same on every rank, which all wait until each has read the posted
  /// calls and then fail alike.
  template <typename F> void run(const Call &c, F check) {
    s_->post(rank_, c);
    s_->arrive(rank_, c);
    s_->checkAgree(rank_, c);
    if (std::string bad = check(); !bad.empty()) {
      s_->arrive(rank_, c);
      s_->fail(rank_, c, bad);
    }
  }

  std::shared_ptr<InProcessWorld::State> s_;
  int rank_;
  int64_t seq_ = 0;
};

} // namespace

InProcessWorld::InProcessWorld(int size, std::chrono::milliseconds timeout) {
  if (size < 1)
    throw Error("distributed: a world needs at least one rank, not " +
                std::to_string(size));
  state_ = std::make_shared<State>(size, timeout);
}

InProcessWorld::~InProcessWorld() = default;

int InProcessWorld::size() const { return state_->size; }

std::unique_ptr<Communicator> InProcessWorld::communicator(int rank) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (rank < 0 || rank >= state_->size)
    throw Error("distributed: rank " + std::to_string(rank) +
                " is not a rank of a world of " +
                std::to_string(state_->size));
  if (state_->taken[rank])
    throw Error("distributed: rank " + std::to_string(rank) +
                "'s communicator was already taken");
  state_->taken[rank] = true;
  return std::make_unique<InProcessCommunicator>(state_, rank);
}

void InProcessWorld::abort(const std::string &reason) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->aborted.empty())
    state_->aborted = "aborted: " + reason;
  state_->cv.notify_all();
}
