//===- Backend.cpp - Backends of the devices ------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Backend.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

using namespace kiln;
using namespace kiln::detail;

namespace {

struct BackendRegistry {
  std::mutex mu;
  std::vector<std::pair<DeviceKind, std::function<Backend &(int)>>> backends;

  static BackendRegistry &get() {
    static BackendRegistry *r = new BackendRegistry(); // never destroyed
    return *r;
  }
};

} // namespace

void detail::registerBackend(DeviceKind kind,
                             std::function<Backend &(int index)> get) {
  BackendRegistry &r = BackendRegistry::get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.backends.push_back({kind, std::move(get)});
}

Backend &detail::getBackend(DeviceKind kind, int index) {
  registerAllBackends();
  std::function<Backend &(int)> get;
  {
    BackendRegistry &r = BackendRegistry::get();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto &[k, g] : r.backends)
      if (k == kind)
        get = g;
  }
  if (!get)
    throw Error("no backend is registered for " + deviceName(kind, 0));
  return get(index);
}

Backend &detail::hostBackend(DeviceKind kind, int index, Backend *&backend,
                             const std::function<Backend *()> &make) {
  // One host device: a second index would name a device that does not
  // exist, and its tensors would mix silently with the first's.
  if (index != 0)
    throw Error("device " + deviceName(kind, 0) + ":" + std::to_string(index) +
                " does not exist; the host is " + deviceName(kind, 0) +
                " (index 0)");
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (!backend)
    backend = make();
  return *backend;
}

Buffer Backend::upload(DType dtype, const std::vector<int64_t> &shape,
                       const void *host, const void *hostScales) {
  Buffer b = allocateBuffer(allocator(), dtype, shape);
  size_t bytes = dtype.isQuantized()
                     ? quantValueBytes(dtype.scheme(), b.numel())
                     : b.numel() * dtype.byteSize();
  // An empty tensor's host pointer may be null, which memcpy must not see.
  if (bytes == 0)
    return b;
  std::memcpy(b.storage->data, host, bytes);
  if (dtype.isQuantized() && hostScales)
    std::memcpy(b.scales->data, hostScales,
                quantScaleCount(dtype.scheme(), shape) *
                    DType(dtype.scheme().scale).byteSize());
  return b;
}

void Backend::download(const Buffer &buffer, void *host, void *hostScales) {
  if (buffer.numel() == 0)
    return;
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

namespace {

/// Copies a view whose innermost dim is strided but whose dim `j` is
/// contiguous in memory (a transpose, or any permute that moves the
/// contiguous dim): every pair (dim j, last dim) is copied as a 2-D
/// transpose in square blocks through a small tile, so that memory is read
/// and written in whole cache lines.
template <typename T>
void copyTransposed(const Buffer &src, int j, T *out) {
  constexpr int64_t kBlock = 32;
  T tile[kBlock][kBlock];
  const T *base = static_cast<const T *>(src.storage->data);
  int rank = src.rank();
  int last = rank - 1;
  int64_t rowsA = src.shape[j], colsB = src.shape[last];
  int64_t strideB = src.strides[last];
  // Output strides (row-major, contiguous).
  std::vector<int64_t> outStrides(rank, 1);
  for (int d = rank - 2; d >= 0; --d)
    outStrides[d] = outStrides[d + 1] * src.shape[d + 1];
  // Every other dim is walked by an odometer.
  std::vector<int> others;
  for (int d = 0; d < last; ++d)
    if (d != j)
      others.push_back(d);
  std::vector<int64_t> idx(others.size(), 0);
  int64_t srcOff = src.offset, outOff = 0;
  for (;;) {
    for (int64_t a0 = 0; a0 < rowsA; a0 += kBlock) {
      int64_t a1 = std::min(rowsA, a0 + kBlock);
      for (int64_t b0 = 0; b0 < colsB; b0 += kBlock) {
        int64_t b1 = std::min(colsB, b0 + kBlock);
        // Read whole source lines into the tile, then write whole output
        // lines from it: the strided accesses stay inside the tile.
        for (int64_t b = b0; b < b1; ++b) {
          const T *from = base + srcOff + b * strideB;
          for (int64_t a = a0; a < a1; ++a)
            tile[b - b0][a - a0] = from[a];
        }
        for (int64_t a = a0; a < a1; ++a) {
          T *to = out + outOff + a * outStrides[j];
          for (int64_t b = b0; b < b1; ++b)
            to[b] = tile[b - b0][a - a0];
        }
      }
    }
    int k = static_cast<int>(others.size()) - 1;
    for (; k >= 0; --k) {
      int d = others[k];
      if (++idx[k] < src.shape[d]) {
        srcOff += src.strides[d];
        outOff += outStrides[d];
        break;
      }
      srcOff -= src.strides[d] * (src.shape[d] - 1);
      outOff -= outStrides[d] * (src.shape[d] - 1);
      idx[k] = 0;
    }
    if (k < 0)
      return;
  }
}

/// Copies one row of `n` elements `stride` apart. A short contiguous row is
/// a loop the compiler vectorizes: a library call per row of 16 elements
/// (a product's [C, N * P] result read as [N, C, P]) costs more than the
/// copy.
template <typename T>
inline void copyRow(const T *from, int64_t stride, int64_t n, T *to) {
  if (stride == 1 && n >= 64) {
    std::memcpy(to, from, n * sizeof(T));
  } else if (stride == 1) {
    for (int64_t k = 0; k < n; ++k)
      to[k] = from[k];
  } else {
    for (int64_t k = 0; k < n; ++k)
      to[k] = from[k * stride];
  }
}

/// Copies any view row by row along its innermost dim, with the element
/// type known so that a strided or reversed row (a flipped kernel's taps)
/// is a loop of loads, not a library call per element. Dims that memory
/// lays out one after the other are walked as one (a flipped 3 x 3 kernel
/// is a row of 9 read backwards).
template <typename T> void copyRows(const Buffer &src, T *out) {
  std::vector<int64_t> shape, strides;
  for (int d = 0; d < src.rank(); ++d) {
    if (src.shape[d] == 1)
      continue;
    if (!shape.empty() && strides.back() == src.strides[d] * src.shape[d]) {
      shape.back() *= src.shape[d];
      strides.back() = src.strides[d];
      continue;
    }
    shape.push_back(src.shape[d]);
    strides.push_back(src.strides[d]);
  }
  if (shape.empty()) {
    shape.push_back(1);
    strides.push_back(1);
  }
  const T *base = static_cast<const T *>(src.storage->data);
  int rank = static_cast<int>(shape.size());
  int64_t inner = shape[rank - 1], innerStride = strides[rank - 1];
  int64_t rows = src.numel() / inner;
  std::vector<int64_t> idx(rank, 0);
  int64_t off = src.offset;
  // Rows far apart (a flipped kernel's, one per output channel) defeat the
  // hardware's prefetch: the row 16 steps ahead along the dim walked
  // fastest is asked for, both its ends (a row of 9 may straddle two
  // lines): a ResNet-18 step copies its three 512-channel kernels in 10 ms
  // instead of 12.
  constexpr int64_t kAhead = 16;
  int64_t ahead = rank >= 2 ? kAhead * strides[rank - 2] : 0;
  bool prefetch =
      rank >= 2 && (ahead < 0 ? -ahead : ahead) * int64_t(sizeof(T)) >= 8192;
  for (int64_t r = 0; r < rows; ++r, out += inner) {
    if (prefetch && idx[rank - 2] + kAhead < shape[rank - 2]) {
      __builtin_prefetch(base + off + ahead);
      __builtin_prefetch(base + off + ahead + (inner - 1) * innerStride);
    }
    copyRow(base + off, innerStride, inner, out);
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

/// The dim of `src`, other than the last, that is contiguous in memory and
/// long enough for blocking to pay; -1 if there is none.
int contiguousInnerDim(const Buffer &src) {
  int last = src.rank() - 1;
  if (last < 1 || src.strides[last] == 1 || src.shape[last] < 8)
    return -1;
  for (int d = 0; d < last; ++d)
    if (src.strides[d] == 1 && src.shape[d] >= 8)
      return d;
  return -1;
}

} // namespace

void kiln::detail::copyToContiguous(const Buffer &src, void *dst) {
  size_t elem = src.elementBytes();
  int64_t n = src.numel();
  if (n == 0)
    return;
  if (src.isContiguous()) {
    std::memcpy(dst, src.data(), n * elem);
    return;
  }
  if (int j = contiguousInnerDim(src); j >= 0) {
    switch (elem) {
    case 1:
      return copyTransposed(src, j, static_cast<uint8_t *>(dst));
    case 2:
      return copyTransposed(src, j, static_cast<uint16_t *>(dst));
    case 4:
      return copyTransposed(src, j, static_cast<uint32_t *>(dst));
    case 8:
      return copyTransposed(src, j, static_cast<uint64_t *>(dst));
    default:
      break;
    }
  }
  switch (elem) {
  case 1:
    return copyRows(src, static_cast<uint8_t *>(dst));
  case 2:
    return copyRows(src, static_cast<uint16_t *>(dst));
  case 4:
    return copyRows(src, static_cast<uint32_t *>(dst));
  case 8:
    return copyRows(src, static_cast<uint64_t *>(dst));
  default:
    break;
  }
  throw Error("internal error: runtime: a view of " + std::to_string(elem) +
              "-byte elements cannot be copied");
}
