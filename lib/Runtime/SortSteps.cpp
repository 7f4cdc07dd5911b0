//===- SortSteps.cpp - kiln.argsort as a runtime step ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A stable sort of each line along the axis, on the host: Flex runs it as
// one of its kernels and the Cpu backend as a step between its compiled
// kernels. Lines are independent and sorted in parallel.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/HostSteps.h"
#include "kiln/Runtime/ThreadPool.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace kiln;
using namespace kiln::detail;

namespace {

/// a before b in an ascending sort that puts NaN above every number.
template <typename C> bool ascending(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a))
      return false;
    if (std::isnan(b))
      return true;
  }
  return a < b;
}

Step buildArgsort(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  bool descending = op.attr("descending") != nullptr;
  return [=](llvm::ArrayRef<const Buffer *> args,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &x = *args[0];
    Buffer out = allocateBuffer(ctx.allocator, DType::I64, x.shape);
    int64_t n = x.shape[axis], lines = n ? x.numel() / n : 0;
    int64_t inner = 1;
    for (size_t d = axis + 1; d < x.shape.size(); ++d)
      inner *= x.shape[d];
    int64_t *o = out.as<int64_t>();
    dispatchAny(x.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = decltype(load(T{}));
      const T *src = static_cast<const T *>(x.storage->data);
      // The storage offset of element (outer, i, in) of the view.
      auto strideOf = [&](size_t d) { return x.strides[d]; };
      parallelFor(
          lines, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)),
          [&](int64_t b, int64_t e) {
            std::vector<C> values(n);
            std::vector<int64_t> order(n);
            for (int64_t line = b; line < e; ++line) {
              int64_t outer = line / inner, in = line % inner;
              // Offsets of the line's first element, in the view and in out.
              int64_t off = x.offset, rem = outer;
              for (size_t d = axis; d-- > 0;) {
                off += (rem % x.shape[d]) * strideOf(d);
                rem /= x.shape[d];
              }
              rem = in;
              for (size_t d = x.shape.size();
                   d-- > static_cast<size_t>(axis) + 1;) {
                off += (rem % x.shape[d]) * strideOf(d);
                rem /= x.shape[d];
              }
              for (int64_t i = 0; i < n; ++i)
                values[i] = load(src[off + i * strideOf(axis)]);
              std::iota(order.begin(), order.end(), int64_t{0});
              if (descending)
                std::stable_sort(order.begin(), order.end(),
                                 [&](int64_t a, int64_t c) {
                                   return ascending(values[c], values[a]);
                                 });
              else
                std::stable_sort(order.begin(), order.end(),
                                 [&](int64_t a, int64_t c) {
                                   return ascending(values[a], values[c]);
                                 });
              int64_t base = outer * n * inner + in;
              for (int64_t i = 0; i < n; ++i)
                o[base + i * inner] = order[i];
            }
          });
    });
    res[0] = std::move(out);
  };
}

} // namespace

void detail::registerSortSteps(KernelRegistry &r) {
  r.add("kiln.argsort", buildArgsort);
}
