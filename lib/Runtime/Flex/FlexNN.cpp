//===- FlexNN.cpp - Convolution and pooling kernels of Flex ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Convolutions are GEMMs over im2col columns, one per (image, group):
//   forward          y[og, P]  = w[og, CK]   x col[CK, P]
//   backward input   col[CK, P] = w^T[CK, og] x gy[og, P], then col2im
//   backward weight  gw[og, CK] += gy[og, P] x col^T[P, CK], over images
// with CK = C/groups * KH * KW and P = OH * OW. A 1x1 convolution with unit
// stride and no padding reads its input as the columns directly, and a
// forward convolution whose groups have one output channel each (depthwise)
// runs as a direct loop instead. f32 and f64 compute in their own type; f16
// and bf16 in f32, rounded once.
//
// Pooling walks each window directly, one (image, channel) plane per task.
// max_pool2d takes the first maximum of a window in row-major order (NaN
// wins, as in the max reduction), and its backward routes the gradient to
// that same element; padding never wins. avg_pool2d divides by the whole
// window with count_include_pad, else by its in-bounds part.
//
//===----------------------------------------------------------------------===//

#include "FlexGemm.h"
#include "FlexKernels.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

struct ConvGeometry {
  int64_t n, c, h, w; ///< input
  int64_t o, kh, kw;  ///< weight [o, c / groups, kh, kw]
  int64_t oh, ow;     ///< output
  int64_t sh, sw, ph, pw, dh, dw, groups;

  int64_t cg() const { return c / groups; }
  int64_t og() const { return o / groups; }
  int64_t ck() const { return cg() * kh * kw; }
  int64_t pixels() const { return oh * ow; }
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  }
};

ConvGeometry convGeometry(const OpDesc &op, const std::vector<int64_t> &input,
                          const std::vector<int64_t> &weight,
                          const std::vector<int64_t> &output) {
  std::vector<int64_t> stride = arrayAttr(op, "stride"),
                       padding = arrayAttr(op, "padding"),
                       dilation = arrayAttr(op, "dilation");
  return {input[0],   input[1],    input[2],    input[3],
          weight[0],  weight[2],   weight[3],   output[2],
          output[3],  stride[0],   stride[1],   padding[0],
          padding[1], dilation[0], dilation[1], intAttr(op, "groups")};
}

/// The output columns [lo, hi) whose input column ox * s + off is in
/// [0, w).
void validRange(int64_t off, int64_t s, int64_t w, int64_t ow, int64_t &lo,
                int64_t &hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = w - off <= 0 ? 0 : std::min(ow, (w - off + s - 1) / s);
  lo = std::min(lo, hi);
}

/// Unfolds one group of one image, x[cg, h, w], into col[CK, P] whose
/// rows lie `ld` elements apart; rows [r0, r1) of col only.
template <typename C>
void im2col(const ConvGeometry &g, const C *x, C *col, int64_t r0, int64_t r1,
            int64_t ld) {
  for (int64_t r = r0; r < r1; ++r) {
    int64_t kj = r % g.kw, ki = (r / g.kw) % g.kh, ch = r / (g.kw * g.kh);
    int64_t offX = kj * g.dw - g.pw, lo, hi;
    validRange(offX, g.sw, g.w, g.ow, lo, hi);
    C *row = col + r * ld;
    for (int64_t y = 0; y < g.oh; ++y) {
      C *dst = row + y * g.ow;
      int64_t iy = y * g.sh - g.ph + ki * g.dh;
      if (iy < 0 || iy >= g.h) {
        std::fill(dst, dst + g.ow, C(0));
        continue;
      }
      const C *src = x + (ch * g.h + iy) * g.w + offX;
      std::fill(dst, dst + lo, C(0));
      if (g.sw == 1)
        std::copy(src + lo, src + hi, dst + lo);
      else
        for (int64_t ox = lo; ox < hi; ++ox)
          dst[ox] = src[ox * g.sw];
      std::fill(dst + hi, dst + g.ow, C(0));
    }
  }
}

/// Adds col[CK, P] back onto x[cg, h, w] (the adjoint of im2col).
template <typename C> void col2im(const ConvGeometry &g, const C *col, C *x) {
  const int64_t P = g.pixels();
  for (int64_t r = 0; r < g.ck(); ++r) {
    int64_t kj = r % g.kw, ki = (r / g.kw) % g.kh, ch = r / (g.kw * g.kh);
    int64_t offX = kj * g.dw - g.pw, lo, hi;
    validRange(offX, g.sw, g.w, g.ow, lo, hi);
    const C *row = col + r * P;
    for (int64_t y = 0; y < g.oh; ++y) {
      int64_t iy = y * g.sh - g.ph + ki * g.dh;
      if (iy < 0 || iy >= g.h)
        continue;
      const C *src = row + y * g.ow;
      C *dst = x + (ch * g.h + iy) * g.w + offX;
      for (int64_t ox = lo; ox < hi; ++ox)
        dst[ox * g.sw] += src[ox];
    }
  }
}

/// Runs task(t, scratch, parallelGemm) for t in [0, tasks): one task per
/// thread when there are enough of them, else one after another with the
/// threads inside each GEMM. `scratch` holds `scratchElems` elements.
template <typename C, typename F>
void forEachTask(int64_t tasks, int64_t scratchElems, Allocator &allocator,
                 F &&task) {
  auto scratchFor = [&] {
    return allocator.allocate(std::max<int64_t>(scratchElems, 1) * sizeof(C));
  };
  if (tasks >= hostThreads() && tasks > 1) {
    parallelFor(tasks, 1, [&](int64_t begin, int64_t end) {
      auto scratch = scratchFor();
      for (int64_t t = begin; t < end; ++t)
        task(t, static_cast<C *>(scratch->data), false);
    });
    return;
  }
  auto scratch = scratchFor();
  for (int64_t t = 0; t < tasks; ++t)
    task(t, static_cast<C *>(scratch->data), true);
}

/// Fills col from x, splitting rows across threads when `parallel`.
template <typename C>
void unfold(const ConvGeometry &g, const C *x, C *col, bool parallel) {
  if (!parallel) {
    im2col(g, x, col, 0, g.ck(), g.pixels());
    return;
  }
  parallelFor(
      g.ck(), std::max<int64_t>(1, (1 << 14) / g.pixels()),
      [&](int64_t b, int64_t e) { im2col(g, x, col, b, e, g.pixels()); });
}

/// The forward convolution one output plane at a time, tap by tap. For
/// groups with a single output channel (depthwise convolutions) a GEMM
/// would fill one row of its register tile and pay for unfolding the input.
template <typename C>
void convDirect(const ConvGeometry &g, const C *x, const C *w, const C *bias,
                C *y) {
  const int64_t P = g.pixels(), cg = g.cg(), og = g.og();
  parallelFor(
      g.n * g.o,
      std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, P * g.ck())),
      [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          int64_t img = t / g.o, oc = t % g.o, grp = oc / og;
          C *out = y + t * P;
          std::fill(out, out + P, bias ? bias[oc] : C(0));
          for (int64_t cl = 0; cl < cg; ++cl) {
            const C *plane = x + (img * g.c + grp * cg + cl) * g.h * g.w;
            for (int64_t ki = 0; ki < g.kh; ++ki)
              for (int64_t kj = 0; kj < g.kw; ++kj) {
                C wv = w[((oc * cg + cl) * g.kh + ki) * g.kw + kj];
                int64_t offX = kj * g.dw - g.pw, lo, hi;
                validRange(offX, g.sw, g.w, g.ow, lo, hi);
                for (int64_t oy = 0; oy < g.oh; ++oy) {
                  int64_t iy = oy * g.sh - g.ph + ki * g.dh;
                  if (iy < 0 || iy >= g.h)
                    continue;
                  const C *src = plane + iy * g.w + offX;
                  C *dst = out + oy * g.ow;
                  if (g.sw == 1)
                    for (int64_t ox = lo; ox < hi; ++ox)
                      dst[ox] += wv * src[ox];
                  else
                    for (int64_t ox = lo; ox < hi; ++ox)
                      dst[ox] += wv * src[ox * g.sw];
                }
              }
          }
        }
      });
}

template <typename C>
void convForward(const ConvGeometry &g, const C *x, const C *w, const C *bias,
                 C *y, Allocator &allocator) {
  const int64_t P = g.pixels(), CK = g.ck(), og = g.og(), cg = g.cg();
  if (og == 1) {
    convDirect(g, x, w, bias, y);
    return;
  }
  const bool direct = g.pointwise();
  forEachTask<C>(g.n * g.groups, direct ? 0 : CK * P, allocator,
                 [&](int64_t t, C *col, bool parallel) {
                   int64_t img = t / g.groups, grp = t % g.groups;
                   const C *in = x + (img * g.c + grp * cg) * g.h * g.w;
                   C *out = y + (img * g.o + grp * og) * P;
                   if (!direct)
                     unfold(g, in, col, parallel);
                   if (bias)
                     for (int64_t oc = 0; oc < og; ++oc)
                       std::fill(out + oc * P, out + (oc + 1) * P,
                                 bias[grp * og + oc]);
                   gemm(og, P, CK, MatrixRef<C>{w + grp * og * CK, CK, 1},
                        MatrixRef<C>{direct ? in : col, P, 1}, out, P,
                        bias != nullptr, allocator, parallel);
                 });
}

template <typename C>
void convBackwardInput(const ConvGeometry &g, const C *gy, const C *w, C *gx,
                       Allocator &allocator) {
  const int64_t P = g.pixels(), CK = g.ck(), og = g.og(), cg = g.cg();
  const bool direct = g.pointwise();
  if (!direct)
    std::fill(gx, gx + g.n * g.c * g.h * g.w, C(0));
  forEachTask<C>(
      g.n * g.groups, direct ? 0 : CK * P, allocator,
      [&](int64_t t, C *col, bool parallel) {
        int64_t img = t / g.groups, grp = t % g.groups;
        C *in = gx + (img * g.c + grp * cg) * g.h * g.w;
        MatrixRef<C> wt = MatrixRef<C>{w + grp * og * CK, CK, 1}.transposed();
        MatrixRef<C> grad{gy + (img * g.o + grp * og) * P, P, 1};
        gemm(CK, P, og, wt, grad, direct ? in : col, P, false, allocator,
             parallel);
        if (!direct)
          col2im(g, col, in);
      });
}

template <typename C>
void convBackwardWeight(const ConvGeometry &g, const C *gy, const C *x, C *gw,
                        Allocator &allocator) {
  const int64_t P = g.pixels(), CK = g.ck(), og = g.og(), cg = g.cg();
  const bool direct = g.pointwise();
  if (g.n == 0)
    std::fill(gw, gw + g.o * CK, C(0));
  // Groups write disjoint parts of gw; images of one group accumulate.
  forEachTask<C>(g.groups, direct ? 0 : CK * P, allocator,
                 [&](int64_t grp, C *col, bool parallel) {
                   for (int64_t img = 0; img < g.n; ++img) {
                     const C *in = x + (img * g.c + grp * cg) * g.h * g.w;
                     if (!direct)
                       unfold(g, in, col, parallel);
                     MatrixRef<C> cols =
                         MatrixRef<C>{direct ? in : col, P, 1}.transposed();
                     MatrixRef<C> grad{gy + (img * g.o + grp * og) * P, P, 1};
                     gemm(og, CK, P, grad, cols, gw + grp * og * CK, CK,
                          img > 0, allocator, parallel);
                   }
                 });
}

/// The type convolutions compute in for a stored float dtype.
DType convComputeType(DType dt) {
  return dt == DType::F64 ? DType::F64 : DType::F32;
}

/// Runs f(C{}) with C the compute type of dt, on contiguous copies of
/// `inputs` converted to it; returns the result (allocated by f as
/// `resultShape` of C) converted back to dt.
template <typename F>
Buffer inComputeType(DType dt, llvm::ArrayRef<const Buffer *> inputs,
                     const std::vector<int64_t> &resultShape, Allocator &alloc,
                     F &&f) {
  if (!dt.isFloat())
    throw Error("flex: no convolution kernel for " + dt.str());
  DType ct = convComputeType(dt);
  std::vector<Buffer> in;
  for (const Buffer *b : inputs)
    in.push_back(contiguousAs(*b, ct, alloc));
  Buffer out = allocateBuffer(alloc, ct, resultShape);
  if (ct == DType::F64)
    f(TypeTag<double>{}, in, out);
  else
    f(TypeTag<float>{}, in, out);
  return ct == dt ? out : contiguousAs(out, dt, alloc);
}

Step buildConv2d(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  ConvGeometry g =
      convGeometry(op, operandShape(op, 0), operandShape(op, 1), shape);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    res[0] =
        inComputeType(dt, ops, shape, ctx.allocator,
                      [&](auto tag, std::vector<Buffer> &in, Buffer &out) {
                        using C = typename decltype(tag)::type;
                        if (out.numel() == 0)
                          return;
                        convForward<C>(g, in[0].as<C>(), in[1].as<C>(),
                                       in.size() > 2 ? in[2].as<C>() : nullptr,
                                       out.as<C>(), ctx.allocator);
                      });
  };
}

Step buildUnfold(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op), in = operandShape(op, 0);
  std::vector<int64_t> kernel = arrayAttr(op, "kernel"),
                       stride = arrayAttr(op, "stride"),
                       padding = arrayAttr(op, "padding"),
                       dilation = arrayAttr(op, "dilation");
  // With the images along the columns, image n's columns start at
  // n * P of each row.
  bool imagesInColumns = unitAttr(op, "images_in_columns");
  // The geometry of a convolution with one output channel of these
  // windows; its output sizes come from the result's column count.
  int64_t oh = in[2] + 2 * padding[0] - dilation[0] * (kernel[0] - 1);
  oh = oh <= 0 ? 0 : (oh - 1) / stride[0] + 1;
  int64_t pixels = imagesInColumns ? (in[0] ? shape[1] / in[0] : 0) : shape[2];
  ConvGeometry g{in[0],      in[1],       in[2],
                 in[3],      1,           kernel[0],
                 kernel[1],  oh,          oh ? pixels / oh : 0,
                 stride[0],  stride[1],   padding[0],
                 padding[1], dilation[0], dilation[1],
                 1};
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    res[0] =
        inComputeType(dt, ops, shape, ctx.allocator,
                      [&](auto tag, std::vector<Buffer> &in, Buffer &out) {
                        using C = typename decltype(tag)::type;
                        if (out.numel() == 0)
                          return;
                        const C *x = in[0].as<C>();
                        C *col = out.as<C>();
                        parallelFor(g.n, 1, [&](int64_t begin, int64_t end) {
                          for (int64_t img = begin; img < end; ++img)
                            im2col(g, x + img * g.c * g.h * g.w,
                                   imagesInColumns
                                       ? col + img * g.pixels()
                                       : col + img * g.ck() * g.pixels(),
                                   0, g.ck(),
                                   imagesInColumns ? g.n * g.pixels()
                                                   : g.pixels());
                        });
                      });
  };
}

Step buildConv2dBackwardInput(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  ConvGeometry g =
      convGeometry(op, shape, operandShape(op, 1), operandShape(op, 0));
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    res[0] =
        inComputeType(dt, ops, shape, ctx.allocator,
                      [&](auto tag, std::vector<Buffer> &in, Buffer &out) {
                        using C = typename decltype(tag)::type;
                        if (out.numel() == 0)
                          return;
                        convBackwardInput<C>(g, in[0].as<C>(), in[1].as<C>(),
                                             out.as<C>(), ctx.allocator);
                      });
  };
}

Step buildConv2dBackwardWeight(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  ConvGeometry g =
      convGeometry(op, operandShape(op, 1), shape, operandShape(op, 0));
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    res[0] =
        inComputeType(dt, ops, shape, ctx.allocator,
                      [&](auto tag, std::vector<Buffer> &in, Buffer &out) {
                        using C = typename decltype(tag)::type;
                        if (out.numel() == 0)
                          return;
                        convBackwardWeight<C>(g, in[0].as<C>(), in[1].as<C>(),
                                              out.as<C>(), ctx.allocator);
                      });
  };
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

struct PoolGeometry {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};

PoolGeometry poolGeometry(const OpDesc &op, const std::vector<int64_t> &input,
                          const std::vector<int64_t> &output) {
  std::vector<int64_t> kernel = arrayAttr(op, "kernel"),
                       stride = arrayAttr(op, "stride"),
                       padding = arrayAttr(op, "padding");
  return {input[0] * input[1], input[2],   input[3],  output[2],
          output[3],           kernel[0],  kernel[1], stride[0],
          stride[1],           padding[0], padding[1]};
}

/// Calls fn(y, x, iy0, iy1, ix0, ix1) for every window of a plane, with its
/// in-bounds input rows [iy0, iy1) and columns [ix0, ix1).
template <typename F> void forEachWindow(const PoolGeometry &g, F &&fn) {
  for (int64_t y = 0; y < g.oh; ++y) {
    int64_t top = y * g.sh - g.ph;
    int64_t iy0 = std::max<int64_t>(top, 0), iy1 = std::min(top + g.kh, g.h);
    for (int64_t x = 0; x < g.ow; ++x) {
      int64_t left = x * g.sw - g.pw;
      int64_t ix0 = std::max<int64_t>(left, 0),
              ix1 = std::min(left + g.kw, g.w);
      fn(y, x, iy0, iy1, ix0, ix1);
    }
  }
}

/// Flat index (in the plane) of the first maximum of a window, or -1 when
/// the window holds no input element.
template <typename T>
int64_t windowArgMax(const T *plane, int64_t w, int64_t iy0, int64_t iy1,
                     int64_t ix0, int64_t ix1) {
  using C = typename ComputeOf<T>::type;
  int64_t at = -1;
  C best = -std::numeric_limits<C>::infinity();
  for (int64_t iy = iy0; iy < iy1; ++iy)
    for (int64_t ix = ix0; ix < ix1; ++ix) {
      C v = load(plane[iy * w + ix]);
      if (at < 0 || v > best || (v != v && best == best)) {
        best = v;
        at = iy * w + ix;
      }
      if (best != best)
        return at;
    }
  return at;
}

int64_t planeGrain(const PoolGeometry &g) {
  return std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(1, g.h * g.w));
}

Step buildMaxPool2d(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  PoolGeometry g = poolGeometry(op, operandShape(op, 0), shape);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    Buffer x = contiguous(*ops[0], ctx.allocator);
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    dispatchFloat(dt, "kiln.max_pool2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      const T *in = x.as<T>();
      T *o = out.as<T>();
      parallelFor(g.planes, planeGrain(g), [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          const T *plane = in + p * g.h * g.w;
          T *dst = o + p * g.oh * g.ow;
          forEachWindow(g, [&](int64_t y, int64_t xo, int64_t iy0, int64_t iy1,
                               int64_t ix0, int64_t ix1) {
            int64_t at = windowArgMax(plane, g.w, iy0, iy1, ix0, ix1);
            dst[y * g.ow + xo] =
                at < 0 ? storeAs<T>(-std::numeric_limits<C>::infinity())
                       : plane[at];
          });
        }
      });
    });
    res[0] = out;
  };
}

Step buildMaxPool2dBackward(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  PoolGeometry g = poolGeometry(op, shape, operandShape(op, 0));
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    Buffer grad = contiguous(*ops[0], ctx.allocator);
    Buffer x = contiguous(*ops[1], ctx.allocator);
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    dispatchFloat(dt, "kiln.max_pool2d_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      const T *in = x.as<T>(), *gy = grad.as<T>();
      T *o = out.as<T>();
      parallelFor(g.planes, planeGrain(g), [&](int64_t b, int64_t e) {
        std::vector<C> acc(g.h * g.w);
        for (int64_t p = b; p < e; ++p) {
          const T *plane = in + p * g.h * g.w;
          const T *gp = gy + p * g.oh * g.ow;
          std::fill(acc.begin(), acc.end(), C(0));
          forEachWindow(g, [&](int64_t y, int64_t xo, int64_t iy0, int64_t iy1,
                               int64_t ix0, int64_t ix1) {
            int64_t at = windowArgMax(plane, g.w, iy0, iy1, ix0, ix1);
            if (at >= 0)
              acc[at] += load(gp[y * g.ow + xo]);
          });
          T *dst = o + p * g.h * g.w;
          for (int64_t i = 0; i < g.h * g.w; ++i)
            dst[i] = storeAs<T>(acc[i]);
        }
      });
    });
    res[0] = out;
  };
}

double avgDivisor(const PoolGeometry &g, bool includePad, int64_t iy0,
                  int64_t iy1, int64_t ix0, int64_t ix1) {
  return includePad ? static_cast<double>(g.kh * g.kw)
                    : static_cast<double>((iy1 - iy0) * (ix1 - ix0));
}

Step buildAvgPool2d(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  PoolGeometry g = poolGeometry(op, operandShape(op, 0), shape);
  bool includePad = unitAttr(op, "count_include_pad");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    Buffer x = contiguous(*ops[0], ctx.allocator);
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    dispatchFloat(dt, "kiln.avg_pool2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      const T *in = x.as<T>();
      T *o = out.as<T>();
      parallelFor(g.planes, planeGrain(g), [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          const T *plane = in + p * g.h * g.w;
          T *dst = o + p * g.oh * g.ow;
          forEachWindow(g, [&](int64_t y, int64_t xo, int64_t iy0, int64_t iy1,
                               int64_t ix0, int64_t ix1) {
            double sum = 0;
            for (int64_t iy = iy0; iy < iy1; ++iy)
              for (int64_t ix = ix0; ix < ix1; ++ix)
                sum += static_cast<double>(load(plane[iy * g.w + ix]));
            double d = avgDivisor(g, includePad, iy0, iy1, ix0, ix1);
            dst[y * g.ow + xo] =
                storeAs<T>(static_cast<C>(d > 0 ? sum / d : 0));
          });
        }
      });
    });
    res[0] = out;
  };
}

Step buildAvgPool2dBackward(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  PoolGeometry g = poolGeometry(op, shape, operandShape(op, 0));
  bool includePad = unitAttr(op, "count_include_pad");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    Buffer grad = contiguous(*ops[0], ctx.allocator);
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    dispatchFloat(dt, "kiln.avg_pool2d_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      const T *gy = grad.as<T>();
      T *o = out.as<T>();
      parallelFor(g.planes, planeGrain(g), [&](int64_t b, int64_t e) {
        std::vector<C> acc(g.h * g.w);
        for (int64_t p = b; p < e; ++p) {
          const T *gp = gy + p * g.oh * g.ow;
          std::fill(acc.begin(), acc.end(), C(0));
          forEachWindow(g, [&](int64_t y, int64_t xo, int64_t iy0, int64_t iy1,
                               int64_t ix0, int64_t ix1) {
            double d = avgDivisor(g, includePad, iy0, iy1, ix0, ix1);
            if (!(d > 0))
              return;
            C share = static_cast<C>(load(gp[y * g.ow + xo]) / d);
            for (int64_t iy = iy0; iy < iy1; ++iy)
              for (int64_t ix = ix0; ix < ix1; ++ix)
                acc[iy * g.w + ix] += share;
          });
          T *dst = o + p * g.h * g.w;
          for (int64_t i = 0; i < g.h * g.w; ++i)
            dst[i] = storeAs<T>(acc[i]);
        }
      });
    });
    res[0] = out;
  };
}

} // namespace

void flex::registerNNKernels(KernelRegistry &r) {
  r.add("kiln.conv2d", buildConv2d);
  r.add("kiln.conv2d_backward_input", buildConv2dBackwardInput);
  r.add("kiln.unfold", buildUnfold);
  r.add("kiln.conv2d_backward_weight", buildConv2dBackwardWeight);
  r.add("kiln.max_pool2d", buildMaxPool2d);
  r.add("kiln.max_pool2d_backward", buildMaxPool2dBackward);
  r.add("kiln.avg_pool2d", buildAvgPool2d);
  r.add("kiln.avg_pool2d_backward", buildAvgPool2dBackward);
}
