//===- Buffer.h - Device memory, views and allocators -----------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A Storage is one block of device memory; a Buffer is a strided view of a
// storage (plus a scales storage for quantized tensors). Freeing happens when
// the last Buffer or node holding a Storage lets go of it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_BUFFER_H
#define KILN_RUNTIME_BUFFER_H

#include "kiln/Support/DType.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/MemoryStats.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln::detail {

class Allocator;

/// One block of memory owned by an allocator.
struct Storage {
  void *data = nullptr;
  size_t bytes = 0;
  Allocator *allocator = nullptr;
  /// Memory another library owns (DLPack): read in place, never written,
  /// never given to a result.
  bool external = false;

  Storage() = default;
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  ~Storage();
};

/// Counts the bytes of the storages a device holds.
class Allocator {
public:
  virtual ~Allocator() = default;
  std::shared_ptr<Storage> allocate(size_t bytes);
  MemoryStats stats() const;
  void resetPeak();
  /// Returns cached blocks to the system.
  virtual void trim() {}

protected:
  virtual void *rawAllocate(size_t bytes) = 0;
  virtual void rawFree(void *p, size_t bytes) = 0;

private:
  friend struct Storage;
  void release(Storage &s);

  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocations_{0};
};

/// Host memory, 64-byte aligned, with a bounded cache of freed blocks so that
/// a loop of same-sized temporaries does not go back to the kernel (mmap and
/// page faults) on every step.
class HostAllocator : public Allocator {
public:
  explicit HostAllocator(size_t cacheLimitBytes = size_t(1) << 30);
  ~HostAllocator() override;
  void trim() override;

protected:
  void *rawAllocate(size_t bytes) override;
  void rawFree(void *p, size_t bytes) override;

private:
  std::mutex mu_;
  std::vector<std::pair<size_t, void *>> cache_;
  size_t cachedBytes_ = 0;
  size_t cacheLimit_;
};

/// A strided view of a storage. Strides and offset are in elements.
struct Buffer {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::shared_ptr<Storage> storage;
  /// Quantized tensors: one scale per block (or one), contiguous.
  std::shared_ptr<Storage> scales;

  int64_t numel() const;
  int rank() const { return static_cast<int>(shape.size()); }
  bool isContiguous() const;
  /// Bytes of one element as stored (q4: half a byte, reported as 1).
  size_t elementBytes() const { return dtype.byteSize(); }
  /// Address of element 0 of the view.
  void *data() const {
    return static_cast<char *>(storage->data) +
           offset * static_cast<int64_t>(elementBytes());
  }
  template <typename T> T *as() const { return static_cast<T *>(data()); }
  /// Row-major strides for `shape`.
  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &s);
};

/// Number of scales a quantized tensor of `shape` needs.
int64_t quantScaleCount(const QuantScheme &scheme,
                        const std::vector<int64_t> &shape);
/// Bytes that hold `numel` quantized values (q4 packs two per byte).
size_t quantValueBytes(const QuantScheme &scheme, int64_t numel);

/// The first value of an i64 or i32 index buffer (row-major over its view,
/// whatever its strides) outside [0, size) and other than `allowed`; none
/// when all are inside.
std::optional<int64_t>
firstIndexOutside(const Buffer &indices, int64_t size,
                  std::optional<int64_t> allowed = std::nullopt);

/// A fresh contiguous buffer of `dtype` and `shape` from `allocator`.
Buffer allocateBuffer(Allocator &allocator, DType dtype,
                      const std::vector<int64_t> &shape);

} // namespace kiln::detail

#endif // KILN_RUNTIME_BUFFER_H
