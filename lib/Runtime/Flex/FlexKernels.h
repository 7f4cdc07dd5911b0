//===- FlexKernels.h - How Flex kernels are written -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Flex interprets a kiln function op by op: for each op, a KernelBuilder
// (kiln/Runtime/HostSteps.h) returns the Step that runs it. Running a cached
// plan therefore never touches MLIR.
//
// Kernels compute f16 and bf16 in f32, bool as bool, and integers in their
// own type. Inputs may be strided views (broadcasts are stride-0 views);
// outputs are fresh contiguous buffers unless the step may reuse a dying
// input of the same type and shape.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_FLEX_FLEXKERNELS_H
#define KILN_LIB_RUNTIME_FLEX_FLEXKERNELS_H

#include "kiln/Runtime/HostSteps.h"
#include "kiln/Runtime/ThreadPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

namespace kiln::detail::flex {

void registerCreationKernels(KernelRegistry &r);
void registerElementwiseKernels(KernelRegistry &r);
void registerReductionKernels(KernelRegistry &r);
void registerMatmulKernels(KernelRegistry &r);
/// The shape ops that copy, and the views (registerViewSteps).
void registerShapeKernels(KernelRegistry &r);
void registerIndexingKernels(KernelRegistry &r);
void registerNNKernels(KernelRegistry &r);
void registerQuantKernels(KernelRegistry &r);

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

/// Copies `src` (broadcast to dst's shape) into the view `dst`.
void copyInto(const Buffer &src, const Buffer &dst);

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
