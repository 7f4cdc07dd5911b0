//===- Devices.cpp - What the API asks of a device ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Devices.h"
#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/ThreadPool.h"

using namespace kiln;
using namespace kiln::detail;

void detail::requireDevice(DeviceKind kind, int index) {
  getBackend(kind, index);
}

NodePtr detail::leafFromHost(DType dtype, std::vector<int64_t> shape,
                             DeviceKind kind, int index, const void *data,
                             const void *scales) {
  Backend &backend = getBackend(kind, index);
  auto n = makeNode();
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->device = kind;
  n->deviceIndex = index;
  n->buffer = backend.upload(dtype, n->shape, data, scales);
  return n;
}

NodePtr detail::leafOver(Buffer buffer, DeviceKind kind, int index) {
  auto n = makeNode();
  n->dtype = buffer.dtype;
  n->shape = buffer.shape;
  n->device = kind;
  n->deviceIndex = index;
  n->buffer = std::move(buffer);
  return n;
}

NodePtr detail::leafFromExternal(DType dtype, std::vector<int64_t> shape,
                                 std::vector<int64_t> strides, void *data,
                                 size_t bytes, std::function<void()> release,
                                 DeviceKind kind, int index) {
  getBackend(kind, index); // the device must exist here
  auto *raw = new Storage();
  raw->data = data;
  raw->bytes = bytes;
  raw->external = true;
  std::shared_ptr<Storage> storage(raw, [release](Storage *s) {
    delete s;
    if (release)
      release();
  });
  Buffer b;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.strides = std::move(strides);
  b.storage = std::move(storage);
  return leafOver(std::move(b), kind, index);
}

void detail::copyToHost(const Node &node, void *out, void *scales) {
  getBackend(node.device, node.deviceIndex).download(*node.buffer, out, scales);
}

MemoryStats detail::deviceMemory(DeviceKind kind, int index) {
  return getBackend(kind, index).allocator().stats();
}

void detail::resetDevicePeak(DeviceKind kind, int index) {
  getBackend(kind, index).allocator().resetPeak();
}

DeviceCounters detail::deviceCounters(DeviceKind kind, int index) {
  Counters &c = getBackend(kind, index).counters;
  DeviceCounters out;
  out.executedOps = c.executedOps.load();
  out.materializations = c.materializations.load();
  out.compiles = c.compiles.load();
  out.cacheHits = c.cacheHits.load();
  out.diskHits = c.diskHits.load();
  out.graphPasses = c.graphPasses.load();
  out.mlirModules = c.mlirModules.load();
  return out;
}

void detail::setThreadCount(int threads) { setHostThreads(threads); }
int detail::threadCount() { return hostThreads(); }
