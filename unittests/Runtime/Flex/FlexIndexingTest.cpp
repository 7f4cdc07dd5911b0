//===- FlexIndexingTest.cpp - Indexing kernels of Flex vs references ------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "FlexTestData.h"
#include "NumericTest.h"

#include <algorithm>
#include <functional>

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flex() { return DispatchDevice::flex(); }

Tensor sample(std::vector<int64_t> shape, DType dt, uint32_t seed) {
  return tensorOf(sampleValues(numelOf(shape), dt, seed), Shape(shape), dt,
                  flex());
}

std::vector<int64_t> indicesOf(const Tensor &t) {
  std::vector<int64_t> out;
  for (double v : valuesOf(t))
    out.push_back(static_cast<int64_t>(v));
  return out;
}

/// torch.gather.
std::vector<double> referenceGather(const std::vector<double> &in,
                                    const std::vector<int64_t> &inShape,
                                    const std::vector<int64_t> &idx,
                                    const std::vector<int64_t> &idxShape,
                                    int64_t axis) {
  std::vector<double> out;
  for (int64_t k = 0; k < numelOf(idxShape); ++k) {
    std::vector<int64_t> c = unravel(k, idxShape);
    c[axis] = idx[k];
    out.push_back(in[ravel(c, inShape)]);
  }
  return out;
}

void expectGather(const Tensor &x, int64_t axis, const Tensor &idx,
                  const std::string &what) {
  std::vector<double> got = valuesOf(gather(x, axis, idx));
  std::vector<double> want = referenceGather(
      valuesOf(x), x.shape().dims(), indicesOf(idx), idx.shape().dims(), axis);
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.gather", x.dtype())))
      << what << " on " << x.dtype().str();
}

TEST(FlexGather, EveryDTypeAndAxis) {
  for (DType dt : allDTypes()) {
    Tensor x = sample({4, 5}, dt, 1);
    expectGather(x, 1,
                 indexTensor(sampleIndices(12, 0, 4, 2), {4, 3}, DType::I64),
                 "axis 1");
    expectGather(x, 0,
                 indexTensor(sampleIndices(24, 0, 3, 3), {6, 4}, DType::I32),
                 "axis 0, i32 indices, fewer columns");
    expectGather(sample({3, 4, 5}, dt, 4), 2,
                 indexTensor(sampleIndices(42, 0, 4, 5), {2, 3, 7}, DType::I64),
                 "3-D, last axis");
  }
}

TEST(FlexGather, StridedInputAndIndices) {
  for (DType dt : {DType::F32, DType::BF16, DType::I8, DType::Bool}) {
    Tensor x = transpose(sample({5, 4}, dt, 6), 0, 1);
    Tensor idx = transpose(
        indexTensor(sampleIndices(12, 0, 4, 7), {3, 4}, DType::I64), 0, 1);
    expectGather(x, 1, idx, "transposed input and indices");
  }
}

/// Adds updates at indices along axis; integer sums wrap.
std::vector<double> referenceScatterAdd(std::vector<double> in,
                                        const std::vector<int64_t> &inShape,
                                        const std::vector<int64_t> &idx,
                                        const std::vector<int64_t> &idxShape,
                                        const std::vector<double> &upd,
                                        int64_t axis, DType dt) {
  for (int64_t k = 0; k < numelOf(idxShape); ++k) {
    std::vector<int64_t> c = unravel(k, idxShape);
    c[axis] = idx[k];
    double &slot = in[ravel(c, inShape)];
    slot = wrapTo(slot + upd[k], dt);
  }
  return in;
}

void expectScatterAdd(const Tensor &x, int64_t axis, const Tensor &idx,
                      const Tensor &upd, const std::string &what) {
  std::vector<double> got = valuesOf(scatterAdd(x, axis, idx, upd));
  std::vector<double> want =
      referenceScatterAdd(valuesOf(x), x.shape().dims(), indicesOf(idx),
                          idx.shape().dims(), valuesOf(upd), axis, x.dtype());
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.scatter_add", x.dtype())))
      << what << " on " << x.dtype().str();
}

TEST(FlexScatterAdd, EveryDTypeWithDuplicates) {
  for (DType dt : numericDTypes()) {
    expectScatterAdd(
        sample({5, 4}, dt, 8), 0,
        indexTensor(sampleIndices(12, 0, 4, 9), {3, 4}, DType::I64),
        sample({3, 4}, dt, 10), "axis 0");
    expectScatterAdd(
        sample({3, 6}, dt, 11), 1,
        indexTensor(sampleIndices(15, 0, 5, 12), {3, 5}, DType::I32),
        sample({3, 5}, dt, 13), "axis 1, i32 indices");
    expectScatterAdd(
        sample({4, 5, 6}, dt, 14), 1,
        indexTensor(sampleIndices(36, 0, 4, 15), {2, 3, 6}, DType::I64),
        sample({2, 3, 6}, dt, 16), "3-D, middle axis");
  }
}

TEST(FlexScatterAdd, StridedOperands) {
  for (DType dt : {DType::F32, DType::F16, DType::I32}) {
    Tensor x = transpose(sample({4, 5}, dt, 17), 0, 1);
    Tensor idx = transpose(
        indexTensor(sampleIndices(12, 0, 4, 18), {4, 3}, DType::I64), 0, 1);
    Tensor upd = flip(sample({3, 4}, dt, 19), {1});
    expectScatterAdd(x, 0, idx, upd, "transposed input and indices");
  }
}

// Many updates on one slot: half types must accumulate in f32 and round
// once; integers wrap.
TEST(FlexScatterAdd, AccumulatesManyUpdates) {
  for (DType dt : {DType::F16, DType::BF16, DType::F32, DType::I8}) {
    const int64_t n = 300;
    std::vector<double> ones(n, dt.isFloat() ? 1.0 / 16 : 1.0);
    expectScatterAdd(tensorOf({1.0, 2.0}, {2}, dt, flex()), 0,
                     indexTensor(std::vector<int64_t>(n, 1), {n}, DType::I64),
                     tensorOf(ones, {n}, dt, flex()),
                     "300 updates on one slot");
  }
}

// Large enough that threads split a dim other than the axis.
TEST(FlexScatterAdd, ParallelSplits) {
  DType dt = DType::F32;
  expectScatterAdd(sample({2, 8, 2048}, dt, 20), 1,
                   indexTensor(sampleIndices(2 * 8 * 2048, 0, 7, 21),
                               {2, 8, 2048}, DType::I64),
                   sample({2, 8, 2048}, dt, 22), "split over the lead dim");
  expectScatterAdd(
      sample({5, 4096}, dt, 23), 0,
      indexTensor(sampleIndices(8 * 4096, 0, 4, 24), {8, 4096}, DType::I64),
      sample({8, 4096}, dt, 25), "split over the last dim");
}

std::vector<double> referenceIndexSelect(const std::vector<double> &in,
                                         const std::vector<int64_t> &inShape,
                                         const std::vector<int64_t> &idx,
                                         int64_t axis) {
  std::vector<int64_t> outShape = inShape;
  outShape[axis] = static_cast<int64_t>(idx.size());
  std::vector<double> out;
  for (int64_t k = 0; k < numelOf(outShape); ++k) {
    std::vector<int64_t> c = unravel(k, outShape);
    c[axis] = idx[c[axis]];
    out.push_back(in[ravel(c, inShape)]);
  }
  return out;
}

void expectIndexSelect(const Tensor &x, int64_t axis, const Tensor &idx,
                       const std::string &what) {
  std::vector<double> got = valuesOf(indexSelect(x, axis, idx));
  std::vector<double> want =
      referenceIndexSelect(valuesOf(x), x.shape().dims(), indicesOf(idx), axis);
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.index_select", x.dtype())))
      << what << " on " << x.dtype().str();
}

TEST(FlexIndexSelect, EveryDTypeAndAxis) {
  for (DType dt : allDTypes()) {
    expectIndexSelect(sample({5, 3}, dt, 26), 0,
                      indexTensor({4, 0, 3, 4}, {4}, DType::I64), "axis 0");
    expectIndexSelect(sample({5, 3}, dt, 27), 1,
                      indexTensor({2, 2, 0, 1, 1}, {5}, DType::I32),
                      "axis 1, i32");
    expectIndexSelect(sample({3, 4, 2}, dt, 28), 1,
                      indexTensor({3, 1, 1}, {3}, DType::I64), "3-D");
    expectIndexSelect(transpose(sample({3, 5}, dt, 29), 0, 1), 0,
                      indexTensor({4, 1}, {2}, DType::I64), "strided input");
    expectIndexSelect(
        sample({6, 2}, dt, 30), 0,
        slice(indexTensor({5, 0, 3, 1, 2, 4}, {6}, DType::I64), {1}, {6}, {2}),
        "strided indices");
  }
}

// Out-of-range indices (negative ones too) are errors that name the op
// and the index; IndexCheckTest covers the API's side.
TEST(FlexIndexing, OutOfRangeIndicesAreErrors) {
  Tensor x = sample({4, 5}, DType::F32, 31);
  auto expectError = [](const std::function<void()> &f, const char *what) {
    try {
      f();
      ADD_FAILURE() << "no error";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
          << e.what();
    }
  };
  expectError(
      [&] {
        gather(x, 1, indexTensor({0, 5, 1, 2}, {4, 1}, DType::I64));
      },
      "index 5 is out of range for an axis of 5 elements");
  expectError([&] { indexSelect(x, 0, indexTensor({-3}, {1}, DType::I32)); },
              "index -3 is out of range for an axis of 4 elements");
  expectError(
      [&] {
        scatterAdd(x, 0, indexTensor({0, 0, 0, 4, 0}, {1, 5}, DType::I64),
                   sample({1, 5}, DType::F32, 32));
      },
      "kiln.scatter_add: index 4");
}

TEST(FlexOneHot, EveryResultDType) {
  std::vector<int64_t> idx{0, 2, 5, -1, 1, 3};
  for (DType dt : allDTypes()) {
    Tensor t = oneHot(indexTensor(idx, {2, 3}, DType::I64), 4, dt);
    EXPECT_EQ(t.shape(), Shape({2, 3, 4}));
    std::vector<double> want(6 * 4, 0.0);
    for (size_t k = 0; k < idx.size(); ++k)
      if (idx[k] >= 0 && idx[k] < 4)
        want[k * 4 + idx[k]] = 1.0;
    EXPECT_EQ(valuesOf(t), want) << dt.str();
  }
  Tensor fromI32 = oneHot(indexTensor({3, 0}, {2}, DType::I32), 3, DType::I32);
  EXPECT_EQ(valuesOf(fromI32), (std::vector<double>{0, 0, 0, 1, 0, 0}));
}

// The composites run as index_select and where after --kiln-decompose.
TEST(FlexIndexing, CompositesDecompose) {
  Tensor w = sample({6, 3}, DType::F32, 31);
  Tensor idx = indexTensor({5, 0, 2, 2}, {2, 2}, DType::I64);
  std::vector<double> got = valuesOf(embedding(w, idx));
  std::vector<double> wv = valuesOf(w), want;
  for (int64_t i : {5, 0, 2, 2})
    for (int64_t j = 0; j < 3; ++j)
      want.push_back(wv[i * 3 + j]);
  EXPECT_EQ(got, want);

  Tensor x = sample({2, 3}, DType::F32, 32);
  Tensor mask = DispatchTensor::fromVector(std::vector<bool>{true, false, true},
                                           {3}, flex());
  std::vector<double> xv = valuesOf(x), filled = valuesOf(maskFill(x, mask, 9));
  for (int64_t k = 0; k < 6; ++k)
    EXPECT_EQ(filled[k], k % 3 == 1 ? xv[k] : 9.0);
}

} // namespace
