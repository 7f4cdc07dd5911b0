//===- FlexMatmul.cpp - Matmul kernels of Flex ----------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// f32 and f64 run the packed SIMD GEMM (FlexGemm.h) on the operands' own
// strides, so transposed or sliced operands are never copied first. f16 and
// bf16 are widened to f32 and rounded once at the end, so they accumulate in
// f32. Integers accumulate in 64 bits and wrap to the result type.
//
// Batch dims broadcast by stride 0. When every batch shares one right-hand
// matrix (x[b, m, k] @ w[k, n]) and the batch dims of the left one fold into
// its rows, the whole batch is a single taller product.
//
//===----------------------------------------------------------------------===//

#include "FlexGemm.h"
#include "FlexKernels.h"

#include <algorithm>
#include <optional>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

/// Offset of batch `t` (row-major over `shape`) in a view with `strides`.
int64_t batchOffset(int64_t t, const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    off += (t % shape[d]) * strides[d];
    t /= shape[d];
  }
  return off;
}

/// The single row stride of [batch..., m] of `v`, when those dims fold
/// into one.
std::optional<int64_t> foldedRowStride(const Buffer &v) {
  int64_t stride = 0, span = 1;
  bool any = false;
  for (int d = v.rank() - 2; d >= 0; --d) {
    if (v.shape[d] == 1)
      continue;
    if (!any) {
      stride = v.strides[d];
      any = true;
    } else if (v.strides[d] != stride * span) {
      return std::nullopt;
    }
    span *= v.shape[d];
  }
  return stride;
}

/// out = a @ b over views already broadcast to the batch shape of `out`.
template <typename T>
void gemmBatched(const Buffer &a, const Buffer &b, const Buffer &out,
                 Allocator &allocator) {
  const int r = out.rank();
  const int64_t m = out.shape[r - 2], n = out.shape[r - 1], k = a.shape[r - 1];
  std::vector<int64_t> batch(out.shape.begin(), out.shape.end() - 2);
  std::vector<int64_t> aBatch(a.strides.begin(), a.strides.end() - 2),
      bBatch(b.strides.begin(), b.strides.end() - 2);
  int64_t batches = 1;
  for (int64_t d : batch)
    batches *= d;
  const T *aBase = static_cast<const T *>(a.storage->data) + a.offset;
  const T *bBase = static_cast<const T *>(b.storage->data) + b.offset;
  T *c = out.as<T>();
  MatrixRef<T> bMat{bBase, b.strides[r - 2], b.strides[r - 1]};

  bool bShared = std::all_of(bBatch.begin(), bBatch.end(),
                             [](int64_t s) { return s == 0; });
  if (batches > 1 && bShared) {
    if (std::optional<int64_t> rowStride = foldedRowStride(a)) {
      gemm(batches * m, n, k, MatrixRef<T>{aBase, *rowStride, a.strides[r - 1]},
           bMat, c, n, /*accumulate=*/false, allocator);
      return;
    }
  }
  auto one = [&](int64_t t, bool parallel) {
    MatrixRef<T> am{aBase + batchOffset(t, batch, aBatch), a.strides[r - 2],
                    a.strides[r - 1]};
    MatrixRef<T> bm = bMat;
    bm.data += batchOffset(t, batch, bBatch);
    gemm(m, n, k, am, bm, c + t * m * n, n, /*accumulate=*/false, allocator,
         parallel);
  };
  // Many small products: one per thread beats threads inside each.
  if (batches > 1 && static_cast<double>(m) * n * k < double(1 << 22)) {
    parallelFor(batches, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t)
        one(t, false);
    });
    return;
  }
  for (int64_t t = 0; t < batches; ++t)
    one(t, true);
}

/// Integer matmul: 64-bit wrapping accumulation (unsigned, so that overflow
/// is defined), truncated to T.
template <typename T>
void matmulIntegers(const Buffer &a, const Buffer &b, const Buffer &out) {
  const int r = out.rank();
  const int64_t m = out.shape[r - 2], n = out.shape[r - 1], k = a.shape[r - 1];
  std::vector<int64_t> batch(out.shape.begin(), out.shape.end() - 2);
  std::vector<int64_t> aBatch(a.strides.begin(), a.strides.end() - 2),
      bBatch(b.strides.begin(), b.strides.end() - 2);
  int64_t batches = 1;
  for (int64_t d : batch)
    batches *= d;
  const T *aBase = static_cast<const T *>(a.storage->data) + a.offset;
  const T *bBase = static_cast<const T *>(b.storage->data) + b.offset;
  const int64_t ars = a.strides[r - 2], acs = a.strides[r - 1];
  const int64_t brs = b.strides[r - 2], bcs = b.strides[r - 1];
  T *c = out.as<T>();
  int64_t rowWork = std::max<int64_t>(1, n * k);
  parallelFor(
      batches * m, std::max<int64_t>(1, (1 << 16) / rowWork),
      [&](int64_t begin, int64_t end) {
        std::vector<uint64_t> acc(n);
        for (int64_t row = begin; row < end; ++row) {
          int64_t t = row / m, i = row % m;
          const T *ar = aBase + batchOffset(t, batch, aBatch) + i * ars;
          const T *bm = bBase + batchOffset(t, batch, bBatch);
          std::fill(acc.begin(), acc.end(), 0);
          for (int64_t p = 0; p < k; ++p) {
            uint64_t x =
                static_cast<uint64_t>(static_cast<int64_t>(ar[p * acs]));
            if (x == 0)
              continue;
            const T *br = bm + p * brs;
            for (int64_t j = 0; j < n; ++j)
              acc[j] +=
                  x * static_cast<uint64_t>(static_cast<int64_t>(br[j * bcs]));
          }
          for (int64_t j = 0; j < n; ++j)
            c[row * n + j] = static_cast<T>(static_cast<int64_t>(acc[j]));
        }
      });
}

Step buildMatmul(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &a = *ops[0], &b = *ops[1];
    const int r = static_cast<int>(shape.size());
    std::vector<int64_t> aShape(shape.begin(), shape.end() - 2),
        bShape = aShape;
    aShape.insert(aShape.end(), {shape[r - 2], a.shape.back()});
    bShape.insert(bShape.end(), {b.shape[b.rank() - 2], shape[r - 1]});
    int64_t numel = 1;
    for (int64_t d : shape)
      numel *= d;
    Buffer out;
    if (numel == 0 || !(dt == DType::F16 || dt == DType::BF16))
      out = allocateBuffer(ctx.allocator, dt, shape);
    if (numel == 0) {
      res[0] = out;
      return;
    }
    switch (dt.kind()) {
    case DTypeKind::F32:
      gemmBatched<float>(broadcastView(a, aShape), broadcastView(b, bShape),
                         out, ctx.allocator);
      break;
    case DTypeKind::F64:
      gemmBatched<double>(broadcastView(a, aShape), broadcastView(b, bShape),
                          out, ctx.allocator);
      break;
    case DTypeKind::F16:
    case DTypeKind::BF16: {
      Buffer a32 = contiguousAs(a, DType::F32, ctx.allocator);
      Buffer b32 = contiguousAs(b, DType::F32, ctx.allocator);
      Buffer c32 = allocateBuffer(ctx.allocator, DType::F32, shape);
      gemmBatched<float>(broadcastView(a32, aShape), broadcastView(b32, bShape),
                         c32, ctx.allocator);
      out = contiguousAs(c32, dt, ctx.allocator);
      break;
    }
    default:
      dispatchAny(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
          matmulIntegers<T>(broadcastView(a, aShape), broadcastView(b, bShape),
                            out);
        else
          throw Error("flex: kiln.matmul has no kernel for " + dt.str());
      });
    }
    res[0] = out;
  };
}

} // namespace

void flex::registerMatmulKernels(KernelRegistry &r) {
  r.add("kiln.matmul", buildMatmul);
}
