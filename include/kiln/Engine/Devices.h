//===- Devices.h - What the API asks of a device ----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The API reaches the backends only through the engine: data in and out of
// a device, its memory and counters, and the host threads.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_DEVICES_H
#define KILN_ENGINE_DEVICES_H

#include "kiln/Engine/Graph.h"
#include "kiln/Support/MemoryStats.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace kiln::detail {

/// Throws kiln::Error with the reason when the device cannot run here (no
/// GPU, a bad index).
void requireDevice(DeviceKind kind, int index);

/// A materialized node on the device holding a copy of host data (and,
/// quantized, of its scales).
NodePtr leafFromHost(DType dtype, std::vector<int64_t> shape, DeviceKind kind,
                     int index, const void *data, const void *scales = nullptr);

/// A materialized node over `buffer` (its dtype and shape) on the device.
NodePtr leafOver(Buffer buffer, DeviceKind kind, int index);

/// A materialized node over host memory another library owns, read in
/// place and never written or given to a result; `release` runs once no
/// buffer refers to it.
NodePtr leafFromExternal(DType dtype, std::vector<int64_t> shape,
                         std::vector<int64_t> strides, void *data, size_t bytes,
                         std::function<void()> release, DeviceKind kind,
                         int index);

/// Copies the values (and scales) of a materialized node to host memory,
/// contiguous.
void copyToHost(const Node &node, void *out, void *scales = nullptr);

MemoryStats deviceMemory(DeviceKind kind, int index);
void resetDevicePeak(DeviceKind kind, int index);

/// What a device's backend has done since the process started.
struct DeviceCounters {
  int64_t executedOps = 0;
  int64_t materializations = 0;
  int64_t compiles = 0;
  int64_t cacheHits = 0;
  int64_t diskHits = 0;
  int64_t graphPasses = 0;
  int64_t mlirModules = 0;
};
DeviceCounters deviceCounters(DeviceKind kind, int index);

/// Threads the host backends use for large work.
void setThreadCount(int threads);
int threadCount();

} // namespace kiln::detail

#endif // KILN_ENGINE_DEVICES_H
