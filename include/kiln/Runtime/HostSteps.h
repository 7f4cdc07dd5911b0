//===- HostSteps.h - Plan steps over host buffers ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the host backends share to run a plan: a KernelBuilder reads an op's
// description (kiln/Runtime/OpDesc.h) once, when a plan is loaded, and
// returns a Step, a closure over plain data that runs the op on buffers.
// Flex's plans are made of steps; the Cpu backend runs its views (reshape,
// permute, slice, ...) and collectives as steps around its compiled
// kernels, and Cuda keeps its constants as host buffers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_HOSTSTEPS_H
#define KILN_RUNTIME_HOSTSTEPS_H

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/OpDesc.h"
#include "kiln/Support/Collective.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <type_traits>

namespace kiln::detail {

/// What a running step may use besides its operands.
struct StepContext {
  Allocator &allocator;
  /// reusable[i]: operand i dies at this step and nothing else holds its
  /// storage, so the step may write its output there.
  const bool *reusable = nullptr;
  /// The value of the dynamic size S of this run, for the steps of a plan
  /// compiled with dynamic dims (each is S); -1 otherwise.
  int64_t dynamicSize = -1;
};

/// `dims` with every dynamic entry (kiln::rules::kDynamic) replaced by `s`.
std::vector<int64_t> withDynamicSize(std::vector<int64_t> dims, int64_t s);

using Step = std::function<void(llvm::ArrayRef<const Buffer *> operands,
                                llvm::MutableArrayRef<Buffer> results,
                                StepContext &ctx)>;
using KernelBuilder = std::function<Step(const OpDesc &op)>;

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

/// The view ops (reshape, squeeze, unsqueeze, permute, expand, slice, flip):
/// steps that share the input's storage and only change strides (a reshape
/// of strided data copies it first).
void registerViewSteps(KernelRegistry &r);

/// The collectives (kiln.all_reduce, its start and its wait), run on the
/// calling thread's collective queue (kiln/Runtime/Communicator.h).
void registerCollectiveSteps(KernelRegistry &r);

/// kiln.argsort: a stable comparison sort of each line along the axis
/// (defined with Flex's kernels, which register it too).
void registerSortSteps(KernelRegistry &r);

/// How kiln.all_reduce or kiln.all_reduce_start `op` combines the ranks.
distributed::ReduceOp reduceOpOf(const OpDesc &op);

/// StepContext::reusable for a step of a plan whose values live in `slots`:
/// operand i is reusable when its slot dies at the step (`dying`), the step
/// reads it once, and no other buffer holds its storage.
void reusableOperands(llvm::ArrayRef<int> operands, llvm::ArrayRef<int> dying,
                      llvm::ArrayRef<Buffer> slots,
                      llvm::SmallVectorImpl<bool> &out);

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The C++ type kernels compute with for a stored type.
template <typename T> struct ComputeOf { using type = T; };
template <> struct ComputeOf<Half> { using type = float; };
template <> struct ComputeOf<BFloat16> { using type = float; };

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

template <typename T> struct TypeTag { using type = T; };

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

//===----------------------------------------------------------------------===//
// Views and constants
//===----------------------------------------------------------------------===//

/// `b` seen with `shape` by numpy broadcasting (stride 0 where stretched).
Buffer broadcastView(const Buffer &b, const std::vector<int64_t> &shape);

/// The strided region of `b` from `starts` by `steps`, of `shape`, as a
/// view.
Buffer sliceView(const Buffer &b, const std::vector<int64_t> &starts,
                 const std::vector<int64_t> &steps,
                 const std::vector<int64_t> &shape);

/// A contiguous copy (or the buffer itself if already contiguous).
Buffer contiguous(const Buffer &b, Allocator &allocator);

/// The value of a kiln.constant as a buffer (a splat: one element seen
/// through stride-0 strides).
Buffer constantBuffer(const OpDesc &op, Allocator &allocator);

} // namespace kiln::detail

#endif // KILN_RUNTIME_HOSTSTEPS_H
