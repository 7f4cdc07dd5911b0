//===- Sampling.cpp - Drawing the next token from logits ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Sampling.h"

#include "kiln/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

using namespace kiln;

void detail::checkSampleOptions(const std::string &who,
                                const nn::SampleOptions &options) {
  if (!(options.temperature >= 0))
    throw Error(who + ": the temperature must be >= 0, got " +
                std::to_string(options.temperature));
  if (options.topK < 0)
    throw Error(who + ": top_k must be >= 0, got " +
                std::to_string(options.topK));
  if (!(options.topP > 0 && options.topP <= 1))
    throw Error(who + ": top_p must be in (0, 1], got " +
                std::to_string(options.topP));
}

int64_t detail::sampleToken(const std::vector<float> &logits,
                            const nn::SampleOptions &options,
                            std::mt19937_64 &rng) {
  if (options.temperature == 0)
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> z(logits.begin(), logits.end());
  for (double &v : z)
    v /= options.temperature;
  if (options.topK > 0 && options.topK < static_cast<int64_t>(z.size())) {
    std::vector<double> sorted = z;
    std::nth_element(sorted.begin(), sorted.begin() + (options.topK - 1),
                     sorted.end(), std::greater<double>());
    double kth = sorted[options.topK - 1];
    for (double &v : z)
      if (v < kth)
        v = -inf;
  }
  double top = *std::max_element(z.begin(), z.end());
  std::vector<double> p(z.size());
  for (size_t i = 0; i < z.size(); ++i)
    p[i] = std::exp(z[i] - top);
  if (options.topP < 1) {
    double total = std::accumulate(p.begin(), p.end(), 0.0);
    std::vector<size_t> order(p.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return p[a] > p[b]; });
    // Keep tokens while the mass before them is below topP: the first is
    // always kept.
    double before = 0;
    for (size_t i : order) {
      if (before >= options.topP * total)
        p[i] = 0;
      else
        before += p[i];
    }
  }
  std::discrete_distribution<int64_t> pick(p.begin(), p.end());
  return pick(rng);
}
