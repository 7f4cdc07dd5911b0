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
// resnet18_infer and resnet_train_step: nn::ResNet's forward pass in
// evaluation mode, and a whole training step, checked against Flex's
// logits and loss on the same model and batch.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Workloads.h"

#include "kiln/API/Vision.h"

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

//===----------------------------------------------------------------------===//
// ResNet
//===----------------------------------------------------------------------===//

namespace {

/// The multiply-add FLOPs (2 per MAC) of a ResNet's convolutions and
/// classifier for one image of `size` x `size`.
double resnetFlops(const k::nn::ResNetConfig &c, int64_t size) {
  double flops = 0;
  auto conv = [&](int64_t in, int64_t out, int64_t kernel, int64_t stride,
                  int64_t pad, int64_t &hw) {
    hw = (hw + 2 * pad - kernel) / stride + 1;
    flops += 2.0 * in * out * kernel * kernel * double(hw * hw);
  };
  int64_t hw = size;
  if (c.smallInputs) {
    conv(c.inChannels, 64, 3, 1, 1, hw);
  } else {
    conv(c.inChannels, 64, 7, 2, 3, hw);
    hw = (hw + 2 - 3) / 2 + 1;
  }
  int64_t in = 64;
  for (size_t s = 0; s < 4; ++s) {
    int64_t out = int64_t(64) << s;
    for (int64_t b = 0; b < c.blocks[s]; ++b) {
      int64_t stride = s > 0 && b == 0 ? 2 : 1, h1 = hw, unused = hw;
      conv(in, out, 3, stride, 1, h1);
      int64_t h2 = h1;
      conv(out, out, 3, 1, 1, h2);
      if (stride != 1 || in != out)
        conv(in, out, 1, stride, 0, unused);
      hw = h2;
      in = out;
    }
  }
  return flops + 2.0 * 512 * double(c.classes);
}

/// Images in [-1, 1] and labels of `classes`, from fixed seeds.
struct ImageBatch {
  ImageBatch(int64_t n, int64_t size, int64_t classes)
      : n(n), size(size), images(n * 3 * size * size) {
    fillUniform(images.data(), images.size(), 81, -1, 1);
    for (int64_t i = 0; i < n; ++i)
      labels.push_back((i * 7 + 3) % classes);
  }
  Tensor x(const k::DispatchDevice &dev) const {
    return Tensor::fromVector<float>(images, {n, 3, size, size}, dev);
  }
  Tensor y(const k::DispatchDevice &dev) const {
    return Tensor::fromVector<int64_t>(labels, {n}, dev);
  }
  int64_t n, size;
  std::vector<float> images;
  std::vector<int64_t> labels;
};

} // namespace

void Suite::resnet18Infer() {
  k::nn::ResNetConfig c = k::nn::ResNetConfig::resnet18(1000);
  int64_t size = 224;
  if (opts.quick) {
    c.classes = 10;
    size = 32;
  }
  const double flops = resnetFlops(c, size);
  table.legend("resnet18_infer",
               "ResNet-18 (BasicBlock [2,2,2,2]) in evaluation mode, batch 1, "
               "3x" +
                   std::to_string(size) + "x" + std::to_string(size) + ", " +
                   std::to_string(c.classes) +
                   " classes; ratio = conv and fc FLOPs / time / FMA peak; "
                   "checked against Flex's logits");
  ImageBatch batch(1, size, c.classes);
  std::vector<float> want;
  {
    k::nn::ResNet ref(c, k::DispatchDevice::flex(), 5);
    ref.eval();
    want = ref.forward(batch.x(k::DispatchDevice::flex())).toVector<float>();
  }
  kilnRows("resnet18_infer",
           [&](Record &r, const k::DispatchDevice &dev, int t) {
             k::nn::ResNet net(c, dev, 5);
             net.eval();
             Tensor x = batch.x(dev);
             k::NoGradGuard noGrad;
             if (!check(r, [&] {
                   return compareScaled(net.forward(x).toVector<float>(), want,
                                        1e-3, "logits");
                 }))
               return;
             Tensor keep;
             time(r, [&] {
               keep = Tensor();
               keep = net.forward(x);
               keep.sync();
             });
             double ms = r.stats.median();
             r.ratio = peakFraction(flops, ms, t);
             r.ratioOf = "conv and fc FLOPs / time / FMA peak";
             r.add("images/s", 1000.0 / ms, "%.1f");
             r.add("GFLOP/s", flops / (ms * 1e-3) / 1e9, "%.1f");
           });
}

void Suite::resnetTrainStep() {
  k::nn::ResNetConfig c = k::nn::ResNetConfig::resnet18(10);
  c.smallInputs = true;
  int64_t n = 32, size = 32;
  if (opts.quick) {
    c.blocks = {1, 1, 1, 1};
    n = 4;
    size = 8;
  }
  // The backward pass does about twice the forward's FLOPs.
  const double flops = 3 * resnetFlops(c, size) * double(n);
  table.legend("resnet_train_step",
               "ResNet-18 with a 3x3 stem and no max pool, batch " +
                   std::to_string(n) + " of 3x" + std::to_string(size) + "x" +
                   std::to_string(size) +
                   ", 10 classes, batch norm in training mode, cross-entropy, "
                   "backward, SGD (lr 0.01, momentum 0.9, weight decay 5e-4); "
                   "ratio = 3 x forward conv and fc FLOPs / time / FMA peak; "
                   "the first step's loss is checked against Flex's");
  ImageBatch batch(n, size, c.classes);
  double want = 0;
  {
    k::nn::ResNet ref(c, k::DispatchDevice::flex(), 6);
    k::NoGradGuard noGrad;
    want = k::crossEntropy(ref.forward(batch.x(k::DispatchDevice::flex())),
                           batch.y(k::DispatchDevice::flex()))
               .item<float>();
  }
  kilnRows("resnet_train_step", [&](Record &r, const k::DispatchDevice &dev,
                                    int t) {
    k::DispatchDevice ad =
        k::DispatchDevice::autodiff(dev, k::CheckpointingStrategy::Disabled);
    k::nn::ResNet net(c, ad, 6);
    k::optim::SGD opt(net.parameters(), 0.01, 0.9, 5e-4);
    Tensor x = batch.x(dev), y = batch.y(dev);
    auto step = [&] {
      Tensor loss = k::crossEntropy(net.forward(x), y);
      opt.step(k::backward(loss));
      dev.sync();
      return loss.item<float>();
    };
    double t0 = nowMs();
    float first = step();
    double firstMs = nowMs() - t0;
    if (!check(r, [&]() -> std::string {
          if (std::fabs(first - want) <= 1e-3 * std::fabs(want))
            return "";
          return "loss " + fmt("%.7g", first) + ", Flex's " + fmt("%.7g", want);
        }))
      return;
    k::BackendCounters c1 = k::backendCounters(dev);
    time(r, [&] { step(); });
    double ms = r.stats.median();
    r.ratio = peakFraction(flops, ms, t);
    r.ratioOf = "3 x forward FLOPs / time / FMA peak";
    r.add("images/s", double(n) / (ms * 1e-3), "%.1f");
    r.add("GFLOP/s", flops / (ms * 1e-3) / 1e9, "%.1f");
    r.add("first_step_ms", firstMs, "%.0f");
    int64_t later = k::backendCounters(dev).compiles - c1.compiles;
    r.add("later_compiles", later);
    if (later != 0)
      r.status = "WRONG: a repeated step compiled";
  });
}
