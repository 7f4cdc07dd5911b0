//===- NNReference.h - Convolution and pooling in plain loops ---*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// References for the NN kernels, in double, over row-major NCHW data. The
// backward references are the forward loops with each multiply-add sent
// the other way, so they follow from the forward definition alone.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_API_NNREFERENCE_H
#define KILN_UNITTESTS_API_NNREFERENCE_H

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace kiln::test {

struct Conv2dParams {
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

inline std::vector<int64_t> conv2dOutputShape(const std::vector<int64_t> &x,
                                              const std::vector<int64_t> &w,
                                              const Conv2dParams &p) {
  return {x[0], w[0], (x[2] + 2 * p.ph - p.dh * (w[2] - 1) - 1) / p.sh + 1,
          (x[3] + 2 * p.pw - p.dw * (w[3] - 1) - 1) / p.sw + 1};
}

/// Calls fn(xIndex, wIndex, yIndex) for every multiply-add of the
/// convolution of x [N, C, H, W] with w [O, C / groups, KH, KW].
inline void
forEachConvTap(const std::vector<int64_t> &xs, const std::vector<int64_t> &ws,
               const Conv2dParams &p,
               const std::function<void(int64_t, int64_t, int64_t)> &fn) {
  std::vector<int64_t> ys = conv2dOutputShape(xs, ws, p);
  int64_t cg = xs[1] / p.groups, og = ws[0] / p.groups;
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t o = 0; o < ws[0]; ++o)
      for (int64_t y = 0; y < ys[2]; ++y)
        for (int64_t x = 0; x < ys[3]; ++x)
          for (int64_t cl = 0; cl < cg; ++cl)
            for (int64_t ki = 0; ki < ws[2]; ++ki)
              for (int64_t kj = 0; kj < ws[3]; ++kj) {
                int64_t iy = y * p.sh - p.ph + ki * p.dh;
                int64_t ix = x * p.sw - p.pw + kj * p.dw;
                if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3])
                  continue;
                int64_t c = (o / og) * cg + cl;
                fn(((n * xs[1] + c) * xs[2] + iy) * xs[3] + ix,
                   ((o * cg + cl) * ws[2] + ki) * ws[3] + kj,
                   ((n * ys[1] + o) * ys[2] + y) * ys[3] + x);
              }
}

inline std::vector<double>
referenceConv2d(const std::vector<double> &x, const std::vector<int64_t> &xs,
                const std::vector<double> &w, const std::vector<int64_t> &ws,
                const std::vector<double> &bias, const Conv2dParams &p) {
  std::vector<int64_t> ys = conv2dOutputShape(xs, ws, p);
  std::vector<double> y(ys[0] * ys[1] * ys[2] * ys[3], 0.0);
  if (!bias.empty())
    for (size_t k = 0; k < y.size(); ++k)
      y[k] = bias[(k / (ys[2] * ys[3])) % ys[1]];
  forEachConvTap(xs, ws, p, [&](int64_t xi, int64_t wi, int64_t yi) {
    y[yi] += x[xi] * w[wi];
  });
  return y;
}

inline std::vector<double> referenceConv2dBackwardInput(
    const std::vector<double> &gy, const std::vector<double> &w,
    const std::vector<int64_t> &xs, const std::vector<int64_t> &ws,
    const Conv2dParams &p) {
  std::vector<double> gx(xs[0] * xs[1] * xs[2] * xs[3], 0.0);
  forEachConvTap(xs, ws, p, [&](int64_t xi, int64_t wi, int64_t yi) {
    gx[xi] += gy[yi] * w[wi];
  });
  return gx;
}

inline std::vector<double> referenceConv2dBackwardWeight(
    const std::vector<double> &gy, const std::vector<double> &x,
    const std::vector<int64_t> &xs, const std::vector<int64_t> &ws,
    const Conv2dParams &p) {
  std::vector<double> gw(ws[0] * ws[1] * ws[2] * ws[3], 0.0);
  forEachConvTap(xs, ws, p, [&](int64_t xi, int64_t wi, int64_t yi) {
    gw[wi] += gy[yi] * x[xi];
  });
  return gw;
}

struct Pool2dParams {
  int64_t kh, kw, sh, sw, ph, pw;
  bool countIncludePad;
};

inline std::vector<int64_t> pool2dOutputShape(const std::vector<int64_t> &x,
                                              const Pool2dParams &p) {
  return {x[0], x[1], (x[2] + 2 * p.ph - p.kh) / p.sh + 1,
          (x[3] + 2 * p.pw - p.kw) / p.sw + 1};
}

/// Calls fn(outIndex, inIndices) for every window, with the flat input
/// indices of its in-bounds elements in row-major order.
inline void forEachPoolWindow(
    const std::vector<int64_t> &xs, const Pool2dParams &p,
    const std::function<void(int64_t, const std::vector<int64_t> &)> &fn) {
  std::vector<int64_t> ys = pool2dOutputShape(xs, p);
  for (int64_t plane = 0; plane < xs[0] * xs[1]; ++plane)
    for (int64_t y = 0; y < ys[2]; ++y)
      for (int64_t x = 0; x < ys[3]; ++x) {
        std::vector<int64_t> in;
        for (int64_t ki = 0; ki < p.kh; ++ki)
          for (int64_t kj = 0; kj < p.kw; ++kj) {
            int64_t iy = y * p.sh - p.ph + ki, ix = x * p.sw - p.pw + kj;
            if (iy >= 0 && iy < xs[2] && ix >= 0 && ix < xs[3])
              in.push_back((plane * xs[2] + iy) * xs[3] + ix);
          }
        fn((plane * ys[2] + y) * ys[3] + x, in);
      }
}

/// Index of the first maximum of a window (first NaN if there is one).
inline int64_t firstMax(const std::vector<double> &x,
                        const std::vector<int64_t> &window) {
  int64_t at = -1;
  for (int64_t i : window) {
    if (std::isnan(x[i]))
      return i;
    if (at < 0 || x[i] > x[at])
      at = i;
  }
  return at;
}

inline std::vector<double> referenceMaxPool2d(const std::vector<double> &x,
                                              const std::vector<int64_t> &xs,
                                              const Pool2dParams &p) {
  std::vector<int64_t> ys = pool2dOutputShape(xs, p);
  std::vector<double> y(ys[0] * ys[1] * ys[2] * ys[3]);
  forEachPoolWindow(xs, p, [&](int64_t out, const std::vector<int64_t> &in) {
    int64_t at = firstMax(x, in);
    y[out] = at < 0 ? -std::numeric_limits<double>::infinity() : x[at];
  });
  return y;
}

inline std::vector<double> referenceMaxPool2dBackward(
    const std::vector<double> &gy, const std::vector<double> &x,
    const std::vector<int64_t> &xs, const Pool2dParams &p) {
  std::vector<double> gx(x.size(), 0.0);
  forEachPoolWindow(xs, p, [&](int64_t out, const std::vector<int64_t> &in) {
    int64_t at = firstMax(x, in);
    if (at >= 0)
      gx[at] += gy[out];
  });
  return gx;
}

inline double poolDivisor(const Pool2dParams &p, size_t inBounds) {
  return p.countIncludePad ? static_cast<double>(p.kh * p.kw)
                           : static_cast<double>(inBounds);
}

inline std::vector<double> referenceAvgPool2d(const std::vector<double> &x,
                                              const std::vector<int64_t> &xs,
                                              const Pool2dParams &p) {
  std::vector<int64_t> ys = pool2dOutputShape(xs, p);
  std::vector<double> y(ys[0] * ys[1] * ys[2] * ys[3]);
  forEachPoolWindow(xs, p, [&](int64_t out, const std::vector<int64_t> &in) {
    double s = 0;
    for (int64_t i : in)
      s += x[i];
    y[out] = s / poolDivisor(p, in.size());
  });
  return y;
}

inline std::vector<double>
referenceAvgPool2dBackward(const std::vector<double> &gy,
                           const std::vector<int64_t> &xs,
                           const Pool2dParams &p) {
  std::vector<double> gx(xs[0] * xs[1] * xs[2] * xs[3], 0.0);
  forEachPoolWindow(xs, p, [&](int64_t out, const std::vector<int64_t> &in) {
    for (int64_t i : in)
      gx[i] += gy[out] / poolDivisor(p, in.size());
  });
  return gx;
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_API_NNREFERENCE_H
