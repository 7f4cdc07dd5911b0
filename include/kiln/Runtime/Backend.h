//===- Backend.h - What every backend provides ------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A backend loads the artifact a target made of a graph (kiln/Runtime/
// Artifact.h: plain data, from the compiler or from the disk cache) into an
// Executable and runs it. Flex's executable is a plan of Highway kernel
// calls; Cpu's a plan of JIT-linked object code; Cuda's PTX plus a launch
// plan. The backends know nothing of MLIR or of the targets.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_BACKEND_H
#define KILN_RUNTIME_BACKEND_H

#include "kiln/Runtime/Buffer.h"
#include "kiln/Support/DeviceKind.h"
#include "kiln/Support/Error.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::detail {

struct Artifact;

/// The compiled form of one pending graph. `run` may be called from several
/// threads at once.
class Executable {
public:
  virtual ~Executable() = default;
  /// `args` in function-argument order. An argument whose `donated` flag is
  /// set is held by nobody else: its storage may be written in place.
  /// Returns one buffer per function result.
  virtual std::vector<Buffer> run(std::vector<Buffer> &args,
                                  const std::vector<bool> &donated) = 0;
  /// Kernels (or Flex steps) that one run launches.
  virtual int64_t kernelCount() const = 0;

  /// What the target and the disk cache add to the one KILN_LOG=compile
  /// line that compileModule prints, so that a compile is reported once,
  /// whole.
  struct CompileLog {
    std::string id;      ///< names the compiled code, e.g. its cache entry
    std::string kernels; ///< what the kernels fuse
    std::string phases;  ///< the backend's own timings ("1.0 ms MLIR, ...")
  };
  CompileLog compileLog;
};

/// Per-backend counters, exposed through kiln::backendCounters.
struct Counters {
  std::atomic<int64_t> executedOps{0};
  std::atomic<int64_t> materializations{0};
  std::atomic<int64_t> compiles{0};
  std::atomic<int64_t> cacheHits{0};
  std::atomic<int64_t> diskHits{0};
  /// Runs of the graph pipeline, and MLIR modules the engine built from a
  /// recorded graph: compiles do both, disk hits neither.
  std::atomic<int64_t> graphPasses{0};
  std::atomic<int64_t> mlirModules{0};
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual DeviceKind kind() const = 0;
  virtual std::string name() const = 0;
  /// Which device of its kind (cuda:N); 0 for the host backends.
  virtual int index() const { return 0; }
  virtual Allocator &allocator() = 0;

  /// The executable of `artifact` (made by this backend's target). Throws
  /// kiln::Error when the artifact is not one this backend runs.
  virtual std::unique_ptr<Executable> load(const Artifact &artifact) = 0;

  /// A contiguous copy of host data on this backend.
  virtual Buffer upload(DType dtype, const std::vector<int64_t> &shape,
                        const void *host, const void *hostScales = nullptr);
  /// Copies a (possibly strided) buffer of this backend into contiguous host
  /// memory.
  virtual void download(const Buffer &buffer, void *host,
                        void *hostScales = nullptr);

  Counters counters;
};

/// The backend of a device; throws kiln::Error with the reason when the
/// device cannot run here (no GPU, bad index).
Backend &getBackend(DeviceKind kind, int index);

/// Adds the backend of `kind`: `get(index)` returns device `index`'s (each
/// backend's folder has a function that calls this).
void registerBackend(DeviceKind kind, std::function<Backend &(int index)> get);
/// Registers every backend of lib/Runtime, once.
void registerAllBackends();
/// The one backend of a host device kind: index 0 only, made on first use
/// by `make` into `backend`, which lives until the process ends (buffers
/// held by static objects may be released after any destructor ran).
Backend &hostBackend(DeviceKind kind, int index, Backend *&backend,
                     const std::function<Backend *()> &make);

/// Copies any strided host view into contiguous memory of the same dtype.
void copyToContiguous(const Buffer &src, void *dst);

} // namespace kiln::detail

#endif // KILN_RUNTIME_BACKEND_H
