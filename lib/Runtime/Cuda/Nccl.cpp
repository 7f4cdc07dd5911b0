//===- Nccl.cpp - NCCL, loaded at run time, for Cuda collectives ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Nccl.h"
#include "Mgpu.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/Error.h"

#include <chrono>
#include <cstring>
#include <thread>

using namespace kiln;
using namespace kiln::detail::cuda;
using distributed::ReduceOp;

namespace {

std::string errorString(const NcclApi &api, ncclResult_t r) {
  const char *text = api.getErrorString ? api.getErrorString(r) : nullptr;
  return "NCCL error " + std::to_string(r) +
         (text ? std::string(" (") + text + ")" : std::string());
}

/// What rank 0 broadcasts to the others: the job's unique id, or why it
/// has none (so that the others fail with rank 0's reason).
struct Handshake {
  NcclUniqueId id;
  char error[256];
};

} // namespace

std::string kiln::detail::cuda::ncclVersionText(int code) {
  // Since 2.9 NCCL encodes x.y.z as x*10000 + y*100 + z; before, x*1000 +
  // y*100 + z.
  int major = code >= 20900 ? code / 10000 : code / 1000;
  int rest = code >= 20900 ? code % 10000 : code % 1000;
  return std::to_string(major) + "." + std::to_string(rest / 100) + "." +
         std::to_string(rest % 100);
}

int kiln::detail::cuda::ncclDataType(DType dtype) {
  switch (dtype.kind()) {
  case DTypeKind::I8:
    return 0;
  case DTypeKind::U8:
    return 1;
  case DTypeKind::I32:
    return 2;
  case DTypeKind::I64:
    return 4;
  case DTypeKind::F16:
    return 6;
  case DTypeKind::F32:
    return 7;
  case DTypeKind::F64:
    return 8;
  case DTypeKind::BF16:
    return 9;
  default:
    return -1;
  }
}

NcclStatus kiln::detail::cuda::loadNccl(const std::string &library) {
  NcclStatus status;
  status.library = library;
  // Never closed: communicators live until the process ends.
  void *lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    status.reason = "no NCCL (" + library + " not found)";
    return status;
  }
  auto *api = new NcclApi();
  const char *missing = nullptr;
  auto need = [&](const char *name, auto &fn) {
    if (!missing && !resolveSymbol(lib, name, fn))
      missing = name;
  };
  need("ncclGetVersion", api->getVersion);
  if (missing) {
    status.reason = library + " is not NCCL: it has no ncclGetVersion";
    delete api;
    return status;
  }
  need("ncclGetUniqueId", api->getUniqueId);
  need("ncclCommInitRank", api->commInitRank);
  need("ncclCommDestroy", api->commDestroy);
  need("ncclCommAbort", api->commAbort);
  need("ncclCommGetAsyncError", api->commGetAsyncError);
  need("ncclGetErrorString", api->getErrorString);
  need("ncclAllReduce", api->allReduce);
  if (api->getVersion(&status.version) != kNcclSuccess)
    missing = missing ? missing : "a version";
  if (missing) {
    status.reason = "NCCL (" + library + ") lacks " + missing;
    delete api;
    return status;
  }
  if (status.version < kMinNcclVersion) {
    status.reason = "NCCL " + ncclVersionText(status.version) + " (" +
                    library + ") is too old: Kiln needs " +
                    ncclVersionText(kMinNcclVersion) + " or later";
    delete api;
    return status;
  }
  status.api = api;
  return status;
}

const NcclStatus &kiln::detail::cuda::nccl() {
  static const NcclStatus status = [] {
    std::string name = env::ncclLibrary();
    NcclStatus s = loadNccl(name);
    std::string toolkit = env::cudaToolkit();
    if (!s.api && name == "libnccl.so.2" && !toolkit.empty()) {
      NcclStatus t = loadNccl(toolkit + "/lib64/" + name);
      if (t.api)
        return t;
    }
    return s;
  }();
  return status;
}

NcclCommunicator::NcclCommunicator(distributed::Communicator &host,
                                   int device)
    : api_([]() -> const NcclApi & {
        const NcclStatus &n = nccl();
        if (!n.api)
          throw Error("nccl: " + n.reason +
                      "; Cuda collectives need NCCL 2.10 or later "
                      "(KILN_NCCL_LIBRARY names the library)");
        return *n.api;
      }()),
      rank_(host.rank()), size_(host.size()), device_(device),
      timeout_(host.timeout()) {
  std::string where = "cuda:" + std::to_string(device);
  const DriverStatus &d = driver();
  // Rank 0 reports its own failures to the others through the handshake;
  // the others stop at theirs after it (a broadcast needs every rank).
  std::string localError;
  if (!d.api)
    localError = "device " + where + " is not available: " + d.reason;
  else if (device < 0 || device >= d.deviceCount)
    localError = "device " + where + " does not exist on rank " +
                 std::to_string(rank_);
  Handshake h;
  std::memset(&h, 0, sizeof h);
  if (rank_ == 0) {
    if (!localError.empty()) {
      std::strncpy(h.error, localError.c_str(), sizeof h.error - 1);
    } else if (ncclResult_t r = api_.getUniqueId(&h.id); r != kNcclSuccess) {
      std::string e = "ncclGetUniqueId: " + errorString(api_, r);
      std::strncpy(h.error, e.c_str(), sizeof h.error - 1);
    }
  }
  host.broadcast(&h, sizeof h, 0);
  if (h.error[0])
    throw Error("nccl: rank 0 could not start the job's communicator: " +
                std::string(h.error));
  if (!localError.empty())
    throw Error("nccl: " + localError);
  mgpuSetDefaultDevice(device);
  mgpuEnterDevice();
  ncclResult_t r = api_.commInitRank(&comm_, size_, h.id, rank_);
  if (r != kNcclSuccess)
    throw Error("nccl: rank " + std::to_string(rank_) + " on " + where +
                " could not join the job's communicator (ncclCommInitRank: " +
                errorString(api_, r) + ")");
  stream_ = mgpuStreamCreate();
}

NcclCommunicator::~NcclCommunicator() {
  if (!comm_)
    return;
  mgpuSetDefaultDevice(device_);
  try {
    mgpuEnterDevice();
  } catch (...) {
  }
  if (broken_)
    return; // aborted already
  api_.commDestroy(comm_);
}

void NcclCommunicator::fail(const std::string &why) {
  if (!broken_) {
    broken_ = true;
    api_.commAbort(comm_);
  }
  throw Error(why);
}

CUevent NcclCommunicator::allReduce(void *data, int64_t count, DType dtype,
                                    ReduceOp op, CUstream compute,
                                    const std::string &name) {
  // Every dtype checkAllReduce takes has an NCCL type.
  std::string invalid = distributed::checkAllReduce(count, dtype, op);
  if (!invalid.empty())
    throw Error("nccl: " + name + ": " + invalid);
  int type = ncclDataType(dtype);
  if (broken_)
    throw Error("nccl: " + name + ": the communicator of rank " +
                std::to_string(rank_) +
                " was aborted after an earlier failure");
  mgpuSetDefaultDevice(device_);
  CUevent ready = mgpuEventCreate();
  mgpuEventRecord(ready, compute);
  mgpuStreamWaitEvent(stream_, ready);
  mgpuEventDestroy(ready); // the wait holds on to what it recorded
  if (count > 0) {
    mgpuEnterDevice();
    ncclResult_t r =
        api_.allReduce(data, data, static_cast<size_t>(count), type,
                       op == ReduceOp::Mean ? kNcclAvg : kNcclSum, comm_,
                       stream_);
    if (r != kNcclSuccess && r != kNcclInProgress)
      fail("nccl: " + name + " failed on rank " + std::to_string(rank_) +
           ": " + errorString(api_, r));
  }
  CUevent done = mgpuEventCreate();
  mgpuEventRecord(done, stream_);
  return done;
}

void NcclCommunicator::wait(CUevent done, CUstream compute,
                            const std::string &name) {
  using Clock = std::chrono::steady_clock;
  mgpuSetDefaultDevice(device_);
  Clock::time_point deadline = Clock::now() + timeout_;
  while (!mgpuEventQuery(done)) {
    ncclResult_t async = kNcclSuccess;
    api_.commGetAsyncError(comm_, &async);
    if (async != kNcclSuccess && async != kNcclInProgress)
      fail("nccl: " + name + " failed on rank " + std::to_string(rank_) +
           ": " + errorString(api_, async));
    if (Clock::now() > deadline)
      fail("nccl: " + name + " did not end on rank " + std::to_string(rank_) +
           " within " + std::to_string(timeout_.count()) +
           " ms: a rank died or never called it (the communicator is "
           "aborted)");
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  mgpuStreamWaitEvent(compute, done);
  mgpuEventDestroy(done);
}
