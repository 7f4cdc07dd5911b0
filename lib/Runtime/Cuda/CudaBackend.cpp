//===- CudaBackend.cpp - The CUDA backend ---------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Running on a GPU: the Cuda target (lib/Target/Cuda) gives a plan over
// buffer slots and PTX; the PTX is loaded once per executable through the
// driver, which compiles it for the GPU at hand. Every launch and copy of a
// device goes to one stream, in order, so a buffer freed after its last reader
// can be handed to the next writer without waiting: the stream orders them.
// Downloads wait for the stream.
//
// A collective step hands its buffer to the job's NCCL communicator (made
// for the calling thread's collective queue on first use), whose reduction
// runs on a stream of its own after the kernels queued so far; the wait
// step orders the device's stream after it.
//
// Device memory comes from a caching allocator: freed blocks are kept by
// size class and reused, since a training step frees and allocates the same
// sizes every time and cuMemAlloc/cuMemFree synchronize the device.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaBackend.h"
#include "Mgpu.h"
#include "Nccl.h"
#include "kiln/Runtime/Artifact.h"
#include "kiln/Runtime/CudaProgram.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Support/Env.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cuda;

namespace {

class CudaBackendImpl;

/// Device memory with a cache of freed blocks per size class.
class CudaAllocator : public Allocator {
public:
  explicit CudaAllocator(CudaBackendImpl &backend) : backend_(backend) {}
  void trim() override;

protected:
  void *rawAllocate(size_t bytes) override;
  void rawFree(void *p, size_t bytes) override;

private:
  /// Sizes are rounded to classes so that nearby sizes share blocks: 512
  /// bytes below 1 MiB, 2 MiB (the driver's large page) above.
  static size_t sizeClass(size_t bytes) {
    size_t unit = bytes < (size_t(1) << 20) ? 512 : (size_t(2) << 20);
    return (bytes + unit - 1) / unit * unit;
  }

  CudaBackendImpl &backend_;
  std::mutex mu_;
  std::multimap<size_t, void *> cache_;
};

class CudaBackendImpl : public Backend {
public:
  CudaBackendImpl(int index) : index_(index), allocator_(*this) {
    const DriverApi &api = *driver().api;
    CUdevice dev;
    check(api.cuDeviceGet(&dev, index), "cuDeviceGet");
    char name[256] = {};
    api.cuDeviceGetName(name, sizeof name, dev);
    name_ = name;
    check(api.cuDeviceGetAttribute(
              &major_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
          "cuDeviceGetAttribute");
    check(api.cuDeviceGetAttribute(
              &minor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
          "cuDeviceGetAttribute");
    chip_ = chipFor(major_, minor_);
    if (chip_.empty())
      throw Error("device cuda:" + std::to_string(index) + " (" + name_ +
                  ", compute capability " + std::to_string(major_) + "." +
                  std::to_string(minor_) +
                  ") is not supported: Kiln needs sm_50 or later");
    // KILN_CUDA_MMA=0 keeps f32 matmul off the tensor cores.
    mma_ = env::cudaMma();
  }

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  std::string name() const override {
    return "cuda:" + std::to_string(index_);
  }
  Allocator &allocator() override { return allocator_; }

  std::unique_ptr<Executable> load(const Artifact &a) override;

  CudaCodeTarget codeTarget() const { return {chip_, mma_}; }

  Buffer upload(DType dtype, const std::vector<int64_t> &shape,
                const void *host, const void *hostScales = nullptr) override {
    CUstream s = stream();
    Buffer b = allocateBuffer(allocator_, dtype, shape);
    if (dtype.isQuantized()) {
      const QuantScheme &q = dtype.scheme();
      mgpuMemcpyHtoD(b.storage->data, host, quantValueBytes(q, b.numel()), s);
      if (hostScales)
        mgpuMemcpyHtoD(b.scales->data, hostScales,
                       quantScaleCount(q, shape) * DType(q.scale).byteSize(),
                       s);
      else
        mgpuMemset8(b.scales->data, 0, b.scales->bytes, s);
    } else {
      mgpuMemcpyHtoD(b.storage->data, host, b.numel() * dtype.byteSize(), s);
    }
    return b;
  }

  void download(const Buffer &buffer, void *host,
                void *hostScales = nullptr) override {
    CUstream s = stream();
    if (buffer.dtype.isQuantized()) {
      const QuantScheme &q = buffer.dtype.scheme();
      mgpuMemcpyDtoH(host, buffer.storage->data,
                     quantValueBytes(q, buffer.numel()), s);
      if (hostScales)
        mgpuMemcpyDtoH(hostScales, buffer.scales->data,
                       quantScaleCount(q, buffer.shape) *
                           DType(q.scale).byteSize(),
                       s);
      mgpuStreamSynchronize(s);
      return;
    }
    if (buffer.isContiguous()) {
      mgpuMemcpyDtoH(host, buffer.data(),
                     buffer.numel() * buffer.elementBytes(), s);
      mgpuStreamSynchronize(s);
      return;
    }
    // A strided view: bring its whole storage over and gather on the host.
    Buffer view = buffer;
    view.storage = hostCopy(*buffer.storage);
    copyToContiguous(view, host);
  }

  /// A contiguous, 16-byte aligned copy of `b` (or `b` itself): what
  /// kernels read.
  Buffer kernelOperand(const Buffer &b) {
    if (b.dtype.isQuantized())
      return b;
    bool aligned = reinterpret_cast<uintptr_t>(b.data()) % 16 == 0;
    if (b.isContiguous() && aligned)
      return b;
    Buffer out = allocateBuffer(allocator_, b.dtype, b.shape);
    if (b.isContiguous()) {
      mgpuMemcpyDtoD(out.storage->data, b.data(), b.numel() * b.elementBytes(),
                     stream());
      return out;
    }
    std::vector<char> host(b.numel() * b.elementBytes());
    download(b, host.data(), nullptr);
    mgpuMemcpyHtoD(out.storage->data, host.data(), host.size(), stream());
    return out;
  }

  /// Makes this device current on the calling thread and returns its
  /// stream, created on first use so that listing devices costs no context.
  CUstream stream() {
    mgpuSetDefaultDevice(index_);
    std::call_once(streamOnce_, [this] { stream_ = mgpuStreamCreate(); });
    return stream_;
  }

  int index() const override { return index_; }

private:
  std::shared_ptr<Storage> hostCopy(const Storage &device) {
    auto s = hostAllocator_.allocate(device.bytes);
    mgpuMemcpyDtoH(s->data, device.data, device.bytes, stream());
    mgpuStreamSynchronize(stream());
    return s;
  }

  int index_;
  std::string name_, chip_;
  int major_ = 0, minor_ = 0;
  bool mma_ = true;
  CudaAllocator allocator_;
  HostAllocator hostAllocator_;
  std::once_flag streamOnce_;
  CUstream stream_ = nullptr;
};

void *CudaAllocator::rawAllocate(size_t bytes) {
  size_t size = sizeClass(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(size);
    if (it != cache_.end()) {
      void *p = it->second;
      cache_.erase(it);
      return p;
    }
  }
  CUstream s = backend_.stream();
  void *p = mgpuMemAlloc(size, s, false);
  if (!p) {
    // Cached blocks of other sizes may be what fills the device.
    trim();
    p = mgpuMemAlloc(size, s, false);
  }
  if (!p) {
    size_t freeBytes = 0, totalBytes = 0;
    mgpuMemGetInfo(&freeBytes, &totalBytes);
    throw Error("cuda:" + std::to_string(backend_.index()) +
                ": out of device memory allocating " + std::to_string(bytes) +
                " bytes (" + std::to_string(stats().currentBytes) +
                " bytes held by Kiln, " + std::to_string(freeBytes) + " of " +
                std::to_string(totalBytes) + " free)");
  }
  return p;
}

void CudaAllocator::rawFree(void *p, size_t bytes) {
  // Kept for reuse: no driver call, so freeing never waits for the GPU and
  // is safe while kernels that read the block are still queued (the next
  // user of the block is queued after them on the same stream).
  std::lock_guard<std::mutex> lock(mu_);
  cache_.emplace(sizeClass(bytes), p);
}

void CudaAllocator::trim() {
  std::multimap<size_t, void *> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(cache_);
  }
  if (blocks.empty())
    return;
  CUstream s = backend_.stream();
  // cuMemFree waits for the device, so no queued kernel still reads them.
  for (auto &[size, p] : blocks)
    mgpuMemFree(p, s);
}

/// Which part of an all-reduce a host step is: its start, its wait, or
/// both (kiln.all_reduce that was not split).
enum class Collective { None, Start, Wait, Both };

/// A host step of a Cuda plan: a collective (on NCCL), or a new shape over
/// the same contiguous storage (reshape, squeeze, unsqueeze).
struct HostOp {
  Collective collective = Collective::None;
  distributed::ReduceOp reduce = distributed::ReduceOp::Sum;
  std::vector<int64_t> shape;
};

HostOp hostOpOf(const OpDesc &op) {
  HostOp h;
  if (op.name == "kiln.all_reduce_start" || op.name == "kiln.all_reduce") {
    h.collective =
        op.name == "kiln.all_reduce" ? Collective::Both : Collective::Start;
    h.reduce = reduceOpOf(op);
  } else if (op.name == "kiln.all_reduce_wait") {
    h.collective = Collective::Wait;
  } else if (op.name == "kiln.reshape" || op.name == "kiln.squeeze" ||
             op.name == "kiln.unsqueeze") {
    h.shape = resultShape(op);
  } else {
    throw Error("cuda: no runtime step for " + op.name);
  }
  return h;
}

class CudaExecutable : public Executable {
public:
  CudaExecutable(CudaBackendImpl &backend, const Artifact &a,
                 CudaProgram program)
      : backend_(backend), plan_(a.plan), program_(std::move(program)) {
    std::unordered_map<std::string, CUmodule> modules;
    for (auto &[name, ptx] : program_.ptx)
      modules[name] = mgpuModuleLoadJIT(ptx.data(), 4, ptx.size());
    // Modules stay loaded for the process: executables live in a global
    // cache, and unloading at exit could run after the driver is gone.
    for (KernelSpec &k : program_.kernels) {
      functions_.emplace_back();
      for (LaunchSpec &l : k.launches) {
        auto it = modules.find(l.module);
        if (it == modules.end())
          throw Error("cuda: no PTX for kernel module " + l.module);
        functions_.back().push_back(
            mgpuModuleGetFunction(it->second, l.function.c_str()));
      }
    }
    program_.ptx.clear();
    HostAllocator host;
    for (const OpDesc &c : a.constants) {
      Buffer b = contiguous(constantBuffer(c, host), host);
      constants_.push_back(backend_.upload(b.dtype, b.shape, b.data()));
    }
    for (const OpDesc &op : a.ops)
      hostOps_.push_back(hostOpOf(op));
  }

  std::vector<Buffer> run(std::vector<Buffer> &args,
                          const std::vector<bool> &) override {
    CUstream s = backend_.stream();
    return runPlan(plan_, args, constants_, backend_.counters.executedOps,
                   [&](const StepRun &r) {
                     if (r.step.kind == kCudaKernelStep) {
                       runKernel(r, s);
                       return;
                     }
                     const HostOp &op = hostOps_[r.step.index];
                     if (op.collective != Collective::None) {
                       r.results[0] = runCollective(op, r, s);
                       return;
                     }
                     Buffer in = backend_.kernelOperand(*r.operands[0]);
                     in.shape = op.shape;
                     in.strides = Buffer::contiguousStrides(op.shape);
                     r.results[0] = std::move(in);
                   });
  }

  int64_t kernelCount() const override { return program_.kernels.size(); }

private:
  /// A reduction in flight on this thread, by the storage being reduced.
  struct InFlight {
    std::shared_ptr<NcclCommunicator> comm;
    CUevent done;
    int64_t seq;                   ///< in the queue's records
    std::string name;              ///< for errors: allReduce #seq (...)
    std::shared_ptr<Storage> keep; ///< until the reduction has ended
  };
  static std::unordered_map<const Storage *, InFlight> &inFlight() {
    thread_local std::unordered_map<const Storage *, InFlight> m;
    return m;
  }

  /// The NCCL communicator of `queue`'s job on this device.
  std::shared_ptr<NcclCommunicator> ncclFor(distributed::CollectiveQueue &q) {
    int device = backend_.index();
    return std::static_pointer_cast<NcclCommunicator>(q.attachment(
        "nccl:cuda:" + std::to_string(device), [&]() -> std::shared_ptr<void> {
          std::shared_ptr<NcclCommunicator> comm;
          q.runInOrder([&](distributed::Communicator &host) {
            comm = std::make_shared<NcclCommunicator>(host, device);
          });
          return comm;
        }));
  }

  /// Runs a start, a wait, or both. With no queue (a job of one rank) both
  /// are identities. The buffer reduced is the operand's own when it dies
  /// here and nothing else holds it, else a copy.
  Buffer runCollective(const HostOp &op, const StepRun &r, CUstream s) {
    distributed::CollectiveQueue *queue = distributed::currentCollectives();
    if (!queue)
      return *r.operands[0];
    llvm::SmallVector<bool, 1> reusable;
    bool starts = op.collective != Collective::Wait;
    if (starts) // before `token` holds the storage too
      reusableOperands(r.step.operands, r.step.dying, r.slots, reusable);
    Buffer token = *r.operands[0];
    if (starts) {
      Buffer in = token;
      token = backend_.kernelOperand(in);
      if (token.storage == in.storage && !reusable[0]) {
        token = allocateBuffer(backend_.allocator(), in.dtype, in.shape);
        mgpuMemcpyDtoD(token.storage->data, in.data(),
                       in.numel() * in.elementBytes(), s);
      }
      std::shared_ptr<NcclCommunicator> comm = ncclFor(*queue);
      InFlight f{comm, nullptr, 0, "", token.storage};
      f.seq = queue->recordStart(token.numel(), token.dtype, op.reduce);
      f.name = distributed::allReduceName(f.seq, token.numel(), token.dtype,
                                          op.reduce);
      f.done = comm->allReduce(token.data(), token.numel(), token.dtype,
                               op.reduce, s, f.name);
      inFlight()[token.storage.get()] = std::move(f);
    }
    if (op.collective != Collective::Start) {
      auto it = inFlight().find(token.storage.get());
      if (it == inFlight().end())
        throw Error("internal error: kiln.all_reduce_wait: no all-reduce of "
                    "this buffer was started on this thread");
      InFlight f = std::move(it->second);
      inFlight().erase(it);
      double from = queue->nowMs();
      f.comm->wait(f.done, s, f.name);
      queue->recordWait(f.seq, from, queue->nowMs());
    }
    return token;
  }

  void runKernel(const StepRun &r, CUstream s) {
    const KernelSpec &k = program_.kernels[r.step.index];
    llvm::MutableArrayRef<Buffer> results = r.results;
    Allocator &alloc = backend_.allocator();
    // The kernel's buffers in its ABI order: inputs (quantized ones as
    // values and scales), outputs, workspace.
    std::vector<void *> pointers;
    std::vector<Buffer> inputs;
    auto push = [&](const Buffer &b) {
      if (b.dtype.isQuantized()) {
        pointers.push_back(b.storage->data);
        pointers.push_back(b.scales->data);
      } else {
        pointers.push_back(b.data());
      }
    };
    for (const Buffer *b : r.operands) {
      inputs.push_back(backend_.kernelOperand(*b));
      push(inputs.back());
    }
    for (size_t i = 0; i < results.size(); ++i) {
      results[i] = allocateBuffer(alloc, k.outTypes[i], k.outShapes[i]);
      push(results[i]);
    }
    std::shared_ptr<Storage> workspace;
    if (k.workspaceBytes > 0) {
      workspace = alloc.allocate(k.workspaceBytes);
      pointers.push_back(workspace->data);
    }
    const std::vector<CUfunction> &fns = functions_[r.step.index];
    std::vector<void *> params;
    for (size_t i = 0; i < k.launches.size(); ++i) {
      const LaunchSpec &l = k.launches[i];
      params.clear();
      for (int a : l.args) {
        if (a < 0 || a >= (int)pointers.size())
          throw Error("cuda: kernel " + l.function + " reads buffer " +
                      std::to_string(a) + " of " +
                      std::to_string(pointers.size()));
        params.push_back(&pointers[a]);
      }
      mgpuLaunchKernel(fns[i], l.grid[0], l.grid[1], l.grid[2], l.block[0],
                       l.block[1], l.block[2], 0, s, params.data(), nullptr,
                       params.size());
    }
  }

  CudaBackendImpl &backend_;
  Plan plan_;
  CudaProgram program_;
  std::vector<std::vector<CUfunction>> functions_;
  std::vector<HostOp> hostOps_;
  std::vector<Buffer> constants_;
};

std::unique_ptr<Executable> CudaBackendImpl::load(const Artifact &a) {
  std::optional<CudaProgram> program = decodeCudaProgram(a.payload);
  if (a.backend != "cuda" || !program)
    throw Error("cuda: the artifact is not a Cuda program");
  for (const PlanStep &s : a.plan.steps) {
    size_t n = s.kind == kCudaKernelStep ? program->kernels.size()
               : s.kind == kHostOpStep   ? a.ops.size()
                                         : 0;
    if (s.index < 0 || static_cast<size_t>(s.index) >= n)
      throw Error("cuda: the plan has a step the program does not hold");
  }
  return std::make_unique<CudaExecutable>(*this, a, std::move(*program));
}

} // namespace

std::string cuda::chipFor(int major, int minor) {
  // Chips LLVM 22's NVPTX backend targets with PTX 8.0; a newer GPU runs
  // PTX for the newest of them (the driver compiles PTX forward).
  static const int known[] = {50, 52, 53, 60, 61, 62, 70,
                              72, 75, 80, 86, 87, 89, 90};
  int cc = major * 10 + minor;
  int best = 0;
  for (int k : known)
    if (k <= cc)
      best = k;
  return best ? "sm_" + std::to_string(best) : "";
}

Backend &kiln::detail::getCudaBackend(int index) {
  std::string device = "device cuda:" + std::to_string(index);
  const DriverStatus &d = driver();
  if (!d.api)
    throw Error(device + " is not available: " + d.reason);
  if (index < 0 || index >= d.deviceCount) {
    std::string have = d.deviceCount == 1
                           ? "1 CUDA GPU (cuda:0)"
                           : std::to_string(d.deviceCount) +
                                 " CUDA GPUs (cuda:0 to cuda:" +
                                 std::to_string(d.deviceCount - 1) + ")";
    throw Error(device + " does not exist; this machine has " + have);
  }
  static std::mutex mu;
  // Never destroyed: device buffers held by static tensors may be freed
  // after main returns, into the allocator's cache.
  static std::vector<CudaBackendImpl *> backends;
  std::lock_guard<std::mutex> lock(mu);
  if (backends.empty())
    backends.assign(d.deviceCount, nullptr);
  if (!backends[index])
    backends[index] = new CudaBackendImpl(index);
  return *backends[index];
}

CudaCodeTarget kiln::detail::cudaCodeTarget(int index) {
  return static_cast<CudaBackendImpl &>(getCudaBackend(index)).codeTarget();
}

void kiln::detail::registerCudaBackend() {
  registerBackend(DeviceKind::Cuda,
                  [](int index) -> Backend & { return getCudaBackend(index); });
}
