//===- ShapeTest.cpp - Layout ops on every dtype --------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each shape op is described by the source element that every result element
// reads (or "the pad value"). The test runs each op on every dtype, bool
// included, on contiguous and strided inputs, reads the result directly and
// through a cast (so an elementwise kernel reads the view Flex made).
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

using namespace kiln;
using namespace kiln::test;

namespace {

using Dims = std::vector<int64_t>;
/// Source flat index of the result element at `idx`, or -1 for padding.
using SourceOf = std::function<int64_t(const Dims &idx)>;

struct ShapeCase {
  const char *name;
  Dims in;
  Dims out;
  std::function<Tensor(const Tensor &)> fn;
  SourceOf source;
};

int64_t flat(const Dims &idx, const Dims &shape) {
  Dims st = stridesOf(shape);
  int64_t f = 0;
  for (size_t d = 0; d < idx.size(); ++d)
    f += idx[d] * st[d];
  return f;
}

std::vector<ShapeCase> shapeCases() {
  const Dims s{3, 4, 5};
  return {
      {"reshape",
       s,
       {5, 12},
       [](auto &x) {
         return x.reshape({5, -1});
       },
       [](const Dims &i) { return i[0] * 12 + i[1]; }},
      {"flatten",
       s,
       {60},
       [](auto &x) { return x.flatten(); },
       [](const Dims &i) { return i[0]; }},
      {"permute",
       s,
       {5, 3, 4},
       [](auto &x) {
         return x.permute({2, 0, 1});
       },
       [s](const Dims &i) {
         return flat({i[1], i[2], i[0]}, s);
       }},
      // Large enough for the blocked copy of views whose contiguous dim
      // is not the last one (blocks of 32, with partial blocks).
      {"permute_blocked",
       {9, 37, 70},
       {70, 9, 37},
       [](auto &x) {
         return x.permute({2, 0, 1});
       },
       [](const Dims &i) {
         return flat({i[1], i[2], i[0]}, {9, 37, 70});
       }},
      {"transpose_blocked",
       {9, 37, 70},
       {70, 37, 9},
       [](auto &x) { return transpose(x, 0, -1); },
       [](const Dims &i) {
         return flat({i[2], i[1], i[0]}, {9, 37, 70});
       }},
      {"transpose_of_slice_blocked",
       {9, 37, 70},
       {2, 66, 35},
       [](auto &x) {
         return transpose(x.slice({3, 1, 2}, {5, 36, 68}), 1, 2);
       },
       [](const Dims &i) {
         return flat({3 + i[0], 1 + i[2], 2 + i[1]}, {9, 37, 70});
       }},
      {"transpose",
       s,
       {5, 4, 3},
       [](auto &x) { return transpose(x, 0, -1); },
       [s](const Dims &i) {
         return flat({i[2], i[1], i[0]}, s);
       }},
      {"expand",
       {3, 1, 5},
       {2, 3, 4, 5},
       [](auto &x) {
         return x.expand({2, -1, 4, 5});
       },
       [](const Dims &i) {
         return flat({i[1], 0, i[3]}, {3, 1, 5});
       }},
      {"slice",
       s,
       {2, 3, 2},
       [](auto &x) {
         return x.slice({0, 1, -4}, {3, 100, 5}, {2, 1, 2});
       },
       [s](const Dims &i) {
         return flat({2 * i[0], 1 + i[1], 1 + 2 * i[2]}, s);
       }},
      {"narrow",
       s,
       {3, 2, 5},
       [](auto &x) { return x.narrow(1, 2, 2); },
       [s](const Dims &i) {
         return flat({i[0], i[1] + 2, i[2]}, s);
       }},
      {"squeeze",
       {3, 1, 5},
       {3, 5},
       [](auto &x) { return x.squeeze({1}); },
       [](const Dims &i) { return i[0] * 5 + i[1]; }},
      {"unsqueeze",
       s,
       {3, 1, 4, 1, 5},
       [](auto &x) {
         return unsqueeze(x, {1, -2});
       },
       [s](const Dims &i) {
         return flat({i[0], i[2], i[4]}, s);
       }},
      {"flip", s, s,
       [](auto &x) {
         return flip(x, {0, 2});
       },
       [s](const Dims &i) {
         return flat({2 - i[0], i[1], 4 - i[2]}, s);
       }},
      {"repeat",
       {2, 3},
       {4, 9},
       [](auto &x) {
         return repeat(x, {2, 3});
       },
       [](const Dims &i) { return (i[0] % 2) * 3 + i[1] % 3; }},
      {"pad",
       {2, 3},
       {5, 4},
       [](auto &x) {
         return pad(x, {1, 0}, {2, 1}, 1);
       },
       [](const Dims &i) -> int64_t {
         if (i[0] < 1 || i[0] >= 3 || i[1] >= 3)
           return -1;
         return (i[0] - 1) * 3 + i[1];
       }},
      {"split",
       s,
       {3, 3, 5},
       [](auto &x) {
         return split(x, {1, 3}, 1)[1];
       },
       [s](const Dims &i) {
         return flat({i[0], i[1] + 1, i[2]}, s);
       }},
  };
}

void PrintTo(const ShapeCase &c, std::ostream *os) { *os << c.name; }

class ShapeTest : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(ShapeTest, MatchesIndexMapOnEveryDType) {
  const ShapeCase &c = GetParam();
  std::vector<DType> dtypes = allDTypes();
  for (size_t k = 0; k < dtypes.size(); ++k) {
    DType dtype = dtypes[k];
    std::vector<double> values =
        cycle(storedAll(dtype, sampleValues(dtype)), numelOf(c.in), k);
    std::vector<double> want;
    Dims ost = stridesOf(c.out);
    for (int64_t f = 0; f < numelOf(c.out); ++f) {
      Dims idx(c.out.size());
      for (size_t d = 0; d < c.out.size(); ++d)
        idx[d] = (f / ost[d]) % c.out[d];
      int64_t src = c.source(idx);
      want.push_back(src < 0 ? 1 : values[src]);
    }
    for (int layout : {0, int(1 + k % 3)}) {
      SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " " +
                   layoutName(layout));
      Tensor y = c.fn(viewOf(values, c.in, dtype, layout));
      ASSERT_EQ(y.dtype(), dtype);
      ASSERT_EQ(y.shape(), Shape(c.out));
      EXPECT_EQ(valuesOf(y), want);
      // An elementwise kernel reading the result (often a view).
      EXPECT_EQ(valuesOf(cast(y, DType::F64)), want);
      if (!dtype.isBool())
        EXPECT_EQ(valuesOf(y * 1.0), want);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, ShapeTest, ::testing::ValuesIn(shapeCases()),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(ShapeTest, ConcatAndSplitOnEveryDType) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> pool = storedAll(dtype, sampleValues(dtype));
    std::vector<double> a = cycle(pool, 6), b = cycle(pool, 2, 3),
                        c = cycle(pool, 4, 5);
    // [2, 3] ++ [2, 1] (transposed view) ++ [2, 2] (flipped) along axis 1.
    Tensor ta = tensorOf(a, {2, 3}, dtype, flex);
    Tensor tb = viewOf(b, {2, 1}, dtype, 1);
    Tensor tc = viewOf(c, {2, 2}, dtype, 2);
    Tensor cat = concat({ta, tb, tc}, -1);
    ASSERT_EQ(cat.shape(), Shape({2, 6}));
    std::vector<double> want;
    for (int r = 0; r < 2; ++r) {
      for (int j = 0; j < 3; ++j)
        want.push_back(a[r * 3 + j]);
      want.push_back(b[r]);
      for (int j = 0; j < 2; ++j)
        want.push_back(c[r * 2 + j]);
    }
    EXPECT_EQ(valuesOf(cat), want);
    EXPECT_EQ(valuesOf(concat({ta, ta}, 0)).size(), 12u);
    std::vector<Tensor> parts = split(cat, {3, 1, 2}, 1);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(valuesOf(parts[0]), a);
    EXPECT_EQ(valuesOf(parts[1]), b);
    EXPECT_EQ(valuesOf(parts[2]), c);
  }
}

TEST(ShapeTest, SliceAssignOnEveryDType) {
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> pool = storedAll(dtype, sampleValues(dtype));
    std::vector<double> d = cycle(pool, 60), v = cycle(pool, 12, 4);
    for (int layout : {0, 1, 2}) {
      Tensor dest = viewOf(d, {3, 4, 5}, dtype, layout);
      // Rows 1..2, every second column of dim 1, columns 0, 2, 4.
      Tensor value = viewOf(v, {2, 2, 3}, dtype, 2 - layout);
      Tensor y = sliceAssign(dest, value, {1, 0, 0}, {3, 4, 5}, {1, 2, 2});
      std::vector<double> want = d;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          for (int k = 0; k < 3; ++k)
            want[flat({1 + i, 2 * j, 2 * k}, {3, 4, 5})] =
                v[flat({i, j, k}, {2, 2, 3})];
      EXPECT_EQ(valuesOf(y), want) << layoutName(layout);
      EXPECT_EQ(valuesOf(dest), d) << "the destination handle is unchanged";
    }
  }
}

TEST(ShapeTest, ChainedViewsFeedElementwiseOps) {
  DispatchDevice flex = DispatchDevice::flex();
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i)
    v[i] = i;
  Tensor x = tensorOf(v, {2, 3, 4}, DType::F32, flex);
  // permute -> slice(step 2) -> flip -> add with a broadcast view.
  Tensor a =
      flip(x.permute({2, 1, 0}).slice({0, 0, 0}, {4, 3, 2}, {2, 1, 1}), {1});
  Tensor b = x.slice({0, 0, 0}, {1, 3, 1}).reshape({3, 1});
  Tensor y = a + b;
  ASSERT_EQ(y.shape(), Shape({2, 3, 2}));
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)   // dim 2 of x, step 2
    for (int j = 0; j < 3; ++j) // dim 1 of x, flipped
      for (int k = 0; k < 2; ++k)
        want.push_back(v[k * 12 + (2 - j) * 4 + 2 * i] + v[j * 4]);
  EXPECT_EQ(valuesOf(y), want);
  EXPECT_EQ(valuesOf(exp(a) * 0.0), std::vector<double>(12, 0.0));
}

} // namespace
