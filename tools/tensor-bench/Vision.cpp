//===- Vision.cpp - The convolution rows ----------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// conv2d: four convolutions of a ResNet, each op (forward, the gradient
// with respect to the input, and to the weight) as a fraction of the FMA
// peak, against the same op done as im2col + OpenBLAS sgemm (the way a
// BLAS-backed eager library runs it). Results are checked on sampled
// elements against direct sums in double.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Workloads.h"

#include <cmath>
#include <cstdio>

using namespace bench;
namespace k = kiln;
using k::Tensor;

namespace {

struct Conv {
  std::string name;
  int64_t n, c, h, w, o, k, stride, pad, groups;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  int64_t cg() const { return c / groups; }
  int64_t og() const { return o / groups; }
  double flops() const { return 2.0 * n * o * oh() * ow() * cg() * k * k; }
  int64_t xAt(int64_t ni, int64_t ci, int64_t y, int64_t x) const {
    return ((ni * c + ci) * h + y) * w + x;
  }
  int64_t yAt(int64_t ni, int64_t oi, int64_t y, int64_t x) const {
    return ((ni * o + oi) * oh() + y) * ow() + x;
  }
  int64_t wAt(int64_t oi, int64_t ci, int64_t i, int64_t j) const {
    return ((oi * cg() + ci) * k + i) * k + j;
  }
};

std::vector<Conv> convs(bool quick) {
  if (quick)
    return {{"3x3", 2, 8, 10, 10, 8, 3, 1, 1, 1},
            {"1x1", 2, 16, 6, 6, 8, 1, 1, 0, 1},
            {"dw3x3", 2, 8, 12, 12, 8, 3, 1, 1, 8},
            {"3x3s2", 2, 8, 9, 9, 16, 3, 2, 1, 1}};
  return {{"3x3 64>64", 8, 64, 56, 56, 64, 3, 1, 1, 1},
          {"1x1 256>64", 8, 256, 56, 56, 64, 1, 1, 0, 1},
          {"dw3x3 32", 8, 32, 112, 112, 32, 3, 1, 1, 32},
          {"3x3s2 128>256", 8, 128, 28, 28, 256, 3, 2, 1, 1}};
}

enum class Op { Forward, Input, Weight };
const char *opName(Op op) {
  return op == Op::Forward ? "forward"
         : op == Op::Input ? "grad_input"
                           : "grad_weight";
}

/// Direct sums, in double, of the sampled elements of op's result.
std::vector<double> sampledReference(const Conv &g, Op op,
                                     const std::vector<float> &x,
                                     const std::vector<float> &wt,
                                     const std::vector<float> &gy,
                                     const std::vector<int64_t> &at) {
  std::vector<double> out;
  const int64_t OH = g.oh(), OW = g.ow(), K = g.k;
  for (int64_t flat : at) {
    double s = 0;
    if (op == Op::Forward) {
      int64_t xo = flat % OW, yo = flat / OW % OH, oi = flat / (OW * OH) % g.o,
              ni = flat / (OW * OH * g.o), grp = oi / g.og();
      for (int64_t ci = 0; ci < g.cg(); ++ci)
        for (int64_t i = 0; i < K; ++i)
          for (int64_t j = 0; j < K; ++j) {
            int64_t y = yo * g.stride + i - g.pad,
                    xx = xo * g.stride + j - g.pad;
            if (y >= 0 && y < g.h && xx >= 0 && xx < g.w)
              s += double(x[g.xAt(ni, grp * g.cg() + ci, y, xx)]) *
                   wt[g.wAt(oi, ci, i, j)];
          }
    } else if (op == Op::Input) {
      int64_t xx = flat % g.w, y = flat / g.w % g.h,
              ci = flat / (g.w * g.h) % g.c, ni = flat / (g.w * g.h * g.c),
              grp = ci / g.cg();
      for (int64_t ol = 0; ol < g.og(); ++ol)
        for (int64_t i = 0; i < K; ++i)
          for (int64_t j = 0; j < K; ++j) {
            int64_t ty = y + g.pad - i, tx = xx + g.pad - j;
            if (ty < 0 || tx < 0 || ty % g.stride || tx % g.stride)
              continue;
            ty /= g.stride;
            tx /= g.stride;
            if (ty >= OH || tx >= OW)
              continue;
            int64_t oi = grp * g.og() + ol;
            s += double(gy[g.yAt(ni, oi, ty, tx)]) *
                 wt[g.wAt(oi, ci % g.cg(), i, j)];
          }
    } else {
      int64_t j = flat % K, i = flat / K % K, ci = flat / (K * K) % g.cg(),
              oi = flat / (K * K * g.cg()), grp = oi / g.og();
      for (int64_t ni = 0; ni < g.n; ++ni)
        for (int64_t yo = 0; yo < OH; ++yo)
          for (int64_t xo = 0; xo < OW; ++xo) {
            int64_t y = yo * g.stride + i - g.pad,
                    xx = xo * g.stride + j - g.pad;
            if (y >= 0 && y < g.h && xx >= 0 && xx < g.w)
              s += double(gy[g.yAt(ni, oi, yo, xo)]) *
                   x[g.xAt(ni, grp * g.cg() + ci, y, xx)];
          }
    }
    out.push_back(s);
  }
  return out;
}

/// "" when the sampled elements of `got` match the direct sums.
std::string checkSampled(const std::vector<float> &got,
                         const std::vector<int64_t> &at,
                         const std::vector<double> &want) {
  double scale = 1e-30;
  for (double v : want)
    scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < at.size(); ++i)
    if (!(std::fabs(got[at[i]] - want[i]) <= 1e-4 * scale)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %lld: got %.7g, want %.7g",
                    static_cast<long long>(at[i]), got[at[i]], want[i]);
      return buf;
    }
  return "";
}

/// im2col of one group of one image: col[cg * K * K, OH * OW].
void im2col(const Conv &g, const float *x, float *col) {
  const int64_t OH = g.oh(), OW = g.ow(), K = g.k;
  for (int64_t ci = 0; ci < g.cg(); ++ci)
    for (int64_t i = 0; i < K; ++i)
      for (int64_t j = 0; j < K; ++j) {
        float *row = col + ((ci * K + i) * K + j) * OH * OW;
        for (int64_t yo = 0; yo < OH; ++yo)
          for (int64_t xo = 0; xo < OW; ++xo) {
            int64_t y = yo * g.stride + i - g.pad,
                    xx = xo * g.stride + j - g.pad;
            row[yo * OW + xo] = y >= 0 && y < g.h && xx >= 0 && xx < g.w
                                    ? x[(ci * g.h + y) * g.w + xx]
                                    : 0.0f;
          }
      }
}

/// The adjoint of im2col: adds col onto x.
void col2im(const Conv &g, const float *col, float *x) {
  const int64_t OH = g.oh(), OW = g.ow(), K = g.k;
  for (int64_t ci = 0; ci < g.cg(); ++ci)
    for (int64_t i = 0; i < K; ++i)
      for (int64_t j = 0; j < K; ++j) {
        const float *row = col + ((ci * K + i) * K + j) * OH * OW;
        for (int64_t yo = 0; yo < OH; ++yo)
          for (int64_t xo = 0; xo < OW; ++xo) {
            int64_t y = yo * g.stride + i - g.pad,
                    xx = xo * g.stride + j - g.pad;
            if (y >= 0 && y < g.h && xx >= 0 && xx < g.w)
              x[(ci * g.h + y) * g.w + xx] += row[yo * OW + xo];
          }
      }
}

/// One op as im2col (or col2im) + sgemm per image and group.
void blasOp(const Conv &g, Op op, const std::vector<float> &x,
            const std::vector<float> &wt, const std::vector<float> &gy,
            std::vector<float> &out, std::vector<float> &col, int threads) {
  const int64_t P = g.oh() * g.ow(), CK = g.cg() * g.k * g.k;
  std::fill(out.begin(), out.end(), 0.0f);
  std::vector<float> part(op == Op::Weight ? g.og() * CK : 0);
  for (int64_t ni = 0; ni < g.n; ++ni)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float *xin = x.data() + (ni * g.c + grp * g.cg()) * g.h * g.w;
      const float *w = wt.data() + grp * g.og() * CK;
      if (op == Op::Forward) {
        im2col(g, xin, col.data());
        refMatmulBlas(w, false, col.data(), false,
                      out.data() + (ni * g.o + grp * g.og()) * P, g.og(), CK, P,
                      threads);
      } else if (op == Op::Input) {
        refMatmulBlas(w, true, gy.data() + (ni * g.o + grp * g.og()) * P, false,
                      col.data(), CK, g.og(), P, threads);
        col2im(g, col.data(),
               out.data() + (ni * g.c + grp * g.cg()) * g.h * g.w);
      } else {
        im2col(g, xin, col.data());
        refMatmulBlas(gy.data() + (ni * g.o + grp * g.og()) * P, false,
                      col.data(), true, part.data(), g.og(), P, CK, threads);
        float *dst = out.data() + grp * g.og() * CK;
        for (int64_t e = 0; e < g.og() * CK; ++e)
          dst[e] += part[e];
      }
    }
}

} // namespace

void Suite::conv2d() {
  table.legend("conv2d",
               "NCHW f32; forward, grad_input and grad_weight of each "
               "convolution; ratio = FLOP/s / FMA peak (FLOPs = 2 N O OH OW "
               "C/groups KH KW per op); blas = im2col + OpenBLAS sgemm, "
               "vs_blas = its time / time");
  for (const Conv &g : convs(opts.quick)) {
    std::vector<float> x(g.n * g.c * g.h * g.w), wt(g.o * g.cg() * g.k * g.k),
        gy(g.n * g.o * g.oh() * g.ow());
    fillUniform(x.data(), x.size(), 71, -1, 1);
    fillUniform(wt.data(), wt.size(), 72, -1, 1);
    fillUniform(gy.data(), gy.size(), 73, -1, 1);
    k::ConvOptions options{
        {g.stride, g.stride}, {g.pad, g.pad}, {1, 1}, g.groups};
    for (Op op : {Op::Forward, Op::Input, Op::Weight}) {
      std::string workload = "conv2d " + g.name + " " + opName(op);
      size_t outSize = op == Op::Forward ? gy.size()
                       : op == Op::Input ? x.size()
                                         : wt.size();
      std::vector<int64_t> at;
      for (int64_t i = 0; i < 64; ++i)
        at.push_back((i * 2654435761LL + 17) % int64_t(outSize));
      std::vector<double> want = sampledReference(g, op, x, wt, gy, at);
      auto peak = [&](Record &r) {
        if (r.stats.ms.empty())
          return;
        r.ratio = peakFraction(g.flops(), r.stats.median(), r.threads);
        r.ratioOf = "FLOP/s / FMA peak";
        r.add("GFLOP/s", g.flops() / (r.stats.median() * 1e-3) / 1e9, "%.1f");
      };
      std::vector<float> out(outSize),
          col(g.cg() * g.k * g.k * g.oh() * g.ow());
      std::map<int, double> blas;
      handRows(
          workload,
          [&](int t) {
            blasOp(g, op, x, wt, gy, out, col, t);
            return checkSampled(out, at, want);
          },
          [&](int t) { blasOp(g, op, x, wt, gy, out, col, t); }, peak, blas,
          "blas");
      kilnRows(workload, [&](Record &r, const k::DispatchDevice &dev, int) {
        Tensor tx = Tensor::fromVector<float>(x, {g.n, g.c, g.h, g.w}, dev);
        Tensor tw = Tensor::fromVector<float>(wt, {g.o, g.cg(), g.k, g.k}, dev);
        Tensor tg =
            Tensor::fromVector<float>(gy, {g.n, g.o, g.oh(), g.ow()}, dev);
        if (op == Op::Input)
          tx.requireGrad(k::CheckpointingStrategy::Disabled);
        if (op == Op::Weight)
          tw.requireGrad(k::CheckpointingStrategy::Disabled);
        auto run = [&] {
          Tensor y = k::conv2d(tx, tw, std::nullopt, options);
          if (op == Op::Forward)
            return y;
          k::Gradients grads = k::backward(k::sum(y * tg));
          return grads.get(op == Op::Input ? tx : tw);
        };
        if (!check(r, [&] {
              return checkSampled(run().toVector<float>(), at, want);
            }))
          return;
        Tensor keep;
        time(r, [&] {
          keep = Tensor();
          keep = run();
          keep.sync();
        });
        peak(r);
        addVsBlas(r, blas);
      });
    }
  }
}
