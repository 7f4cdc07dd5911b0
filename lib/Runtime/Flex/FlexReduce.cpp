//===- FlexReduce.cpp - Reduction kernels of Flex -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A reduction sees its input as [kept..., reduced...]. When the reduced part
// is one contiguous run per output (reducing the innermost dims), each output
// is a SIMD reduction of its run; when the kept part is the contiguous inner
// one (reducing leading dims), rows are accumulated into the outputs with
// vector adds; anything else walks the reduced index space per output.
// Floats accumulate in f64 (f32 sums: f32 lanes within 4096-element blocks);
// integers in 64 bits.
//
//===----------------------------------------------------------------------===//

#include "FlexKernels.h"
#include "FlexSimd.h"

#include "kiln/Support/Reduction.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

/// A reduction with a combine (its kind named by the op's
/// ReductionOpInterface), or argmax / argmin.
enum class Reduce { Sum, Prod, Max, Min, Any, All, ArgMax, ArgMin };

Reduce reduceOf(ReductionKind k) {
  switch (k) {
  case ReductionKind::Sum:
    return Reduce::Sum;
  case ReductionKind::Prod:
    return Reduce::Prod;
  case ReductionKind::Max:
    return Reduce::Max;
  case ReductionKind::Min:
    return Reduce::Min;
  case ReductionKind::Any:
    return Reduce::Any;
  case ReductionKind::All:
    return Reduce::All;
  }
  return Reduce::Sum;
}

ReductionKind reductionKindOf(Reduce r) {
  switch (r) {
  case Reduce::Prod:
    return ReductionKind::Prod;
  case Reduce::Max:
    return ReductionKind::Max;
  case Reduce::Min:
    return ReductionKind::Min;
  case Reduce::Any:
    return ReductionKind::Any;
  case Reduce::All:
    return ReductionKind::All;
  default:
    return ReductionKind::Sum;
  }
}

/// Input view split into kept and reduced dims.
struct Split {
  std::vector<int64_t> keptShape, keptStrides, redShape, redStrides;
  int64_t outputs = 1, length = 1;
};

Split splitAxes(const Buffer &in, const std::vector<int64_t> &axes) {
  Split s;
  for (int d = 0; d < in.rank(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    (reduced ? s.redShape : s.keptShape).push_back(in.shape[d]);
    (reduced ? s.redStrides : s.keptStrides).push_back(in.strides[d]);
  }
  for (int64_t d : s.keptShape)
    s.outputs *= d;
  for (int64_t d : s.redShape)
    s.length *= d;
  return s;
}

/// Offset of flat index k within a (shape, strides) index space.
int64_t offsetOf(int64_t k, const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    off += (k % shape[d]) * strides[d];
    k /= shape[d];
  }
  return off;
}

bool isRun(const std::vector<int64_t> &shape,
           const std::vector<int64_t> &strides) {
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != s)
      return false;
    s *= shape[d];
  }
  return true;
}

template <typename C> struct Acc {
  using type = std::conditional_t<std::is_floating_point_v<C>, double,
                                  std::conditional_t<std::is_same_v<C, bool>,
                                                     bool, int64_t>>;
};

/// Reduces `n` elements read by `get` (the generic path). Reductions with a
/// combine take their identity and combine from kiln/Support/Reduction.h;
/// argmax and argmin keep the first extreme (a NaN counts as one).
template <typename T, typename Get>
typename Acc<typename ComputeOf<T>::type>::type
reduceRun(Reduce kind, int64_t n, Get get, int64_t *argIndex) {
  using C = typename ComputeOf<T>::type;
  using A = typename Acc<C>::type;
  if (kind != Reduce::ArgMax && kind != Reduce::ArgMin) {
    ReductionKind k = reductionKindOf(kind);
    A acc = reductionIdentity<A>(k);
    for (int64_t i = 0; i < n; ++i)
      acc = reductionCombine<A>(k, acc, static_cast<A>(get(i)));
    return acc;
  }
  bool wantMax = kind == Reduce::ArgMax;
  C best = get(0);
  int64_t at = 0;
  for (int64_t i = 1; i < n && !(best != best); ++i) {
    C v = get(i);
    // NaN wins (and the first NaN stays).
    if (v != v || (wantMax ? v > best : v < best)) {
      best = v;
      at = i;
    }
  }
  if (argIndex)
    *argIndex = at;
  return static_cast<A>(best);
}

KernelBuilder reduceKernel(Reduce kind) {
  return [kind](const OpDesc &op) -> Step {
    std::vector<int64_t> axes;
    if (kind == Reduce::ArgMax || kind == Reduce::ArgMin)
      axes = {intAttr(op, "axis")};
    else
      axes = arrayAttr(op, "axes");
    DType in = operandDType(op, 0), out = resultDType(op);
    std::vector<int64_t> shape = resultShape(op);
    return [=](llvm::ArrayRef<const Buffer *> ops,
               llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
      const Buffer &x = *ops[0];
      Buffer y = allocateBuffer(ctx.allocator, out, shape);
      Split s = splitAxes(x, axes);
      bool arg = kind == Reduce::ArgMax || kind == Reduce::ArgMin;
      const char *base = static_cast<const char *>(x.storage->data);
      dispatchAny(in, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = typename ComputeOf<T>::type;
        const T *data = reinterpret_cast<const T *>(base);
        auto write = [&](int64_t k, auto value, int64_t index) {
          if (arg) {
            y.as<int64_t>()[k] = index;
          } else {
            using O = T;
            y.as<O>()[k] = storeAs<O>(static_cast<C>(value));
          }
        };
        if (s.length == 0) {
          using A = typename Acc<C>::type;
          A identity = arg ? A(0) : reductionIdentity<A>(reductionKindOf(kind));
          for (int64_t k = 0; k < s.outputs; ++k)
            write(k, identity, 0);
          return;
        }
        bool runs = isRun(s.redShape, s.redStrides);
        // Full f32 reductions of one long run: split it across threads.
        if constexpr (std::is_same_v<T, float>) {
          if (runs && (kind == Reduce::Sum || kind == Reduce::Max ||
                       kind == Reduce::Min)) {
            int64_t grain = s.outputs == 1 ? (1 << 16) : 1;
            if (s.outputs == 1) {
              const float *p = data + x.offset;
              int64_t chunks = std::max<int64_t>(
                  1, std::min<int64_t>(hostThreads(), s.length / grain));
              std::vector<double> partial(chunks);
              int64_t per = (s.length + chunks - 1) / chunks;
              parallelFor(chunks, 1, [&](int64_t b, int64_t e) {
                for (int64_t c = b; c < e; ++c) {
                  int64_t lo = c * per, n = std::min(per, s.length - lo);
                  partial[c] = kind == Reduce::Sum ? simd::sumF32(p + lo, n)
                               : kind == Reduce::Max ? simd::maxF32(p + lo, n)
                                                     : simd::minF32(p + lo, n);
                }
              });
              double r = partial[0];
              for (int64_t c = 1; c < chunks; ++c)
                r = kind == Reduce::Sum ? r + partial[c]
                    : std::isnan(r) || std::isnan(partial[c])
                        ? NAN
                        : (kind == Reduce::Max ? std::max(r, partial[c])
                                               : std::min(r, partial[c]));
              write(0, r, 0);
              return;
            }
            parallelFor(s.outputs, std::max<int64_t>(1, 8192 / s.length),
                        [&](int64_t b, int64_t e) {
                          for (int64_t k = b; k < e; ++k) {
                            const float *p =
                                data + x.offset +
                                offsetOf(k, s.keptShape, s.keptStrides);
                            double r = kind == Reduce::Sum
                                           ? simd::sumF32(p, s.length)
                                       : kind == Reduce::Max
                                           ? simd::maxF32(p, s.length)
                                           : simd::minF32(p, s.length);
                            write(k, r, 0);
                          }
                        });
            return;
          }
          // Reducing leading dims of contiguous data: add whole rows, in f32
          // within blocks of kRowBlock rows and the blocks' sums in f64 (a
          // broadcast input is one element per row, and 2^25 f32 adds of
          // 1.0 stop at 2^24).
          if (kind == Reduce::Sum && isRun(s.keptShape, s.keptStrides) &&
              !runs) {
            constexpr int64_t kRowBlock = 256;
            std::vector<double> acc(s.outputs, 0.0);
            const int64_t cols = s.outputs;
            parallelFor(cols, 1 << 12, [&](int64_t b, int64_t e) {
              std::vector<float> block(e - b);
              for (int64_t r0 = 0; r0 < s.length; r0 += kRowBlock) {
                std::fill(block.begin(), block.end(), 0.0f);
                for (int64_t r = r0; r < std::min(s.length, r0 + kRowBlock);
                     ++r) {
                  const float *row =
                      data + x.offset + offsetOf(r, s.redShape, s.redStrides);
                  simd::binaryF32(simd::Binary::Add, block.data(), 1, row + b,
                                  1, block.data(), e - b);
                }
                for (int64_t k = b; k < e; ++k)
                  acc[k] += block[k - b];
              }
            });
            for (int64_t k = 0; k < cols; ++k)
              write(k, acc[k], 0);
            return;
          }
        }
        parallelFor(s.outputs, std::max<int64_t>(1, 8192 / s.length),
                    [&](int64_t b, int64_t e) {
                      for (int64_t k = b; k < e; ++k) {
                        const T *p = data + x.offset +
                                     offsetOf(k, s.keptShape, s.keptStrides);
                        auto get = [&](int64_t i) -> C {
                          return load(
                              p[runs ? i
                                     : offsetOf(i, s.redShape, s.redStrides)]);
                        };
                        int64_t index = 0;
                        auto v = reduceRun<T>(kind, s.length, get, &index);
                        write(k, v, index);
                      }
                    });
      });
      res[0] = std::move(y);
    };
  };
}

Step buildCumsum(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &x = *ops[0];
    Buffer y = allocateBuffer(ctx.allocator, dt, shape);
    Split sx = splitAxes(x, {axis});
    Split sy = splitAxes(y, {axis});
    dispatchAny(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      if constexpr (!std::is_same_v<T, bool>) {
        using A = typename Acc<C>::type;
        const T *src = static_cast<const T *>(x.storage->data) + x.offset;
        T *dst = y.as<T>();
        int64_t n = sx.length, xs = x.strides[axis], ys = y.strides[axis];
        parallelFor(sx.outputs, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, n)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t k = b; k < e; ++k) {
                        const T *p = src + offsetOf(k, sx.keptShape, sx.keptStrides);
                        T *q = dst + offsetOf(k, sy.keptShape, sy.keptStrides);
                        A acc = 0;
                        for (int64_t i = 0; i < n; ++i) {
                          acc += static_cast<A>(load(p[i * xs]));
                          q[i * ys] = storeAs<T>(static_cast<C>(acc));
                        }
                      }
                    });
      }
    });
    res[0] = std::move(y);
  };
}

/// A reduction with a combine, whatever its kind.
Step buildReduction(const OpDesc &op) {
  return reduceKernel(reduceOf(reductionKindOf(op)))(op);
}

} // namespace

void flex::registerReductionKernels(KernelRegistry &r) {
#define KILN_FLEX_REDUCTION(op) r.add(op, buildReduction);
#include "FlexOps.def"
  r.add("kiln.argmax", reduceKernel(Reduce::ArgMax));
  r.add("kiln.argmin", reduceKernel(Reduce::ArgMin));
  r.add("kiln.cumsum", buildCumsum);
}
