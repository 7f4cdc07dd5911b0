//===- SortTest.cpp - argsort, sort and topk by their definition ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A stable sort of each line, ascending or descending, with ties in their
// first order and NaN above every number, along any axis of strided views,
// against std::stable_sort on the values read back in double.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include <numeric>

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

/// The stable order of `line` (NaN above everything), reversed in value
/// but not among ties when `descending`.
std::vector<int64_t> orderOf(const std::vector<double> &line, bool descending) {
  std::vector<int64_t> order(line.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  auto key = [&](int64_t i) {
    return std::isnan(line[i]) ? kInf * 2 : line[i]; // NaN above +inf
  };
  auto above = [&](int64_t a, int64_t b) {
    if (std::isnan(line[a]) != std::isnan(line[b]))
      return std::isnan(line[a]);
    return key(a) > key(b);
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return descending ? above(a, b) : above(b, a);
  });
  return order;
}

} // namespace

TEST(SortTest, ArgsortSortAndTopkAlongEveryAxis) {
  // [2, 5, 3] with ties, NaN (floats) and negative values.
  std::vector<double> base = {3, -1, 2, 2, 0, 3,  -1, 7, 2, 0.5, 3, 2, 5, 5, 1,
                              4, 4,  4, 0, 9, -2, 6,  1, 1, 2,   8, 3, 3, 0, 1};
  for (DType dtype : {DType::F32, DType::BF16, DType::F64, DType::I32}) {
    std::vector<double> x = base;
    if (dtype.isFloat())
      x[4] = x[17] = kNaN;
    x = storedAll(dtype, x);
    for (int layout : {0, 1})
      for (int64_t axis : {0, 1, 2})
        for (bool descending : {false, true}) {
          SCOPED_TRACE(nameOf(dtype) + " layout " + std::to_string(layout) +
                       " axis " + std::to_string(axis) +
                       (descending ? " descending" : ""));
          Tensor t = viewOf(x, {2, 5, 3}, dtype, layout);
          std::vector<double> v = valuesOf(t);
          std::vector<int64_t> dims = {2, 5, 3};
          int64_t n = dims[axis];
          std::vector<double> wantIdx(v.size()), wantVal(v.size());
          std::vector<int64_t> strides = {15, 3, 1};
          for (int64_t a = 0; a < 2; ++a)
            for (int64_t b = 0; b < 5; ++b)
              for (int64_t c = 0; c < 3; ++c) {
                int64_t at[3] = {a, b, c};
                if (at[axis] != 0)
                  continue;
                std::vector<double> line;
                for (int64_t i = 0; i < n; ++i) {
                  at[axis] = i;
                  line.push_back(v[at[0] * 15 + at[1] * 3 + at[2]]);
                }
                std::vector<int64_t> order = orderOf(line, descending);
                for (int64_t i = 0; i < n; ++i) {
                  at[axis] = i;
                  int64_t flat = at[0] * 15 + at[1] * 3 + at[2];
                  wantIdx[flat] = double(order[i]);
                  wantVal[flat] = line[order[i]];
                }
              }
          EXPECT_EQ(valuesOf(argsort(t, axis, descending)), wantIdx);
          std::vector<double> got = valuesOf(sort(t, axis - 3, descending));
          for (size_t i = 0; i < got.size(); ++i)
            EXPECT_TRUE(got[i] == wantVal[i] ||
                        (std::isnan(got[i]) && std::isnan(wantVal[i])))
                << i;
        }
  }
}

TEST(SortTest, TopkKeepsTheFirstOfTies) {
  Tensor x =
      tensorOf({1, 5, 3, 5, 2, 0, 9, 9}, {2, 4}, DType::F32, flexDevice());
  auto [values, indices] = topk(x, 2);
  EXPECT_EQ(valuesOf(values), (std::vector<double>{5, 5, 9, 9}));
  EXPECT_EQ(valuesOf(indices), (std::vector<double>{1, 3, 2, 3}));
  auto [low, lowAt] = topk(x, 2, 0, /*largest=*/false);
  EXPECT_EQ(lowAt.shape(), Shape({2, 4}));
  EXPECT_EQ(valuesOf(low), (std::vector<double>{1, 0, 3, 5, 2, 5, 9, 9}));
  EXPECT_EQ(valuesOf(lowAt), (std::vector<double>{0, 1, 0, 0, 1, 0, 1, 1}));
  auto [none, noneAt] = topk(x, 0);
  EXPECT_EQ(none.shape(), Shape({2, 0}));
  try {
    (void)topk(x, 5);
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "topk: k = 5 is not in [0, 4], the size of axis 1 of [2, 4]");
  }
}
