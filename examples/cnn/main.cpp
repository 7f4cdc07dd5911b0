//===- main.cpp - A small CNN on handwritten digits, trained with Kiln ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Trains a small convolutional network (three 3x3 convolutions with batch
// norm, a max pool, global average pooling and a linear classifier) on the
// 1,797 8x8 handwritten digits that scikit-learn ships (examples/cnn/
// digits.txt says where they come from), holding out a fifth of them, and
// prints the held-out accuracy. Each step (forward, backward, SGD with
// Nesterov momentum, batch norm's running statistics) is one device sync
// of one compiled graph; the evaluation in eval mode is another.
//
//   cnn [--data FILE] [--device cpu|flex] [--epochs N] [--batch B]
//       [--width W] [--lr LR] [--min-accuracy A]
//
// With --min-accuracy the exit status is 1 when the held-out accuracy is
// below A.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace kiln;

namespace {

struct Options {
  std::string data = KILN_SOURCE_DIR "/examples/cnn/digits.txt";
  std::string device = "cpu";
  int epochs = 12, batch = 64;
  int64_t width = 16;
  double lr = 0.05, minAccuracy = -1;
};

[[noreturn]] void usage(int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: cnn [--data FILE] [--device cpu|flex] [--epochs N] "
               "[--batch B]\n"
               "           [--width W] [--lr LR] [--min-accuracy A]\n");
  std::exit(status);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cnn: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--data")
      o.data = next();
    else if (a == "--device")
      o.device = next();
    else if (a == "--epochs")
      o.epochs = std::stoi(next());
    else if (a == "--batch")
      o.batch = std::stoi(next());
    else if (a == "--width")
      o.width = std::stoll(next());
    else if (a == "--lr")
      o.lr = std::stod(next());
    else if (a == "--min-accuracy")
      o.minAccuracy = std::stod(next());
    else if (a == "--help")
      usage(0);
    else
      usage(2);
  }
  if (o.epochs < 1 || o.batch < 2 || o.width < 1)
    throw Error("cnn: --epochs, --batch (>= 2) and --width must be positive");
  return o;
}

/// Images scaled to [0, 1] ([N, 1, 8, 8] row by row) and their labels.
struct Digits {
  std::vector<float> pixels;
  std::vector<int64_t> labels;
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

/// Reads digits.txt: '#' comment lines, then "<label> <64 characters of
/// 0-9a-g>" per image. A malformed line is an error naming it.
Digits readDigits(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cnn: cannot open " + path);
  Digits d;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#')
      continue;
    auto bad = [&](const std::string &what) {
      return Error("cnn: " + path + ":" + std::to_string(n) + ": " + what);
    };
    if (line.size() != 66 || line[1] != ' ' || line[0] < '0' || line[0] > '9')
      throw bad("want a label digit, a space and 64 pixels");
    d.labels.push_back(line[0] - '0');
    for (size_t i = 2; i < line.size(); ++i) {
      char c = line[i];
      int v = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'g' ? c - 'a' + 10
                                     : -1;
      if (v < 0)
        throw bad(std::string("pixel '") + c + "' is not one of 0-9a-g");
      d.pixels.push_back(static_cast<float>(v) / 16.0f);
    }
  }
  if (d.size() < 10)
    throw Error("cnn: " + path + " holds " + std::to_string(d.size()) +
                " images, too few to train on");
  return d;
}

/// conv(1 -> w) bn relu, conv(w -> 2w) bn relu, max pool 2, conv(2w -> 4w)
/// bn relu, global average pool, linear(4w -> 10).
class Net {
public:
  Net(int64_t w, const DispatchDevice &dev)
      : c1(1, w, {3, 3}, dev, 1, pad1(), false), b1(w, dev),
        c2(w, 2 * w, {3, 3}, dev, 2, pad1(), false), b2(2 * w, dev),
        c3(2 * w, 4 * w, {3, 3}, dev, 3, pad1(), false), b3(4 * w, dev),
        fc(4 * w, 10, dev, 4), width(w) {}

  DispatchTensor forward(const DispatchTensor &x) {
    DispatchTensor h = relu(b1.forward(c1.forward(x)));
    h = maxPool2d(relu(b2.forward(c2.forward(h))), {2, 2});
    h = relu(b3.forward(c3.forward(h)));
    return fc.forward(adaptiveAvgPool2d(h, {1, 1}).reshape({-1, 4 * width}));
  }

  std::vector<DispatchTensor *> parameters() {
    std::vector<DispatchTensor *> p;
    for (auto *m : {&c1, &c2, &c3})
      for (DispatchTensor *t : m->parameters())
        p.push_back(t);
    for (auto *m : {&b1, &b2, &b3})
      for (DispatchTensor *t : m->parameters())
        p.push_back(t);
    for (DispatchTensor *t : fc.parameters())
      p.push_back(t);
    return p;
  }

  void train(bool on) {
    for (auto *m : {&b1, &b2, &b3})
      m->train(on);
  }

private:
  static ConvOptions pad1() { return {{1, 1}, {1, 1}, {1, 1}, 1}; }
  nn::Conv c1;
  nn::BatchNorm b1;
  nn::Conv c2;
  nn::BatchNorm b2;
  nn::Conv c3;
  nn::BatchNorm b3;
  nn::Linear fc;
  int64_t width;
};

int run(const Options &o) {
  auto t0 = std::chrono::steady_clock::now();
  Digits all = readDigits(o.data);
  DispatchDevice base =
      o.device == "flex" ? DispatchDevice::flex() : DispatchDevice::cpu();
  DispatchDevice dev =
      DispatchDevice::autodiff(base, CheckpointingStrategy::Disabled);
  // A fixed shuffle; the last fifth is held out.
  std::vector<int64_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  int64_t test = all.size() / 5, train = all.size() - test;
  auto gather = [&](int64_t from, int64_t count, std::vector<float> &px,
                    std::vector<int64_t> &lb) {
    px.clear();
    lb.clear();
    for (int64_t i = from; i < from + count; ++i) {
      int64_t k = order[i];
      px.insert(px.end(), all.pixels.begin() + k * 64,
                all.pixels.begin() + (k + 1) * 64);
      lb.push_back(all.labels[k]);
    }
  };
  Net net(o.width, dev);
  optim::SGD opt(net.parameters(), o.lr, 0.9, 1e-4, /*nesterov=*/true);
  std::vector<float> px;
  std::vector<int64_t> lb;
  const int64_t steps = train / o.batch; // whole batches: one graph shape
  float firstLoss = 0, lastLoss = 0;
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    std::shuffle(order.begin(), order.begin() + train,
                 std::mt19937_64(100 + epoch));
    for (int64_t s = 0; s < steps; ++s) {
      gather(s * o.batch, o.batch, px, lb);
      DispatchTensor x =
          DispatchTensor::fromVector<float>(px, {o.batch, 1, 8, 8}, base);
      DispatchTensor y =
          DispatchTensor::fromVector<int64_t>(lb, {o.batch}, base);
      DispatchTensor loss = crossEntropy(net.forward(x), y);
      opt.step(backward(loss));
      base.sync();
      lastLoss = loss.item<float>();
      if (epoch == 0 && s == 0)
        firstLoss = lastLoss;
    }
  }
  net.train(false);
  gather(train, test, px, lb);
  std::vector<int64_t> predicted;
  {
    NoGradGuard noGrad;
    DispatchTensor logits = net.forward(
        DispatchTensor::fromVector<float>(px, {test, 1, 8, 8}, base));
    predicted = argmax(logits, 1).toVector<int64_t>();
  }
  int64_t right = 0;
  for (int64_t i = 0; i < test; ++i)
    right += predicted[i] == lb[i];
  double accuracy = double(right) / double(test);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("trained %d epochs of %lld steps (batch %d): loss %.4f -> %.4f\n",
              o.epochs, (long long)steps, o.batch, firstLoss, lastLoss);
  std::printf("held-out accuracy %.4f (%lld of %lld) in %.1f s\n", accuracy,
              (long long)right, (long long)test, seconds);
  if (o.minAccuracy >= 0 && accuracy < o.minAccuracy) {
    std::fprintf(stderr, "cnn: accuracy %.4f is below %.4f\n", accuracy,
                 o.minAccuracy);
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
