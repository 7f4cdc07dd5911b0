//===- FlexKernels.h - How Flex kernels are written -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Flex interprets a kiln function op by op. For each op, a KernelBuilder
// reads the op's attributes and types once (at compile time) and returns a
// Step: a closure over plain data that runs the op on buffers. Running a
// cached plan therefore never touches MLIR.
//
// Kernels compute f16 and bf16 in f32, bool as bool, and integers in their
// own type. Inputs may be strided views (broadcasts are stride-0 views);
// outputs are fresh contiguous buffers unless the step may reuse a dying
// input of the same type and shape.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_FLEX_FLEXKERNELS_H
#define KILN_LIB_RUNTIME_FLEX_FLEXKERNELS_H

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/ThreadPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

namespace mlir {
class Operation;
namespace kiln {
class ConstantOp;
} // namespace kiln
} // namespace mlir

namespace kiln::detail::flex {

/// What a running step may use besides its operands.
struct StepContext {
  Allocator &allocator;
  /// reusable[i]: operand i dies at this step and nothing else holds its
  /// storage, so the step may write its output there.
  const bool *reusable = nullptr;
};

using Step = std::function<void(llvm::ArrayRef<const Buffer *> operands,
                                llvm::MutableArrayRef<Buffer> results,
                                StepContext &ctx)>;
using KernelBuilder = std::function<Step(mlir::Operation *op)>;

/// Op name -> builder. Each kernel file adds its ops in a register function.
class KernelRegistry {
public:
  void add(llvm::StringRef opName, KernelBuilder builder) {
    builders_[opName] = std::move(builder);
  }
  const KernelBuilder *lookup(llvm::StringRef opName) const {
    auto it = builders_.find(opName);
    return it == builders_.end() ? nullptr : &it->second;
  }

private:
  llvm::StringMap<KernelBuilder> builders_;
};

void registerCreationKernels(KernelRegistry &r);
void registerElementwiseKernels(KernelRegistry &r);
void registerReductionKernels(KernelRegistry &r);
void registerMatmulKernels(KernelRegistry &r);
void registerShapeKernels(KernelRegistry &r);
void registerIndexingKernels(KernelRegistry &r);
void registerNNKernels(KernelRegistry &r);
void registerQuantKernels(KernelRegistry &r);

//===----------------------------------------------------------------------===//
// Reading op facts at build time
//===----------------------------------------------------------------------===//

/// DType and shape of an op's operand / result.
DType operandDType(mlir::Operation *op, unsigned i);
DType resultDType(mlir::Operation *op, unsigned i = 0);
std::vector<int64_t> operandShape(mlir::Operation *op, unsigned i);
std::vector<int64_t> resultShape(mlir::Operation *op, unsigned i = 0);
/// Integer array / float / integer attribute by name (throws if missing).
std::vector<int64_t> arrayAttr(mlir::Operation *op, llvm::StringRef name);
double floatAttr(mlir::Operation *op, llvm::StringRef name);
int64_t intAttr(mlir::Operation *op, llvm::StringRef name);
bool unitAttr(mlir::Operation *op, llvm::StringRef name);

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The C++ type kernels compute with for a stored type.
template <typename T> struct ComputeOf {
  using type = T;
};
template <> struct ComputeOf<Half> {
  using type = float;
};
template <> struct ComputeOf<BFloat16> {
  using type = float;
};

template <typename T> inline typename ComputeOf<T>::type load(const T &v) {
  return v;
}
template <> inline float load<Half>(const Half &v) { return v.toFloat(); }
template <> inline float load<BFloat16>(const BFloat16 &v) {
  return v.toFloat();
}

template <typename T, typename C> inline T storeAs(C v) {
  return static_cast<T>(v);
}
template <> inline Half storeAs<Half, float>(float v) {
  return Half::fromFloat(v);
}
template <> inline BFloat16 storeAs<BFloat16, float>(float v) {
  return BFloat16::fromFloat(v);
}

template <typename T> struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) with the stored C++ type of `dtype`.
template <typename F> void dispatchAny(DType dtype, F &&f) {
  switch (dtype.kind()) {
  case DTypeKind::F64:
    return f(TypeTag<double>{});
  case DTypeKind::F32:
    return f(TypeTag<float>{});
  case DTypeKind::F16:
    return f(TypeTag<Half>{});
  case DTypeKind::BF16:
    return f(TypeTag<BFloat16>{});
  case DTypeKind::I64:
    return f(TypeTag<int64_t>{});
  case DTypeKind::I32:
    return f(TypeTag<int32_t>{});
  case DTypeKind::I16:
    return f(TypeTag<int16_t>{});
  case DTypeKind::I8:
    return f(TypeTag<int8_t>{});
  case DTypeKind::U8:
    return f(TypeTag<uint8_t>{});
  case DTypeKind::Bool:
    return f(TypeTag<bool>{});
  case DTypeKind::QFloat:
    break;
  }
  throw Error("flex: no kernel for dtype " + dtype.str());
}

template <typename T>
constexpr bool isFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
    std::is_same_v<T, BFloat16>;

/// dispatchAny for ops that only take floats; any other dtype throws,
/// naming `op`.
template <typename F>
void dispatchFloat(DType dtype, llvm::StringRef op, F &&f) {
  dispatchAny(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (isFloatLike<T>)
      f(tag);
    else
      throw Error("flex: " + op.str() + " has no kernel for " + dtype.str());
  });
}

/// Index values of an i64 or i32 tensor element.
inline int64_t loadIndex(const Buffer &b, int64_t flatOffset) {
  if (b.dtype.kind() == DTypeKind::I64)
    return static_cast<const int64_t *>(b.storage->data)[flatOffset];
  return static_cast<const int32_t *>(b.storage->data)[flatOffset];
}

//===----------------------------------------------------------------------===//
// Views and iteration
//===----------------------------------------------------------------------===//

/// `b` seen with `shape` by numpy broadcasting (stride 0 where stretched).
Buffer broadcastView(const Buffer &b, const std::vector<int64_t> &shape);

/// Offset (in elements, from storage start) of every element of a view, in
/// row-major order of its shape, passed to fn(k, offset).
template <typename F> void forEachOffset(const Buffer &b, F &&fn) {
  int rank = b.rank();
  int64_t n = b.numel();
  if (n == 0)
    return;
  if (b.isContiguous()) {
    for (int64_t k = 0; k < n; ++k)
      fn(k, b.offset + k);
    return;
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t off = b.offset;
  for (int64_t k = 0; k < n; ++k) {
    fn(k, off);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < b.shape[d]) {
        off += b.strides[d];
        break;
      }
      off -= b.strides[d] * (b.shape[d] - 1);
      idx[d] = 0;
    }
  }
}

/// The value of a kiln.constant as a buffer (a splat: one element seen
/// through stride-0 strides).
Buffer constantBuffer(mlir::kiln::ConstantOp op, Allocator &allocator);

/// Copies `src` (broadcast to dst's shape) into the view `dst`.
void copyInto(const Buffer &src, const Buffer &dst);

/// A contiguous copy (or the buffer itself if already contiguous).
Buffer contiguous(const Buffer &b, Allocator &allocator);

/// A contiguous copy of `b` converted to `dtype` (the buffer itself when it
/// already is both), for kernels that compute in one type whatever they read.
inline Buffer contiguousAs(const Buffer &b, DType dtype, Allocator &allocator) {
  if (b.dtype == dtype)
    return contiguous(b, allocator);
  Buffer out = allocateBuffer(allocator, dtype, b.shape);
  dispatchAny(b.dtype, [&](auto from) {
    using F = typename decltype(from)::type;
    dispatchAny(dtype, [&](auto to) {
      using T = typename decltype(to)::type;
      using C = typename ComputeOf<T>::type;
      const F *src = static_cast<const F *>(b.storage->data);
      T *dst = out.as<T>();
      forEachOffset(b, [&](int64_t k, int64_t off) {
        dst[k] = storeAs<T>(static_cast<C>(load(src[off])));
      });
    });
  });
  return out;
}

/// The result buffer of an elementwise step: a reusable operand of the same
/// dtype and shape when there is one, else a fresh buffer.
Buffer elementwiseOutput(llvm::ArrayRef<const Buffer *> operands,
                         StepContext &ctx, DType dtype,
                         const std::vector<int64_t> &shape);

/// Runs an N-ary elementwise loop. `operands` are already broadcast to
/// `out.shape`. inner(ptrs, strides, n) processes one run of n elements:
/// ptrs[0] is the output, ptrs[1..] the operands (byte pointers to the first
/// element of the run), strides in elements (the output's is 1). Large work
/// is split across threads.
using InnerLoop =
    std::function<void(char **ptrs, const int64_t *strides, int64_t n)>;
void elementwiseLoop(const Buffer &out, llvm::ArrayRef<Buffer> operands,
                     const InnerLoop &inner);

} // namespace kiln::detail::flex

#endif // KILN_LIB_RUNTIME_FLEX_FLEXKERNELS_H
