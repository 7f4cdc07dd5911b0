//===- EmptyTensorTest.cpp - Tensors with no elements, on Flex and Cpu ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The API fuzzer found that Cpu failed to compile, or divided by zero, on
// ops whose operands or results have no elements: a concat with an empty
// input, a slice that starts at the end (and its gradient), an empty piece
// of a split, a pad or cumsum of an empty tensor, a column sum of rows with
// no columns; and that an empty host tensor was copied from a null pointer.
// Each must give the same result on both backends, here checked by hand.
// An op that reads no index (its result, or scatter_add's updates, has no
// elements) reports none, on any backend, whether its indices are known
// when it is recorded or not.
//
//===----------------------------------------------------------------------===//

#include "HostDevices.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

using namespace kiln;
using kiln::test::hostDevices;

namespace {

TEST(EmptyTensorTest, ConcatSliceSplitPadCumsum) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    Tensor x = Tensor::fromVector<float>({1, 2}, {2}, dev);
    Tensor z = Tensor::fromVector<float>({}, {0}, dev);
    Tensor a = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev);
    Tensor cat = concat({x + 0.0, z + 0.0}, 0);
    Tensor past = slice(a + 0.0, {2, 0}, {4, 3});
    std::vector<Tensor> parts = split(a + 0.0, {2, 0}, 0);
    Tensor padded =
        pad(Tensor::zeros({0, 3}, DType::F32, dev) + 0.0, {1, 0}, {1, 0}, 2.0);
    Tensor scan = cumsum(Tensor::zeros({0, 3}, DType::I64, dev) + 1.0, 1);
    Tensor cols = sum(Tensor::ones({8, 0}, DType::F32, dev) * 2.0, {0});
    kiln::sync({cat, past, parts[1], padded, scan, cols});
    EXPECT_EQ(cat.toVector<float>(), (std::vector<float>{1, 2}));
    EXPECT_EQ(past.shape(), Shape({0, 3}));
    EXPECT_TRUE(past.toVector<float>().empty());
    EXPECT_EQ(parts[0].toVector<float>(), a.toVector<float>());
    EXPECT_EQ(parts[1].shape(), Shape({0, 3}));
    EXPECT_EQ(padded.toVector<float>(), std::vector<float>(6, 2.0f));
    EXPECT_EQ(scan.shape(), Shape({0, 3}));
    EXPECT_EQ(cols.shape(), Shape({0}));
    EXPECT_TRUE(z.toVector<float>().empty());
  }
}

TEST(EmptyTensorTest, GradientOfAnEmptySlice) {
  for (const DispatchDevice &inner : hostDevices()) {
    SCOPED_TRACE(inner.str());
    auto dev = DispatchDevice::autodiff(inner, CheckpointingStrategy::Disabled);
    Tensor w = Tensor::fromVector<float>({1, 2}, {2, 1, 1}, dev);
    Tensor loss = sum(slice(w, {2, 0, 0}, {4, 3, 3}, {2, 2, 2}));
    Gradients g = backward(loss);
    EXPECT_EQ(g.get(w).toVector<float>(), (std::vector<float>{0, 0}));
    EXPECT_EQ(loss.item<float>(), 0.0f);
  }
}

TEST(EmptyTensorTest, AnEmptyResultReadsNoIndex) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    Tensor x = Tensor::ones({1, 0, 1}, DType::F32, dev);
    // Known at record time, and computed by the graph.
    Tensor known = Tensor::fromVector<int64_t>({3}, {1}, dev);
    Tensor computed = (Tensor::scalar(3, DType::I64, dev) * 1.0).reshape({1});
    Tensor a = indexSelect(x, 0, known), b = indexSelect(x, 0, computed);
    kiln::sync({a, b});
    EXPECT_EQ(a.shape(), Shape({1, 0, 1}));
    EXPECT_EQ(b.shape(), Shape({1, 0, 1}));
    // With a result to fill, the same index is an error.
    Tensor y = Tensor::ones({1, 2}, DType::F32, dev);
    EXPECT_THROW(indexSelect(y, 0, known), Error);
    Tensor c = indexSelect(y, 0, computed);
    EXPECT_THROW(c.sync(), Error);
    // scatter_add reads an index per update: into an empty axis, one
    // update is an error, whatever the (empty) result; no update is none.
    Tensor dest = Tensor::zeros({0, 1}, DType::F32, dev);
    Tensor one = Tensor::ones({1, 1}, DType::F32, dev);
    Tensor zero = Tensor::fromVector<int64_t>({0}, {1, 1}, dev);
    EXPECT_THROW(scatterAdd(dest, 0, zero, one), Error);
    Tensor d = scatterAdd(dest, 0, computed.reshape({1, 1}) * 0.0, one);
    EXPECT_THROW(d.sync(), Error);
    Tensor none = scatterAdd(dest, 0, Tensor::zeros({0, 1}, DType::I64, dev),
                             Tensor::ones({0, 1}, DType::F32, dev));
    EXPECT_EQ(none.shape(), Shape({0, 1}));
    none.sync();
  }
}

} // namespace
