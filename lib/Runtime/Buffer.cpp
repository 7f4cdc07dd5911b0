//===- Buffer.cpp - Device memory, views and allocators -------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace kiln;
using namespace kiln::detail;

Storage::~Storage() {
  if (allocator)
    allocator->release(*this);
}

std::shared_ptr<Storage> Allocator::allocate(size_t bytes) {
  auto s = std::make_shared<Storage>();
  // Round up so that vector kernels may read whole 64-byte lines.
  size_t rounded = std::max<size_t>(64, (bytes + 63) & ~size_t(63));
  s->data = rawAllocate(rounded);
  if (!s->data)
    throw Error("out of memory allocating " + std::to_string(bytes) +
                " bytes");
  s->bytes = rounded;
  s->allocator = this;
  int64_t now = current_.fetch_add(rounded) + rounded;
  int64_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
  allocations_.fetch_add(1);
  return s;
}

void Allocator::release(Storage &s) {
  rawFree(s.data, s.bytes);
  current_.fetch_sub(s.bytes);
  s.data = nullptr;
}

MemoryStats Allocator::stats() const {
  MemoryStats m;
  m.currentBytes = current_.load();
  m.peakBytes = peak_.load();
  m.allocations = allocations_.load();
  return m;
}

void Allocator::resetPeak() { peak_.store(current_.load()); }

/// Large buffers start on a 2 MiB boundary and ask the kernel for huge
/// pages, so that a matmul walking a big operand's rows (16 KiB apart for
/// a 4096-wide one) or its columns does not miss the TLB on each of them,
/// and first touch faults once per 2 MiB instead of once per 4 KiB. The
/// size is not rounded up: a tail past the last whole 2 MiB keeps small
/// pages, so nothing is allocated that the statistics do not count.
static constexpr size_t kHugePage = size_t(2) << 20;

static void *hostAllocate(size_t bytes) {
  if (bytes < kHugePage)
    return std::aligned_alloc(64, bytes);
  void *p = nullptr;
  if (posix_memalign(&p, kHugePage, bytes) != 0)
    return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE); // advice only: failure is harmless
#endif
  return p;
}

HostAllocator::HostAllocator(size_t cacheLimitBytes)
    : cacheLimit_(cacheLimitBytes) {}

HostAllocator::~HostAllocator() { trim(); }

/// Blocks up to this size skip the cache: malloc's own per-thread caches
/// serve them faster than a locked search of ours (a recorded scalar's
/// buffer is one, on every op that takes a number).
static constexpr size_t kSmallBlock = 4096;

void *HostAllocator::rawAllocate(size_t bytes) {
  if (bytes <= kSmallBlock)
    return std::aligned_alloc(64, bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Exact-size reuse keeps the cache simple and the peak honest.
    for (size_t i = cache_.size(); i-- > 0;) {
      if (cache_[i].first == bytes) {
        void *p = cache_[i].second;
        cache_[i] = cache_.back();
        cache_.pop_back();
        cachedBytes_ -= bytes;
        return p;
      }
    }
  }
  return hostAllocate(bytes);
}

void HostAllocator::rawFree(void *p, size_t bytes) {
  if (bytes <= kSmallBlock) {
    std::free(p);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes <= cacheLimit_ / 4) {
    while (cachedBytes_ + bytes > cacheLimit_ && !cache_.empty()) {
      cachedBytes_ -= cache_.front().first;
      std::free(cache_.front().second);
      cache_.erase(cache_.begin());
    }
    cache_.push_back({bytes, p});
    cachedBytes_ += bytes;
    return;
  }
  std::free(p);
}

void HostAllocator::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto &[bytes, p] : cache_)
    std::free(p);
  cache_.clear();
  cachedBytes_ = 0;
}

int64_t Buffer::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t>
Buffer::contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

bool Buffer::isContiguous() const {
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != s)
      return false;
    s *= shape[i];
  }
  return true;
}

int64_t detail::quantScaleCount(const QuantScheme &scheme,
                                const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return scheme.isPerTensor() ? 1 : n / scheme.blockSize;
}

size_t detail::quantValueBytes(const QuantScheme &scheme, int64_t numel) {
  return scheme.values == QuantScheme::Values::Q4 ? (numel + 1) / 2
                                                  : static_cast<size_t>(numel);
}

std::optional<int64_t>
detail::firstIndexOutside(const Buffer &b, int64_t size,
                          std::optional<int64_t> allowed) {
  auto at = [&](int64_t offset) -> int64_t {
    if (b.dtype.kind() == DTypeKind::I64)
      return static_cast<const int64_t *>(b.storage->data)[offset];
    return static_cast<const int32_t *>(b.storage->data)[offset];
  };
  std::vector<int64_t> index(b.shape.size(), 0);
  int64_t count = b.numel(), offset = b.offset;
  for (int64_t k = 0; k < count; ++k) {
    int64_t v = at(offset);
    if ((v < 0 || v >= size) && v != allowed)
      return v;
    for (size_t d = b.shape.size(); d-- > 0;) {
      offset += b.strides[d];
      if (++index[d] < b.shape[d])
        break;
      offset -= b.strides[d] * b.shape[d];
      index[d] = 0;
    }
  }
  return std::nullopt;
}

Buffer detail::allocateBuffer(Allocator &allocator, DType dtype,
                              const std::vector<int64_t> &shape) {
  Buffer b;
  b.dtype = dtype;
  b.shape = shape;
  b.strides = Buffer::contiguousStrides(shape);
  int64_t n = b.numel();
  if (dtype.isQuantized()) {
    const QuantScheme &q = dtype.scheme();
    b.storage = allocator.allocate(quantValueBytes(q, n));
    b.scales = allocator.allocate(quantScaleCount(q, shape) *
                                  DType(q.scale).byteSize());
  } else {
    b.storage = allocator.allocate(static_cast<size_t>(n) * dtype.byteSize());
  }
  return b;
}
