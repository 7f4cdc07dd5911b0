//===- Device.cpp - Devices, memory statistics, counters ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Record.h"
#include "kiln/Support/Env.h"

#include <cstdlib>
#include <cstring>
#include <unordered_map>

using namespace kiln;
using namespace kiln::detail;

DispatchDevice DispatchDevice::flex() { return {DeviceKind::Flex, 0}; }

DispatchDevice DispatchDevice::cpu() {
  requireDevice(DeviceKind::Cpu, 0); // a clear error when it cannot run
  return {DeviceKind::Cpu, 0};
}

DispatchDevice DispatchDevice::cuda(int index) {
  if (index < 0)
    throw Error("cuda: device index " + std::to_string(index) +
                " is negative");
  requireDevice(DeviceKind::Cuda, index);
  return {DeviceKind::Cuda, index};
}

DispatchDevice DispatchDevice::autodiff(const DispatchDevice &inner,
                                        CheckpointingStrategy strategy) {
  if (inner.isAutodiff())
    throw Error("autodiff: " + inner.str() +
                " is already an autodiff device");
  if (strategy.kind() == CheckpointingStrategy::Kind::Budget &&
      strategy.budgetBytes() <= 0)
    throw Error("autodiff: a memory budget must be positive, got " +
                std::to_string(strategy.budgetBytes()) + " bytes");
  return {inner.kind(), inner.index(), strategy};
}

static bool canRun(DeviceKind kind, int index) {
  try {
    requireDevice(kind, index);
    return true;
  } catch (const Error &) {
    return false;
  }
}

std::vector<DispatchDevice> DispatchDevice::available() {
  std::vector<DispatchDevice> out;
  for (int i = 0; i < 16 && canRun(DeviceKind::Cuda, i); ++i)
    out.push_back({DeviceKind::Cuda, i});
  if (canRun(DeviceKind::Cpu, 0))
    out.push_back({DeviceKind::Cpu, 0});
  out.push_back({DeviceKind::Flex, 0});
  return out;
}

DispatchDevice DispatchDevice::defaultDevice() {
  std::string v = env::device();
  if (v.empty())
    return available().front();
  if (v == "flex")
    return flex();
  if (v == "cpu")
    return cpu();
  if (v == "cuda")
    return cuda(0);
  if (v.rfind("cuda:", 0) == 0) {
    char *end = nullptr;
    long i = std::strtol(v.c_str() + 5, &end, 10);
    if (end && *end == '\0' && end != v.c_str() + 5)
      return cuda(static_cast<int>(i));
  }
  throw Error("KILN_DEVICE=" + v + " is not one of flex, cpu, cuda, cuda:N");
}

std::string DispatchDevice::str() const {
  std::string base = deviceName(kind_, index_);
  if (checkpointing_)
    return "autodiff(" + base + ", " + checkpointing_->str() + ")";
  return base;
}

void DispatchDevice::sync() const { materialize(heldPending(kind_, index_)); }

MemoryStats kiln::memoryStats(const DispatchDevice &device) {
  return deviceMemory(device.kind(), device.index());
}

void kiln::resetPeakMemory(const DispatchDevice &device) {
  resetDevicePeak(device.kind(), device.index());
}

BackendCounters kiln::backendCounters(const DispatchDevice &device) {
  DeviceCounters c = deviceCounters(device.kind(), device.index());
  BackendCounters out;
  out.executedOps = c.executedOps;
  out.materializations = c.materializations;
  out.compiles = c.compiles;
  out.cacheHits = c.cacheHits;
  out.diskHits = c.diskHits;
  out.graphPasses = c.graphPasses;
  out.mlirModules = c.mlirModules;
  return out;
}

void kiln::setNumThreads(int threads) {
  if (threads < 1)
    throw Error("setNumThreads: the thread count must be >= 1, got " +
                std::to_string(threads));
  setThreadCount(threads);
}
int kiln::numThreads() { return threadCount(); }
