//===- MpiCommunicator.cpp - Collectives over Open MPI, loaded at run time ===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Open MPI is loaded with dlopen, as the CUDA driver is: Kiln needs no MPI
// to build, and a job that uses MPI needs only the launcher's libmpi. Open
// MPI's handles (MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM) are the addresses of
// its predefined objects, which dlsym finds by name; the library is loaded
// RTLD_GLOBAL because its own plugins resolve symbols against it.
//
// One communication thread makes every MPI call (MPI_THREAD_SERIALIZED);
// a caller waits for its collective with a timeout. A sum is reduced to
// rank 0 and broadcast from there, so every rank gets rank 0's bits.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Communicator.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/Error.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <dlfcn.h>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

using namespace kiln;
using namespace kiln::distributed;

bool distributed::launchedByMpi() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v))
      return true;
  return false;
}

namespace {

// Open MPI's handle types are pointers to its predefined objects.
using Handle = void *;
constexpr int kThreadSerialized = 2; // MPI_THREAD_SERIALIZED
constexpr int kSuccess = 0;          // MPI_SUCCESS

/// The entry points and predefined objects of libmpi.so.40.
struct Mpi {
  void *lib = nullptr;
  int (*initialized)(int *) = nullptr;
  int (*initThread)(int *, char ***, int, int *) = nullptr;
  int (*finalize)() = nullptr;
  int (*abort)(Handle, int) = nullptr;
  int (*commRank)(Handle, int *) = nullptr;
  int (*commSize)(Handle, int *) = nullptr;
  int (*allreduce)(const void *, void *, int, Handle, Handle, Handle) =
      nullptr;
  int (*reduce)(const void *, void *, int, Handle, Handle, int, Handle) =
      nullptr;
  int (*bcast)(void *, int, Handle, int, Handle) = nullptr;
  int (*barrier)(Handle) = nullptr;
  Handle world = nullptr, f64 = nullptr, f32 = nullptr, i64 = nullptr,
         i32 = nullptr, byte = nullptr, sum = nullptr, max = nullptr,
         min = nullptr;

  void load() {
    const std::string name = env::mpiLibrary();
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
      throw Error("distributed: cannot load Open MPI (" + name +
                  "): " + dlerror() +
                  "; install it (Debian: openmpi-bin libopenmpi-dev) to run "
                  "a job over MPI");
    auto sym = [&](const char *s) {
      void *p = dlsym(lib, s);
      if (!p)
        throw Error("distributed: " + name + " has no " + s +
                    ": Kiln loads Open MPI (4.x), not another MPI");
      return p;
    };
    auto fn = [&](auto &f, const char *s) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(sym(s));
    };
    fn(initialized, "MPI_Initialized");
    fn(initThread, "MPI_Init_thread");
    fn(finalize, "MPI_Finalize");
    fn(abort, "MPI_Abort");
    fn(commRank, "MPI_Comm_rank");
    fn(commSize, "MPI_Comm_size");
    fn(allreduce, "MPI_Allreduce");
    fn(reduce, "MPI_Reduce");
    fn(bcast, "MPI_Bcast");
    fn(barrier, "MPI_Barrier");
    world = sym("ompi_mpi_comm_world");
    f64 = sym("ompi_mpi_double");
    f32 = sym("ompi_mpi_float");
    i64 = sym("ompi_mpi_int64_t");
    i32 = sym("ompi_mpi_int32_t");
    byte = sym("ompi_mpi_byte");
    sum = sym("ompi_mpi_op_sum");
    max = sym("ompi_mpi_op_max");
    min = sym("ompi_mpi_op_min");
  }
};

std::mutex processMutex;
bool processHasOne = false;

class MpiCommunicator : public Communicator {
public:
  explicit MpiCommunicator(std::chrono::milliseconds timeout)
      : timeout_(timeout) {
    mpi_.load();
    thread_ = std::thread([this] { loop(); });
    try {
      init();
    } catch (...) {
      stopThread();
      throw;
    }
  }

  /// MPI is initialized on the thread that will make every call.
  void init() {
    submit("init", [this] {
      int done = 0;
      mpi_.initialized(&done);
      if (!done) {
        int provided = 0;
        if (mpi_.initThread(nullptr, nullptr, kThreadSerialized,
                            &provided) != kSuccess)
          throw Error("distributed: MPI_Init_thread failed");
        if (provided < kThreadSerialized)
          throw Error("distributed: this MPI gives thread level " +
                      std::to_string(provided) + ", Kiln needs " +
                      std::to_string(kThreadSerialized) +
                      " (MPI_THREAD_SERIALIZED)");
        initializedHere_ = true;
      }
      mpi_.commRank(mpi_.world, &rank_);
      mpi_.commSize(mpi_.world, &size_);
    });
  }

  ~MpiCommunicator() override {
    if (broken_) {
      // A collective is still blocked on the communication thread: end the
      // job rather than wait for it forever.
      mpi_.abort(mpi_.world, 1);
      std::_Exit(1);
    }
    try {
      if (initializedHere_)
        submit("finalize", [this] { mpi_.finalize(); });
    } catch (const Error &) {
    }
    stopThread();
  }

  void stopThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (broken_)
      thread_.detach(); // still inside an MPI call
    else
      thread_.join();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backendName() const override { return "mpi"; }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  void allReduce(void *data, int64_t count, DType dtype,
                 ReduceOp op) override {
    std::string what = allReduceName(++seq_, count, dtype, op);
    if (std::string bad = checkAllReduce(count, dtype, op); !bad.empty())
      throw Error("distributed: " + what + " on rank " +
                  std::to_string(rank_) + " failed: " + bad);
    if (count > int64_t(1) << 31)
      throw Error("distributed: " + what + ": more than 2^31 elements in "
                  "one call");
    Handle type = dtype == DType::F64   ? mpi_.f64
                  : dtype == DType::F32 ? mpi_.f32
                  : dtype == DType::I64 ? mpi_.i64
                                        : mpi_.i32;
    submit(what, [&] {
      agree(what, {1, count, int64_t(dtype.kind()), int64_t(op)});
      int n = static_cast<int>(count);
      // Reduced on rank 0 and broadcast: every rank gets the same bits.
      std::vector<char> total(rank_ == 0 ? count * dtype.byteSize() : 0);
      check(what, mpi_.reduce(data, rank_ == 0 ? total.data() : nullptr, n,
                              type, mpi_.sum, 0, mpi_.world));
      if (rank_ == 0 && count > 0)
        std::copy(total.begin(), total.end(), static_cast<char *>(data));
      check(what, mpi_.bcast(data, n, type, 0, mpi_.world));
    });
    if (op == ReduceOp::Mean) {
      if (dtype == DType::F64)
        for (int64_t i = 0; i < count; ++i)
          static_cast<double *>(data)[i] /= size_;
      else
        for (int64_t i = 0; i < count; ++i)
          static_cast<float *>(data)[i] =
              static_cast<float>(static_cast<float *>(data)[i] /
                                 static_cast<double>(size_));
    }
  }

  void broadcast(void *data, size_t bytes, int root) override {
    std::string what = broadcastName(++seq_, bytes, root);
    if (root < 0 || root >= size_)
      throw Error("distributed: " + what + " on rank " +
                  std::to_string(rank_) + " failed: root " +
                  std::to_string(root) + " is not a rank of " +
                  std::to_string(size_));
    if (bytes > (size_t(1) << 31))
      throw Error("distributed: " + what + ": more than 2^31 bytes");
    submit(what, [&] {
      agree(what, {2, int64_t(bytes), root, 0});
      check(what, mpi_.bcast(data, static_cast<int>(bytes), mpi_.byte, root,
                             mpi_.world));
    });
  }

  void barrier() override {
    std::string what = barrierName(++seq_);
    submit(what, [&] {
      agree(what, {3, 0, 0, 0});
      check(what, mpi_.barrier(mpi_.world));
    });
  }

private:
  void check(const std::string &what, int rc) {
    if (rc != kSuccess)
      throw Error("distributed: " + what + " on rank " +
                  std::to_string(rank_) + ": MPI error " + std::to_string(rc));
  }

  /// The ranks compare their calls (kind, count, dtype or root, op) by
  /// their minimum and maximum over the job.
  void agree(const std::string &what, std::vector<int64_t> call) {
    call.push_back(seq_);
    int n = static_cast<int>(call.size());
    std::vector<int64_t> lo(n), hi(n);
    check(what, mpi_.allreduce(call.data(), lo.data(), n, mpi_.i64, mpi_.min,
                               mpi_.world));
    check(what, mpi_.allreduce(call.data(), hi.data(), n, mpi_.i64, mpi_.max,
                               mpi_.world));
    if (lo != hi) {
      static const char *fields[] = {"collective", "count or bytes",
                                     "dtype or root", "op",
                                     "number of collectives so far"};
      std::string diff;
      for (int i = 0; i < n; ++i)
        if (lo[i] != hi[i])
          diff += std::string(diff.empty() ? "" : ", ") + fields[i] + " (" +
                  std::to_string(lo[i]) + " to " + std::to_string(hi[i]) +
                  ")";
      throw Error("distributed: " + what + " on rank " +
                  std::to_string(rank_) +
                  " failed: the ranks called different collectives: their " +
                  diff + " differ");
    }
  }

  /// Runs `job` on the communication thread and waits for it; a job not
  /// done after the timeout breaks the communicator.
  void submit(const std::string &what, std::function<void()> job) {
    if (broken_)
      throw Error("distributed: " + what + " on rank " +
                  std::to_string(rank_) +
                  " failed: an earlier collective timed out");
    auto task = std::make_shared<std::packaged_task<void()>>(std::move(job));
    std::future<void> done = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back([task] { (*task)(); });
    }
    cv_.notify_all();
    if (done.wait_for(timeout_) != std::future_status::ready) {
      broken_ = true;
      throw Error("distributed: " + what + " on rank " +
                  std::to_string(rank_) + " did not complete within " +
                  std::to_string(timeout_.count()) +
                  " ms: another rank died or never called it; the job ends "
                  "when this communicator is destroyed");
    }
    done.get(); // rethrows the job's error
  }

  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty())
          return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  Mpi mpi_;
  std::chrono::milliseconds timeout_;
  int rank_ = 0, size_ = 1;
  int64_t seq_ = 0;
  bool initializedHere_ = false, broken_ = false, stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::thread thread_;
};

} // namespace

std::unique_ptr<Communicator>
distributed::mpiCommunicator(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(processMutex);
  if (processHasOne)
    throw Error("distributed: this process already has its MPI "
                "communicator (MPI is initialized once per process)");
  auto c = std::make_unique<MpiCommunicator>(timeout);
  processHasOne = true;
  return c;
}
