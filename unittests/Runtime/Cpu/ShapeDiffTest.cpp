//===- ShapeDiffTest.cpp - Shape, indexing and creation, Cpu against Flex -===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Layout ops become views on Cpu, so each one is checked both as an output
// and feeding an elementwise kernel (which reads the view's strides). The
// others (concat, pad, repeat, slice_assign, the indexing ops) run as
// generic kernels. Creation ops, including the counter-based random
// generators, must give the same numbers on both backends.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

using namespace kiln;
using namespace kiln::test;

namespace {

class ShapeDiffTest : public ::testing::TestWithParam<DType> {};

TEST_P(ShapeDiffTest, LayoutAndCopies) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(30);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, 0, 9), shape,
                     dtype);
    };
    Tensor x = in({4, 6, 5});
    // Each view also feeds a kernel: where(true, view, view) copies it
    // through the elementwise generator for every dtype, bool included.
    Tensor yes = s.input({1}, {}, DType::Bool);
    auto both = [&](const std::string &op, const std::string &label,
                    const Tensor &t) {
      s.check(op, dtype, op + " " + label, t);
      s.check(op, dtype, op + " " + label + " into a kernel",
              where(yes, t, t));
    };
    both("kiln.reshape", "[4,6,5] -> [24,5]", x.reshape({24, 5}));
    both("kiln.reshape", "of a transpose", x.transpose(0, 2).reshape({30, 4}));
    both("kiln.permute", "[2,0,1]", x.permute({2, 0, 1}));
    both("kiln.permute", "transpose", transpose(x, 0, 1));
    both("kiln.expand", "[4,1,5] -> [4,6,5]",
         x.slice({0, 0, 0}, {4, 1, 5}).expand({4, 6, 5}));
    both("kiln.expand", "new leading dims", in({5}).expand({3, 2, 5}));
    both("kiln.slice", "steps", slice(x, {1, 0, 1}, {4, 6, 5}, {2, 3, 2}));
    both("kiln.slice", "clamped end", slice(x, {0, 2, 0}, {4, 100, 5}));
    both("kiln.squeeze", "", squeeze(x.slice({0, 0, 0}, {4, 1, 5}), {1}));
    both("kiln.unsqueeze", "", unsqueeze(x, {0, 3}));
    both("kiln.flip", "[0, 2]", flip(x, {0, 2}));
    both("kiln.flip", "of a slice", flip(x.slice({0, 1, 0}, {4, 6, 5},
                                                 {1, 2, 1}),
                                         {1}));
    both("kiln.concat", "axis 1", concat({x, in({4, 2, 5}), x}, 1));
    both("kiln.concat", "axis 0 of views",
         concat({x.transpose(1, 2), flip(in({4, 5, 6}), {0})}, 0));
    both("kiln.concat", "rank 1", concat({in({3}), in({1}), in({7})}, 0));
    std::vector<Tensor> parts = split(x, {2, 1, 3}, 1);
    for (size_t i = 0; i < parts.size(); ++i)
      both("kiln.split", "part " + std::to_string(i), parts[i]);
    both("kiln.repeat", "[2,1,3]", repeat(x, {2, 1, 3}));
    both("kiln.repeat", "of a transpose", repeat(x.transpose(0, 1), {1, 2, 1}));
    both("kiln.pad", "low and high",
         pad(x, {1, 0, 2}, {0, 3, 1}, dtype.isBool() ? 1 : 7));
    both("kiln.pad", "of a flip", pad(flip(x, {2}), {0, 0, 1}, {0, 0, 1}));
    both("kiln.slice_assign", "block",
         sliceAssign(x, in({2, 3, 5}), {1, 2, 0}, {3, 5, 5}));
    both("kiln.slice_assign", "steps",
         sliceAssign(x, in({2, 2, 3}), {0, 1, 0}, {4, 6, 5}, {2, 3, 2}));
    both("kiln.slice_assign", "a transposed value",
         sliceAssign(x, in({5, 2, 4}).permute({2, 1, 0}), {0, 0, 0},
                     {4, 2, 5}));
  });
}

TEST_P(ShapeDiffTest, Indexing) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(31);
    auto in = [&](Shape shape) {
      return s.input(randomValues(rng, shape.numel(), dtype, 0, 9), shape,
                     dtype);
    };
    for (DType index : {DType::I64, DType::I32}) {
      auto idx = [&](Shape shape, int64_t bound) {
        return s.input(randomValues(rng, shape.numel(), index, 0, bound - 1),
                       shape, index);
      };
      std::string it = " (" + index.str() + " indices)";
      Tensor x = in({5, 7});
      s.check("kiln.gather", dtype, "kiln.gather axis 1" + it,
              gather(x, 1, idx({5, 4}, 7)));
      s.check("kiln.gather", dtype, "kiln.gather axis 0" + it,
              gather(x, 0, idx({3, 7}, 5)));
      s.check("kiln.gather", dtype, "kiln.gather of a transpose" + it,
              gather(x.transpose(), 1, idx({7, 6}, 5)));
      s.check("kiln.index_select", dtype, "kiln.index_select axis 0" + it,
              indexSelect(x, 0, idx({9}, 5)));
      s.check("kiln.index_select", dtype, "kiln.index_select axis 1" + it,
              indexSelect(flip(x, {1}), 1, idx({3}, 7)));
      s.check("kiln.embedding", dtype, "kiln.embedding" + it,
              embedding(x, idx({2, 3}, 5)));
      s.check("kiln.embedding", dtype, "kiln.embedding 1-D" + it,
              embedding(x, idx({4}, 5)));
      if (!dtype.isBool()) {
        // Repeated indices accumulate.
        s.check("kiln.scatter_add", dtype, "kiln.scatter_add axis 0" + it,
                scatterAdd(x, 0, idx({6, 7}, 5), in({6, 7})));
        s.check("kiln.scatter_add", dtype, "kiln.scatter_add axis 1" + it,
                scatterAdd(x, 1, idx({5, 3}, 7), in({5, 3})));
      }
      if (dtype == DType::F32 || dtype == DType::I64) {
        s.check("kiln.one_hot", index, "kiln.one_hot" + it,
                oneHot(idx({2, 5}, 6), 6, dtype));
        // Out-of-range classes give all-zero rows.
        s.check("kiln.one_hot", index, "kiln.one_hot out of range" + it,
                oneHot(idx({7}, 9), 5, dtype));
      }
    }
    Tensor mask = s.input(randomValues(rng, 6 * 8, DType::Bool, 0, 1), {6, 8},
                          DType::Bool);
    s.check("kiln.mask_fill", dtype, "kiln.mask_fill",
            maskFill(in({6, 8}), mask, 1));
    s.check("kiln.mask_fill", dtype, "kiln.mask_fill broadcast mask",
            maskFill(in({3, 6, 8}), mask.slice({0, 0}, {1, 8}), 0));
  });
}

TEST_P(ShapeDiffTest, Creation) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    const DispatchDevice &d = s.device();
    s.check("kiln.full", dtype, "kiln.full",
            DispatchTensor::full({3, 40}, dtype.isBool() ? 1 : 2, dtype, d));
    s.check("kiln.full", dtype, "kiln.full zeros",
            DispatchTensor::zeros({2, 3, 4}, dtype, d));
    s.check("kiln.full", dtype, "kiln.full ones rank 0",
            DispatchTensor::ones({}, dtype, d));
    s.check("kiln.full", dtype, "kiln.full scalar",
            DispatchTensor::scalar(1, dtype, d));
    s.check("kiln.eye", dtype, "kiln.eye square", DispatchTensor::eye(5, dtype, d));
    s.check("kiln.eye", dtype, "kiln.eye wide",
            DispatchTensor::eye(3, 7, dtype, d));
    if (!dtype.isBool()) {
      s.check("kiln.arange", dtype, "kiln.arange n",
              DispatchTensor::arange(70, dtype, d));
      s.check("kiln.arange", dtype, "kiln.arange steps",
              DispatchTensor::arange(1, 60, 3, dtype, d));
    }
    if (dtype.isFloat()) {
      s.check("kiln.arange", dtype, "kiln.arange fractional",
              DispatchTensor::arange(-2, 2, 0.25, dtype, d));
      // The counter-based generators: the same numbers on every backend,
      // bit for bit for uniforms.
      s.check("kiln.rand", dtype, "kiln.rand",
              DispatchTensor::rand({7, 33}, dtype, d, 5), {0, 0});
      s.check("kiln.rand", dtype, "kiln.rand range",
              DispatchTensor::rand({100}, dtype, d, 6, -2, 3), {0, 0});
      s.check("kiln.randn", dtype, "kiln.randn",
              DispatchTensor::randn({7, 33}, dtype, d, 5));
      s.check("kiln.randn", dtype, "kiln.randn shifted",
              DispatchTensor::randn({3, 3, 3}, dtype, d, 8, 1, 0.5));
      // Random values feeding a kernel.
      s.check("kiln.dropout", dtype, "kiln.dropout",
              dropout(DispatchTensor::randn({9, 31}, dtype, d, 9), 0.3, 4));
      s.check("kiln.rand", dtype, "kiln.rand into a kernel",
              DispatchTensor::rand({5, 5}, dtype, d, 10) * 2.0 - 1.0);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ShapeDiffTest,
                         ::testing::ValuesIn(allDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace
