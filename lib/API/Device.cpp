//===- Device.cpp - Devices, memory statistics, counters ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Record.h"
#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/ThreadPool.h"
#include "kiln/Support/Env.h"

#include <cstdlib>
#include <cstring>
#include <unordered_map>

using namespace kiln;
using namespace kiln::detail;

DispatchDevice DispatchDevice::flex() { return {DeviceKind::Flex, 0}; }

DispatchDevice DispatchDevice::cpu() {
  getBackend(DeviceKind::Cpu, 0); // a clear error when it cannot run
  return {DeviceKind::Cpu, 0};
}

DispatchDevice DispatchDevice::cuda(int index) {
  if (index < 0)
    throw Error("cuda: device index " + std::to_string(index) +
                " is negative");
  getBackend(DeviceKind::Cuda, index);
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
    getBackend(kind, index);
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
  return getBackend(device.kind(), device.index()).allocator().stats();
}

void kiln::resetPeakMemory(const DispatchDevice &device) {
  getBackend(device.kind(), device.index()).allocator().resetPeak();
}

BackendCounters kiln::backendCounters(const DispatchDevice &device) {
  Counters &c = getBackend(device.kind(), device.index()).counters;
  BackendCounters out;
  out.executedOps = c.executedOps.load();
  out.materializations = c.materializations.load();
  out.compiles = c.compiles.load();
  out.cacheHits = c.cacheHits.load();
  out.diskHits = c.diskHits.load();
  return out;
}

void kiln::setNumThreads(int threads) { setHostThreads(threads); }
int kiln::numThreads() { return hostThreads(); }
