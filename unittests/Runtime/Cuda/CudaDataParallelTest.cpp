//===- CudaDataParallelTest.cpp - Data-parallel training on GPUs ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The GPT's data-parallel step on Cuda, its all-reduces run by NCCL: a job
// of one rank (an in-process world, so that the collectives do go through
// NCCL) against Flex, and where the machine has two GPUs, two ranks of
// batch B against one of batch 2B. Without a GPU or NCCL they skip, saying
// why (utils/gpu-check.sh sets KILN_REQUIRE_GPU, and there a missing GPU
// or NCCL fails instead).
//
//===----------------------------------------------------------------------===//

#include "lib/Runtime/Cuda/Nccl.h"
#include "unittests/API/DataParallel.h"

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace kiln;
using namespace kiln::test;

namespace {

class CudaDataParallel : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    const detail::cuda::DriverStatus &d = detail::cuda::driver();
    const detail::cuda::NcclStatus &n = detail::cuda::nccl();
    if (!d.api)
      why = "no CUDA GPU: " + d.reason;
    else if (!n.api)
      why = "no usable NCCL: " + n.reason;
    else
      gpus = d.deviceCount;
    if (why.empty())
      return;
    if (std::getenv("KILN_REQUIRE_GPU"))
      FAIL() << "KILN_REQUIRE_GPU is set but there is " << why;
    GTEST_SKIP() << why;
  }
  int gpus = 0;
};

TEST_F(CudaDataParallel, AJobOfOneRankMatchesFlex) {
  // KILN_CUDA_MMA=0 would keep f32 matmuls off the tensor cores; TF32
  // rounds to 10 bits of mantissa, hence the tolerance.
  StepResult gpu = onRanks<StepResult>(1, [](int) {
    return dataParallelStep(DispatchDevice::cuda(0), 8, /*steps=*/2,
                            /*sgd=*/true);
  })[0];
  StepResult flex = onRanks<StepResult>(1, [](int) {
    return dataParallelStep(DispatchDevice::flex(), 8, /*steps=*/2,
                            /*sgd=*/true);
  })[0];
  EXPECT_NEAR(gpu.loss, flex.loss, 2e-3 * std::fabs(flex.loss));
  expectClose(gpu.params, flex.params, 2e-3);
}

TEST_F(CudaDataParallel, TwoGpusOfBatchBMatchOneOfTheWholeBatch) {
  if (gpus < 2)
    GTEST_SKIP() << "needs two GPUs (NCCL takes one rank per GPU); this "
                    "machine has "
                 << gpus;
  StepResult one = onRanks<StepResult>(1, [](int) {
    return dataParallelStep(DispatchDevice::cuda(0), 8, 2, /*sgd=*/true);
  })[0];
  auto two = onRanks<StepResult>(2, [](int r) {
    return dataParallelStep(DispatchDevice::cuda(r), 8, 2, /*sgd=*/true);
  });
  EXPECT_EQ(two[0].params, two[1].params);
  EXPECT_NEAR(two[0].loss, one.loss, 1e-4 * std::fabs(one.loss));
  expectClose(two[0].params, one.params, 1e-4);
}

} // namespace
