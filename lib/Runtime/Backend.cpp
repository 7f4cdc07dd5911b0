//===- Backend.cpp - Backends of the devices ------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/CpuBackend.h"
#include "kiln/Runtime/CudaBackend.h"
#include "kiln/Runtime/FlexBackend.h"

#include <cstring>
#include <mutex>

using namespace kiln;
using namespace kiln::detail;

Backend &kiln::detail::getBackend(DeviceKind kind, int index) {
  switch (kind) {
  case DeviceKind::Flex: {
    // One host device: a second index would name a device that does not
    // exist, and its tensors would mix silently with flex's.
    if (index != 0)
      throw Error("device flex:" + std::to_string(index) +
                  " does not exist; the host is flex (index 0)");
    static std::unique_ptr<Backend> flex = createFlexBackend();
    return *flex;
  }
  case DeviceKind::Cpu: {
    if (index != 0)
      throw Error("device cpu:" + std::to_string(index) +
                  " does not exist; the host is cpu (index 0)");
    static std::unique_ptr<Backend> cpu = createCpuBackend();
    return *cpu;
  }
  case DeviceKind::Cuda:
    return getCudaBackend(index);
  }
  throw Error("unknown device");
}

Buffer Backend::upload(DType dtype, const std::vector<int64_t> &shape,
                       const void *host, const void *hostScales) {
  Buffer b = allocateBuffer(allocator(), dtype, shape);
  std::memcpy(b.storage->data, host,
              dtype.isQuantized() ? quantValueBytes(dtype.scheme(), b.numel())
                                  : b.numel() * dtype.byteSize());
  if (dtype.isQuantized() && hostScales)
    std::memcpy(b.scales->data, hostScales,
                quantScaleCount(dtype.scheme(), shape) *
                    DType(dtype.scheme().scale).byteSize());
  return b;
}

void Backend::download(const Buffer &buffer, void *host, void *hostScales) {
  if (buffer.dtype.isQuantized()) {
    const QuantScheme &q = buffer.dtype.scheme();
    std::memcpy(host, buffer.storage->data,
                quantValueBytes(q, buffer.numel()));
    if (hostScales)
      std::memcpy(hostScales, buffer.scales->data,
                  quantScaleCount(q, buffer.shape) * DType(q.scale).byteSize());
    return;
  }
  copyToContiguous(buffer, host);
}

void kiln::detail::copyToContiguous(const Buffer &src, void *dst) {
  size_t elem = src.elementBytes();
  int64_t n = src.numel();
  if (n == 0)
    return;
  if (src.isContiguous()) {
    std::memcpy(dst, src.data(), n * elem);
    return;
  }
  const char *base = static_cast<const char *>(src.storage->data);
  char *out = static_cast<char *>(dst);
  int rank = src.rank();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = src.offset;
  // Copy runs along the innermost dim.
  int64_t inner = src.shape[rank - 1], innerStride = src.strides[rank - 1];
  int64_t rows = n / inner;
  for (int64_t r = 0; r < rows; ++r) {
    if (innerStride == 1) {
      std::memcpy(out, base + off * elem, inner * elem);
      out += inner * elem;
    } else {
      for (int64_t k = 0; k < inner; ++k) {
        std::memcpy(out, base + (off + k * innerStride) * elem, elem);
        out += elem;
      }
    }
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < src.shape[d]) {
        off += src.strides[d];
        break;
      }
      off -= src.strides[d] * (src.shape[d] - 1);
      idx[d] = 0;
    }
  }
}
