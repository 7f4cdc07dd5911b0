//===- DataParallel.h - A data-parallel GPT step for the tests --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The training step that the in-process tests (DistributedTest.cpp) and the
// MPI test (Mpi/DataParallelMpiTest.cpp) run on every rank of a job.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_API_DATAPARALLEL_H
#define KILN_UNITTESTS_API_DATAPARALLEL_H

#include "kiln/Kiln.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include <vector>

namespace kiln::test {

namespace dist = kiln::distributed;

inline const nn::GPTConfig kSmall{/*vocab=*/32, /*layers=*/2, /*heads=*/2,
                                  /*dim=*/16, /*context=*/8};

/// Rows [begin, end) of a batch of `rows` sequences of 8 tokens; each row
/// differs, so that the ranks' shards differ.
inline DispatchTensor rowsOf(int64_t begin, int64_t end, int64_t shift,
                             const DispatchDevice &d) {
  std::vector<int64_t> v;
  for (int64_t r = begin; r < end; ++r)
    for (int64_t t = 0; t < 8; ++t)
      v.push_back((t * 5 + r * 3 + shift) % 32);
  return DispatchTensor::fromVector<int64_t>(v, {end - begin, 8}, d);
}

inline std::vector<float> flat(const std::vector<DispatchTensor *> &ts) {
  std::vector<float> out;
  for (DispatchTensor *t : ts)
    for (float v : t->toVector<float>())
      out.push_back(v);
  return out;
}

/// Runs `body` on `ranks` in-process ranks; each rank's result.
template <typename R>
std::vector<R> onRanks(int ranks, const std::function<R(int)> &body) {
  std::vector<R> out(ranks);
  dist::runInProcess(ranks, [&](int r) { out[r] = body(r); });
  return out;
}

/// Each element of `a` is within `rel` times `b`'s largest magnitude of
/// the same element of `b`.
inline void expectClose(const std::vector<float> &a,
                        const std::vector<float> &b, double rel) {
  ASSERT_EQ(a.size(), b.size());
  float scale = 0;
  for (float v : b)
    scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], rel * scale) << "at " << i;
}

/// What one rank saw of one data-parallel step on `rows` rows in all.
struct StepResult {
  float loss = 0; ///< the job's loss (the mean of the ranks')
  std::vector<std::vector<float>> grads;
  std::vector<float> params;
};

/// `steps` AdamW (or SGD with momentum) steps with clipping of the GPT,
/// data parallel over this job's ranks, each on its shard of `rows` rows;
/// the model starts from seed 3 on rank 0 (the others start elsewhere and
/// take rank 0's). Adam's update divides a gradient by its own size, so a
/// gradient near zero whose last bits differ (other summation orders)
/// moves by up to the learning rate: SGD's update is linear in the
/// gradients, and the one to compare across batch splits.
inline StepResult dataParallelStep(const DispatchDevice &base, int64_t rows,
                                   int steps = 1, bool sgd = false) {
  DispatchDevice ad =
      DispatchDevice::autodiff(base, CheckpointingStrategy::Balanced);
  nn::GPT gpt(kSmall, ad, 3 + 10 * dist::rank());
  dist::broadcastParameters(gpt.parameters());
  optim::AdamW adamw(gpt.parameters(), 1e-2, 0.9, 0.95, 1e-8, 0.1);
  optim::SGD plain(gpt.parameters(), 0.1, 0.9);
  auto [begin, end] = dist::shard(rows);
  StepResult out;
  for (int s = 0; s < steps; ++s) {
    DispatchTensor l =
        gpt.loss(rowsOf(begin, end, s, base), rowsOf(begin, end, s + 1, base));
    Gradients g = dist::averageGradients(backward(l));
    DispatchTensor jobLoss = dist::allReduce(l, dist::ReduceOp::Mean);
    std::vector<DispatchTensor> kept = {jobLoss};
    for (DispatchTensor *p : gpt.parameters())
      kept.push_back(g.get(*p));
    Gradients clipped = optim::clipGradNorm(g, 1.0);
    if (sgd)
      plain.step(clipped);
    else
      adamw.step(clipped);
    base.sync();
    out.loss = jobLoss.item<float>();
    out.grads.clear();
    for (size_t i = 1; i < kept.size(); ++i)
      out.grads.push_back(kept[i].toVector<float>());
  }
  out.params = flat(gpt.parameters());
  return out;
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_API_DATAPARALLEL_H
