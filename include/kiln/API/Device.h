//===- Device.h - Devices and backends --------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_DEVICE_H
#define KILN_API_DEVICE_H

#include "kiln/API/Types.h"

#include <memory>

namespace kiln {

/// Where tensors live and which backend runs their graphs.
///
/// - `flex()`: the eager reference backend (Highway SIMD kernels, no
///   compilation);
/// - `cpu()`: the JIT (MLIR to LLVM, vectorized and multi-threaded);
/// - `cuda(i)`: NVIDIA GPU `i` (MLIR to NVVM to PTX, via the CUDA driver);
/// - `autodiff(inner, strategy)`: `inner`, with every tensor created on it
///   tracked by autodiff under `strategy`.
class DispatchDevice {
public:
  static DispatchDevice flex();
  static DispatchDevice cpu();
  static DispatchDevice cuda(int index = 0);
  static DispatchDevice autodiff(const DispatchDevice &inner,
                                 CheckpointingStrategy strategy);
  /// `KILN_DEVICE=flex|cpu|cuda[:i]` if set, otherwise the best available.
  static DispatchDevice defaultDevice();
  /// The devices that can run here, best first.
  static std::vector<DispatchDevice> available();

  DeviceKind kind() const { return kind_; }
  int index() const { return index_; }
  bool isAutodiff() const { return checkpointing_.has_value(); }
  const std::optional<CheckpointingStrategy> &checkpointing() const {
    return checkpointing_;
  }
  /// The same device without autodiff.
  DispatchDevice backend() const { return DispatchDevice(kind_, index_); }
  /// "flex", "cpu", "cuda:0", "autodiff(flex, balanced)".
  std::string str() const;

  /// Materializes every pending tensor of this device that is still held
  /// (on the thread of an in-process rank, distributed::runInProcess: every
  /// one that rank recorded).
  void sync() const;

  /// Same backend and index (autodiff wrappers included).
  bool operator==(const DispatchDevice &o) const {
    return kind_ == o.kind_ && index_ == o.index_ &&
           checkpointing_ == o.checkpointing_;
  }
  bool operator!=(const DispatchDevice &o) const { return !(*this == o); }
  bool sameBackend(const DispatchDevice &o) const {
    return kind_ == o.kind_ && index_ == o.index_;
  }

  DispatchDevice(DeviceKind kind, int index,
                 std::optional<CheckpointingStrategy> checkpointing = {})
      : kind_(kind), index_(index), checkpointing_(checkpointing) {}

private:
  DeviceKind kind_;
  int index_;
  std::optional<CheckpointingStrategy> checkpointing_;
};

/// Bytes held by a device's tensors and buffers (kiln/Support/MemoryStats.h).
MemoryStats memoryStats(const DispatchDevice &device);
/// Starts a new peak measurement at the current usage.
void resetPeakMemory(const DispatchDevice &device);

/// What a device's backend has done since the process started.
struct BackendCounters {
  int64_t executedOps = 0;   ///< kernels (Flex: ops) run
  int64_t materializations = 0;
  int64_t compiles = 0;      ///< executables built (cache misses)
  int64_t cacheHits = 0;     ///< executables taken from a cache
  int64_t diskHits = 0;      ///< of which from the disk cache
  int64_t graphPasses = 0;   ///< runs of the graph passes
  int64_t mlirModules = 0;   ///< MLIR modules built from recorded graphs
};
BackendCounters backendCounters(const DispatchDevice &device);

/// Threads a backend may use for large work (default: all cores); at least
/// 1, else a kiln::Error.
void setNumThreads(int threads);
int numThreads();

} // namespace kiln

#endif // KILN_API_DEVICE_H
