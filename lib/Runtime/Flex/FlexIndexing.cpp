//===- FlexIndexing.cpp - Indexing kernels of Flex ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// gather and index_select only move elements, so they copy bytes and work
// for every dtype alike. gather, index_select and scatter_add check every
// index first (one compare each) and throw on one outside [0, size), which
// names the op and the index; one_hot gives an all-zero row. scatter_add
// accumulates f16/bf16 in f32 and rounds once, and integers wrap.
//
// mask_fill and embedding are composites that --kiln-decompose removes.
//
//===----------------------------------------------------------------------===//

#include "FlexKernels.h"

#include "kiln/Support/IndexCheck.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

int64_t clampIndex(int64_t v, int64_t size) {
  return v < 0 ? 0 : (v >= size ? size - 1 : v);
}

/// Throws on the first index of `idx` (in row-major order) outside
/// [0, size), before the op reads or writes anything. An op that reads no
/// index, because its result (or for scatter_add, its updates: `reads`)
/// has no elements, checks none, as the compiled kernels do.
void checkIndices(IndexSite site, const Buffer &idx, int64_t size,
                  const std::vector<int64_t> &reads) {
  for (int64_t d : reads)
    if (d == 0)
      return;
  if (std::optional<int64_t> bad = firstIndexOutside(idx, size))
    throw Error(indexOutOfRange(indexSiteOp(site), *bad, size));
}

/// Calls f(TypeTag<U>{}) with an unsigned type of `bytes` bytes.
template <typename F> void dispatchBytes(size_t bytes, F &&f) {
  switch (bytes) {
  case 1:
    return f(TypeTag<uint8_t>{});
  case 2:
    return f(TypeTag<uint16_t>{});
  case 4:
    return f(TypeTag<uint32_t>{});
  case 8:
    return f(TypeTag<uint64_t>{});
  default:
    throw Error("flex: no indexing kernel for " + std::to_string(bytes) +
                "-byte elements");
  }
}

/// Offsets (in elements, from storage start) of row `row` of the [rows,
/// last] view of `shape`, in `a` and `b`; dim `skip` of `a` is left out.
void rowOffsets(int64_t row, const std::vector<int64_t> &shape, int skip,
                const Buffer &a, const Buffer &b, int64_t &offA,
                int64_t &offB) {
  offA = a.offset;
  offB = b.offset;
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    int64_t c = row % shape[d];
    row /= shape[d];
    if (d != skip)
      offA += c * a.strides[d];
    offB += c * b.strides[d];
  }
}

Step buildGather(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &in = *ops[0], &idx = *ops[1];
    checkIndices(IndexSite::Gather, idx, in.shape[axis], shape);
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    res[0] = out;
    const int rank = out.rank();
    const int64_t n = out.numel(), size = in.shape[axis];
    if (n == 0)
      return;
    if (size == 0) {
      std::memset(out.data(), 0, n * out.elementBytes());
      return;
    }
    const int last = rank - 1;
    const int64_t inner = shape[last], rows = n / inner;
    const int64_t inLast = last == axis ? 0 : in.strides[last];
    const int64_t idxLast = idx.strides[last], inAxis = in.strides[axis];
    dispatchBytes(out.elementBytes(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U *src = static_cast<const U *>(in.storage->data);
      U *dst = out.as<U>();
      parallelFor(rows, std::max<int64_t>(1, 4096 / inner),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t r = begin; r < end; ++r) {
                      int64_t inOff, idxOff;
                      rowOffsets(r, shape, static_cast<int>(axis), in, idx,
                                 inOff, idxOff);
                      U *o = dst + r * inner;
                      for (int64_t j = 0; j < inner; ++j) {
                        int64_t v = clampIndex(
                            loadIndex(idx, idxOff + j * idxLast), size);
                        o[j] = src[inOff + j * inLast + v * inAxis];
                      }
                    }
                  });
    });
  };
}

Step buildIndexSelect(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &in = *ops[0], &idx = *ops[1];
    checkIndices(IndexSite::IndexSelect, idx, in.shape[axis], shape);
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    res[0] = out;
    const size_t es = out.elementBytes();
    const int64_t size = in.shape[axis], picks = shape[axis];
    if (out.numel() == 0)
      return;
    if (size == 0) {
      std::memset(out.data(), 0, out.numel() * es);
      return;
    }
    std::vector<int64_t> at(picks);
    for (int64_t k = 0; k < picks; ++k)
      at[k] = clampIndex(loadIndex(idx, idx.offset + k * idx.strides[0]), size);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < out.rank(); ++d)
      inner *= shape[d];
    if (in.isContiguous()) {
      // Whole slices are runs of inner elements: one memcpy each.
      const char *src = static_cast<const char *>(in.data());
      char *dst = static_cast<char *>(out.data());
      const size_t run = inner * es;
      parallelFor(outer * picks,
                  std::max<int64_t>(1, (1 << 15) / std::max<size_t>(run, 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t u = begin; u < end; ++u) {
                      int64_t o = u / picks, k = u % picks;
                      std::memcpy(dst + u * run, src + (o * size + at[k]) * run,
                                  run);
                    }
                  });
      return;
    }
    for (int64_t k = 0; k < picks; ++k) {
      Buffer from = in, to = out;
      from.offset += at[k] * in.strides[axis];
      from.shape[axis] = 1;
      to.offset += k * out.strides[axis];
      to.shape[axis] = 1;
      copyInto(from, to);
    }
  };
}

/// result[.., indices[..i..], ..] += updates[..i..] for rows [r0, r1) and
/// columns [j0, j1) of the [rows, last] view of the index space.
template <typename T, typename A>
void scatterRange(const Buffer &upd, const Buffer &idx, A *out,
                  const std::vector<int64_t> &outStrides, int64_t axis,
                  int64_t size, int64_t r0, int64_t r1, int64_t j0,
                  int64_t j1) {
  const std::vector<int64_t> &shape = idx.shape;
  const int last = idx.rank() - 1;
  const T *u = static_cast<const T *>(upd.storage->data);
  for (int64_t r = r0; r < r1; ++r) {
    int64_t outOff = 0, idxOff = idx.offset, updOff = upd.offset;
    int64_t rem = r;
    for (int d = last - 1; d >= 0; --d) {
      int64_t c = rem % shape[d];
      rem /= shape[d];
      if (d != axis)
        outOff += c * outStrides[d];
      idxOff += c * idx.strides[d];
      updOff += c * upd.strides[d];
    }
    for (int64_t j = j0; j < j1; ++j) {
      int64_t v = loadIndex(idx, idxOff + j * idx.strides[last]);
      if (v < 0 || v >= size)
        continue;
      int64_t o = outOff + v * outStrides[axis] +
                  (last == axis ? 0 : j * outStrides[last]);
      A x = static_cast<A>(load(u[updOff + j * upd.strides[last]]));
      if constexpr (std::is_integral_v<A>)
        out[o] = static_cast<A>(static_cast<std::make_unsigned_t<A>>(out[o]) +
                                static_cast<std::make_unsigned_t<A>>(x));
      else
        out[o] += x;
    }
  }
}

Step buildScatterAdd(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &upd = *ops[0], &in = *ops[1], &idx = *ops[2];
    checkIndices(IndexSite::ScatterAdd, idx, shape[axis], upd.shape);
    const bool half = dt == DType::F16 || dt == DType::BF16;
    const DType accType = half ? DType::F32 : dt;
    Buffer acc;
    if (!half && ctx.reusable && ctx.reusable[1] && in.isContiguous() &&
        in.offset == 0) {
      acc = in;
    } else if (half) {
      acc = contiguousAs(in, accType, ctx.allocator);
    } else {
      acc = allocateBuffer(ctx.allocator, dt, shape);
      copyInto(in, acc);
    }
    const int64_t n = idx.numel();
    if (n > 0) {
      const int rank = idx.rank(), last = rank - 1;
      const int64_t inner = idx.shape[last], rows = n / inner,
                    size = shape[axis];
      dispatchAny(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = typename ComputeOf<T>::type;
        if constexpr (std::is_same_v<T, bool>) {
          throw Error("flex: kiln.scatter_add has no kernel for bool");
        } else {
          A *out = acc.as<A>();
          auto run = [&](int64_t r0, int64_t r1, int64_t j0, int64_t j1) {
            scatterRange<T, A>(upd, idx, out, acc.strides, axis, size, r0, r1,
                               j0, j1);
          };
          // Two updates collide only when they differ in `axis` alone, so
          // threads split a dim other than `axis`: the leading one (whole
          // rows) or, when that is `axis`, the last one.
          if (rank >= 2 && axis != 0) {
            int64_t perLead = rows / idx.shape[0];
            parallelFor(idx.shape[0],
                        std::max<int64_t>(1, (1 << 14) / (perLead * inner)),
                        [&](int64_t b, int64_t e) {
                          run(b * perLead, e * perLead, 0, inner);
                        });
          } else if (rank >= 2) {
            parallelFor(inner, std::max<int64_t>(1, (1 << 14) / rows),
                        [&](int64_t b, int64_t e) { run(0, rows, b, e); });
          } else {
            run(0, rows, 0, inner);
          }
        }
      });
    }
    res[0] = half ? contiguousAs(acc, dt, ctx.allocator) : acc;
  };
}

Step buildOneHot(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &idx = *ops[0];
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    const int64_t classes = shape.back();
    // Zero bits are zero in every dtype.
    std::memset(out.data(), 0, out.numel() * out.elementBytes());
    dispatchAny(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      T one = storeAs<T>(static_cast<C>(1));
      T *o = out.as<T>();
      forEachOffset(idx, [&](int64_t k, int64_t off) {
        int64_t v = loadIndex(idx, off);
        if (v >= 0 && v < classes)
          o[k * classes + v] = one;
      });
    });
    res[0] = out;
  };
}

} // namespace

void flex::registerIndexingKernels(KernelRegistry &r) {
  r.add("kiln.gather", buildGather);
  r.add("kiln.index_select", buildIndexSelect);
  r.add("kiln.scatter_add", buildScatterAdd);
  r.add("kiln.one_hot", buildOneHot);
}
