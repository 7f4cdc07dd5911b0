//===- Tensor.h - DispatchTensor --------------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_TENSOR_H
#define KILN_API_TENSOR_H

#include "kiln/API/Device.h"
#include "kiln/API/Types.h"

#include <functional>
#include <iosfwd>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

namespace kiln {

namespace detail {
struct Node;
struct Storage;
} // namespace detail

/// The backend primitive behind a handle: a pending node of the device's
/// graph until it is materialized, then a buffer owned by one backend.
class DispatchTensorKind {
public:
  enum class State : uint8_t { Pending, Flex, Cpu, Cuda };

  State state() const;
  bool isPending() const { return state() == State::Pending; }
  /// "pending kiln.add", "flex buffer", ...
  std::string str() const;

  std::shared_ptr<detail::Node> node;
};

/// A materialized tensor of one backend, viewed without copying.
struct BackendTensor {
  DType dtype;
  Shape shape;
  std::vector<int64_t> strides; ///< in elements
  int64_t offset = 0;           ///< in elements
  std::shared_ptr<detail::Storage> storage;
  /// Host address of element 0 (Flex and Cpu); device address for Cuda.
  const void *data() const;
};

/// Backend tags for try_into_backend / from_backend.
struct Flex {
  using Tensor = BackendTensor;
  static constexpr DeviceKind kind = DeviceKind::Flex;
};
struct Cpu {
  using Tensor = BackendTensor;
  static constexpr DeviceKind kind = DeviceKind::Cpu;
};
struct Cuda {
  using Tensor = BackendTensor;
  static constexpr DeviceKind kind = DeviceKind::Cuda;
};

class DispatchTensor;
/// Prints dtype, shape, device and (after materializing) the values.
std::ostream &operator<<(std::ostream &os, const DispatchTensor &t);

/// A cheap, copyable handle to a lazily computed tensor. Operations record
/// into the device's pending graph; only reading data, `sync()` and device
/// transfers materialize.
class DispatchTensor {
public:
  DispatchTensor() = default;

  DispatchTensorKind kind;
  /// Set when autodiff tracks this tensor, with the strategy it uses.
  std::optional<CheckpointingStrategy> checkpointing;

  //===--- Factories ------------------------------------------------------===//

  template <typename T>
  static DispatchTensor fromVector(const std::vector<T> &values, Shape shape,
                                   const DispatchDevice &device) {
    return fromData(DType(DTypeOf<T>::kind), values.data(), values.size(),
                    std::move(shape), device);
  }
  static DispatchTensor fromVector(const std::vector<bool> &values, Shape shape,
                                   const DispatchDevice &device);
  /// Copies `count` elements of `dtype` from `data`.
  static DispatchTensor fromData(DType dtype, const void *data, size_t count,
                                 Shape shape, const DispatchDevice &device);
  static DispatchTensor full(Shape shape, double value, DType dtype,
                             const DispatchDevice &device);
  static DispatchTensor zeros(Shape shape, DType dtype,
                              const DispatchDevice &device);
  static DispatchTensor ones(Shape shape, DType dtype,
                             const DispatchDevice &device);
  /// start, start + step, ... below end.
  static DispatchTensor arange(double start, double end, double step,
                               DType dtype, const DispatchDevice &device);
  static DispatchTensor arange(int64_t n, DType dtype,
                               const DispatchDevice &device);
  static DispatchTensor eye(int64_t n, DType dtype,
                            const DispatchDevice &device);
  static DispatchTensor eye(int64_t n, int64_t m, DType dtype,
                            const DispatchDevice &device);
  /// Uniform in [low, high), counter-based: the same on every backend.
  static DispatchTensor rand(Shape shape, DType dtype,
                             const DispatchDevice &device, uint64_t seed,
                             double low = 0.0, double high = 1.0);
  /// Normal(mean, std), counter-based.
  static DispatchTensor randn(Shape shape, DType dtype,
                              const DispatchDevice &device, uint64_t seed,
                              double mean = 0.0, double std = 1.0);
  /// A rank-0 tensor holding `value`.
  static DispatchTensor scalar(double value, DType dtype,
                               const DispatchDevice &device);

  //===--- Metadata (never executes anything) -----------------------------===//

  DType dtype() const;
  Shape shape() const;
  size_t rank() const;
  int64_t numel() const;
  DispatchDevice device() const;
  /// The quantization scheme; an error for a tensor that is not quantized.
  QuantScheme scheme() const;
  /// True when this handle alone owns a materialized buffer, so in-place
  /// operations may write it instead of copying.
  bool can_mut() const;
  bool isPending() const { return kind.isPending(); }
  bool defined() const { return static_cast<bool>(kind.node); }

  //===--- Materializers --------------------------------------------------===//

  /// Materializes and copies the values out, row-major. T must match the
  /// dtype exactly (use cast() first to convert).
  template <typename T> std::vector<T> toVector() const {
    std::vector<T> out = hostVector<T>();
    copyTo(DType(DTypeOf<T>::kind), out.data(), out.size());
    return out;
  }
  /// The value of a one-element tensor.
  template <typename T> T item() const {
    T out{};
    copyItem(DType(DTypeOf<T>::kind), &out);
    return out;
  }
  /// Computes the tensor now (no-op when already materialized).
  const DispatchTensor &sync() const;
  /// A copy on `device` (materializes this tensor first).
  DispatchTensor to(const DispatchDevice &device) const;

  /// The backend's own tensor (materializes). Fails, naming both backends,
  /// when the tensor lives on another backend.
  template <typename B> typename B::Tensor try_into_backend() const {
    return intoBackend(B::kind);
  }
  /// Wraps a backend tensor; `device` may add autodiff tracking.
  static DispatchTensor from_backend(const BackendTensor &tensor,
                                     const DispatchDevice &device);
  /// A tensor over host memory another library owns (DLPack, numpy): never
  /// written, never reused for a result; `release` runs once Kiln no longer
  /// refers to it. `strides` are in elements (empty: row-major); `bytes`,
  /// the memory readable at `data`, must cover every element. Flex reads
  /// it in place; the Cpu kernels read whole 64-byte lines, so they read
  /// it in place when `data` is 64-byte aligned and `bytes` a multiple of
  /// 64, and otherwise from a copy made for each run. Flex and Cpu devices
  /// only.
  static DispatchTensor fromExternal(DType dtype, Shape shape,
                                     std::vector<int64_t> strides, void *data,
                                     size_t bytes,
                                     std::function<void()> release,
                                     const DispatchDevice &device);

  //===--- Member sugar for shape ops and reductions
  //-----------------------===//

  DispatchTensor reshape(Shape shape) const;
  DispatchTensor permute(std::vector<int64_t> dims) const;
  DispatchTensor transpose(int64_t d0 = -2, int64_t d1 = -1) const;
  DispatchTensor expand(Shape shape) const;
  DispatchTensor squeeze(std::vector<int64_t> axes) const;
  DispatchTensor unsqueeze(int64_t axis) const;
  DispatchTensor flatten() const;
  DispatchTensor slice(std::vector<int64_t> starts, std::vector<int64_t> ends,
                       std::vector<int64_t> steps = {}) const;
  /// Elements [start, end) along one axis.
  DispatchTensor narrow(int64_t axis, int64_t start, int64_t length) const;
  DispatchTensor cast(DType dtype) const;

  DispatchTensor sum(int64_t axis, bool keepdim = false) const;
  DispatchTensor sum() const;
  DispatchTensor mean(int64_t axis, bool keepdim = false) const;
  DispatchTensor mean() const;
  DispatchTensor prod(int64_t axis, bool keepdim = false) const;
  DispatchTensor max(int64_t axis, bool keepdim = false) const;
  DispatchTensor max() const;
  DispatchTensor min(int64_t axis, bool keepdim = false) const;
  DispatchTensor min() const;
  DispatchTensor argmax(int64_t axis, bool keepdim = false) const;
  DispatchTensor argmin(int64_t axis, bool keepdim = false) const;
  DispatchTensor any(int64_t axis, bool keepdim = false) const;
  DispatchTensor all(int64_t axis, bool keepdim = false) const;
  DispatchTensor cumsum(int64_t axis) const;
  DispatchTensor softmax(int64_t axis = -1) const;
  DispatchTensor logSoftmax(int64_t axis = -1) const;
  DispatchTensor matmul(const DispatchTensor &other) const;

  //===--- In-place forms: write this buffer when can_mut() allows
  //---------===//

  DispatchTensor &addInPlace(const DispatchTensor &other);
  DispatchTensor &subInPlace(const DispatchTensor &other);
  DispatchTensor &mulInPlace(const DispatchTensor &other);
  DispatchTensor &sliceAssignInPlace(const DispatchTensor &value,
                                     std::vector<int64_t> starts,
                                     std::vector<int64_t> ends,
                                     std::vector<int64_t> steps = {});
  /// Marks dim `dim` dynamic: a graph that reads this tensor as an input
  /// compiles once for any size of that dim (on Cpu; see "Shapes and
  /// recompilation" in docs/tools.md). Returns *this.
  DispatchTensor &markDynamic(int64_t dim);
  /// Rebinds this handle to `value`'s graph (an optimizer's update).
  DispatchTensor &assign(const DispatchTensor &value);

  //===--- Autodiff
  //---------------------------------------------------------===//

  /// Tracks this tensor with its device's strategy (Disabled when the device
  /// is not an autodiff device). Returns *this.
  DispatchTensor &
  requireGrad(std::optional<CheckpointingStrategy> strategy = std::nullopt);
  /// The same values, untracked: gradients stop here.
  DispatchTensor detach() const;

  explicit DispatchTensor(std::shared_ptr<detail::Node> node);

private:
  /// numel(), with errors that name the reading call `what`.
  size_t elementCount(const char *what) const;
  /// Throws the kiln::Error of a host allocation of `bytes` that failed.
  [[noreturn]] void hostOutOfMemory(size_t elements, size_t bytes) const;
  /// A vector for toVector's values; running out of memory is a kiln::Error.
  template <typename T> std::vector<T> hostVector() const {
    size_t n = elementCount("toVector");
    try {
      return std::vector<T>(n);
    } catch (const std::bad_alloc &) {
    } catch (const std::length_error &) {
    }
    hostOutOfMemory(n, sizeof(T));
  }
  void copyTo(DType expected, void *out, size_t count) const;
  void copyItem(DType expected, void *out) const;
  BackendTensor intoBackend(DeviceKind kind) const;
};

/// bool has no contiguous std::vector storage: read bytes and convert.
template <> inline std::vector<bool> DispatchTensor::toVector<bool>() const {
  std::vector<uint8_t> bytes = hostVector<uint8_t>();
  copyTo(DType::Bool, bytes.data(), bytes.size());
  return std::vector<bool>(bytes.begin(), bytes.end());
}

/// Materializes several tensors in one graph, so shared work runs once.
void sync(const std::vector<DispatchTensor> &tensors);

/// The pending graph that `tensors` depend on, as kiln-dialect MLIR.
std::string dumpGraph(const DispatchTensor &tensor);
std::string dumpGraph(const std::vector<DispatchTensor> &tensors);

} // namespace kiln

#endif // KILN_API_TENSOR_H
