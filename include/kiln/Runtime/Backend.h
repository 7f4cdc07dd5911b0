//===- Backend.h - What every backend provides ------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A backend turns the transformed kiln module of one materialization into an
// Executable (compile, on a cache miss) and runs it (every time). Flex's
// executable is a plan of Highway kernel calls; Cpu's is JIT-compiled code;
// Cuda's is PTX plus a launch plan.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_BACKEND_H
#define KILN_RUNTIME_BACKEND_H

#include "kiln/Runtime/Buffer.h"
#include "kiln/Support/DeviceKind.h"
#include "kiln/Support/Error.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace kiln::detail {

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

  /// What Backend::compile adds to the one KILN_LOG=compile line that
  /// compileModule prints, so that a compile is reported once, whole.
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
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual DeviceKind kind() const = 0;
  virtual std::string name() const = 0;
  virtual Allocator &allocator() = 0;

  /// Compiles function @main of `module`, which the graph pipeline
  /// (--kiln-graph-pipeline with this backend as its target) has fused. `key`
  /// identifies the graph's structure (for caches that outlive the process).
  /// Throws kiln::Error.
  virtual std::unique_ptr<Executable> compile(mlir::ModuleOp module,
                                              const std::string &key) = 0;

  /// The executable that an earlier compile of `key` (in any process) left
  /// in the disk cache, rebuilt without running a pass; null when there is
  /// none or the backend keeps none. What it stored is read in `ctx`.
  virtual std::unique_ptr<Executable> loadCompiled(mlir::MLIRContext &ctx,
                                                   const std::string &key) {
    return nullptr;
  }

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

/// Copies any strided host view into contiguous memory of the same dtype.
void copyToContiguous(const Buffer &src, void *dst);

} // namespace kiln::detail

#endif // KILN_RUNTIME_BACKEND_H
