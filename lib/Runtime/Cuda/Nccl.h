//===- Nccl.h - NCCL, loaded at run time, for Cuda collectives --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The all-reduces of a Cuda graph run on NCCL. As with the driver, Kiln
// links nothing of it: libnccl.so.2 is opened with dlopen the first time a
// Cuda graph of a job of several ranks reaches a collective, and the few
// entry points, types and constants used are declared here with NCCL's ABI
// values (stable since NCCL 2.0; ncclAvg since 2.10).
//
// A job's NCCL communicator is made over its host communicator (MPI, or
// the in-process world): rank 0 asks NCCL for the job's unique id and
// broadcasts it to the others. Its reductions run on a stream of its own,
// after the work the graph had queued when it started them, so that the
// rest of backward goes on meanwhile.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_CUDA_NCCL_H
#define KILN_LIB_RUNTIME_CUDA_NCCL_H

#include "CudaDriver.h"
#include "kiln/Runtime/Communicator.h"

#include <string>

namespace kiln::detail::cuda {

using ncclResult_t = int;
using ncclComm_t = struct ncclComm *;

constexpr ncclResult_t kNcclSuccess = 0;
constexpr ncclResult_t kNcclInProgress = 7;
constexpr int kNcclSum = 0;
constexpr int kNcclAvg = 4;
/// The oldest NCCL Kiln takes: 2.10, the first with ncclAvg.
constexpr int kMinNcclVersion = 21000;

struct NcclUniqueId {
  char internal[128];
};

/// The NCCL entry points Kiln calls.
struct NcclApi {
  ncclResult_t (*getVersion)(int *);
  ncclResult_t (*getUniqueId)(NcclUniqueId *);
  ncclResult_t (*commInitRank)(ncclComm_t *, int, NcclUniqueId, int);
  ncclResult_t (*commDestroy)(ncclComm_t);
  ncclResult_t (*commAbort)(ncclComm_t);
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t *);
  const char *(*getErrorString)(ncclResult_t);
  ncclResult_t (*allReduce)(const void *, void *, size_t, int, int,
                            ncclComm_t, CUstream);
};

/// What loading NCCL found.
struct NcclStatus {
  const NcclApi *api = nullptr; ///< null when unusable
  int version = 0;              ///< e.g. 22809 for 2.28.9
  std::string library;          ///< the file opened
  std::string reason;           ///< why NCCL cannot be used
};

/// Opens `library` (a name on the library path, or a path) and resolves the
/// entry points. Never throws. Tests use it with other names.
NcclStatus loadNccl(const std::string &library);

/// The process's NCCL, loaded once: env::ncclLibrary(), and where that is
/// the default name and not on the library path, the CUDA toolkit's copy.
const NcclStatus &nccl();

/// "2.28.9" for 22809 (and "2.8.4" for the older 2804).
std::string ncclVersionText(int code);

/// NCCL's data type for `dtype`; -1 when NCCL has none.
int ncclDataType(DType dtype);

/// The NCCL communicator of one rank of a job, on one GPU.
class NcclCommunicator {
public:
  /// Joins the ranks of `host` on GPU `device` of this machine. Every rank
  /// of `host` makes one, at the same point of its sequence of collectives
  /// on `host`. Throws kiln::Error when NCCL, the driver or the GPU is
  /// missing, or NCCL fails.
  NcclCommunicator(distributed::Communicator &host, int device);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator &) = delete;
  NcclCommunicator &operator=(const NcclCommunicator &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }

  /// Queues the in-place all-reduce of the `count` elements of `dtype` at
  /// device address `data`, after the work queued on `compute` so far.
  /// Returns an event reached when it has ended, for wait(). `name` names
  /// it in errors.
  CUevent allReduce(void *data, int64_t count, DType dtype,
                    distributed::ReduceOp op, CUstream compute,
                    const std::string &name);

  /// Returns when `done` has been reached, after which `compute` is ordered
  /// after the reduction. An NCCL error, or no end within the host
  /// communicator's timeout (a rank died or never called it), aborts the
  /// communicator and throws a kiln::Error naming the collective `name`.
  void wait(CUevent done, CUstream compute, const std::string &name);

private:
  [[noreturn]] void fail(const std::string &why);

  const NcclApi &api_;
  int rank_, size_, device_;
  std::chrono::milliseconds timeout_;
  ncclComm_t comm_ = nullptr;
  CUstream stream_ = nullptr;
  bool broken_ = false;
};

} // namespace kiln::detail::cuda

#endif // KILN_LIB_RUNTIME_CUDA_NCCL_H
