//===- ShapeRulesTest.cpp - The shape rule of every kiln op ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each rule in ShapeRules.h with static shapes, dynamic dims and the errors
// it reports. An error is checked by a piece of its message, so that a rule
// that fails for the wrong reason fails the test.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/ShapeRules.h"

#include <gtest/gtest.h>

#include <limits>

using namespace kiln::rules;

namespace {

constexpr int64_t D = kDynamic;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

Dims dims(std::initializer_list<int64_t> d) { return Dims(d); }

/// Passes when `error` is a message that contains `piece`.
::testing::AssertionResult failsWith(const std::string &error,
                                     const std::string &piece) {
  if (error.empty())
    return ::testing::AssertionFailure() << "the rule succeeded";
  if (error.find(piece) == std::string::npos)
    return ::testing::AssertionFailure()
           << "message \"" << error << "\" lacks \"" << piece << "\"";
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

TEST(FormatDims, StaticDynamicAndEmpty) {
  EXPECT_EQ(formatDims(dims({2, D, 3})), "[2, ?, 3]");
  EXPECT_EQ(formatDims(dims({})), "[]");
  EXPECT_EQ(formatDims(dims({0})), "[0]");
}

TEST(NumElements, ProductOrDynamic) {
  EXPECT_EQ(numElements(dims({2, 3, 4})), 24);
  EXPECT_EQ(numElements(dims({})), 1);
  EXPECT_EQ(numElements(dims({5, 0, 7})), 0);
  EXPECT_EQ(numElements(dims({2, D})), D);
  // The product overflows int64_t: not a number of elements.
  EXPECT_EQ(numElements(dims({kMax, 2})), D);
  EXPECT_EQ(numElements(dims({int64_t(1) << 32, int64_t(1) << 32})), D);
}

TEST(CheckAxis, Range) {
  EXPECT_EQ(checkAxis(0, 1), "");
  EXPECT_EQ(checkAxis(2, 3), "");
  EXPECT_TRUE(failsWith(checkAxis(3, 3), "axis 3 is out of range for rank 3"));
  EXPECT_TRUE(failsWith(checkAxis(-1, 3), "out of range"));
  EXPECT_TRUE(failsWith(checkAxis(0, 0), "out of range for rank 0"));
  EXPECT_TRUE(failsWith(checkAxis(kMax, 2, "dim"), "dim "));
  EXPECT_TRUE(failsWith(checkAxis(D, 2), "out of range"));
}

TEST(CheckAxes, RangeAndDuplicates) {
  EXPECT_EQ(checkAxes(dims({}), 0), "");
  EXPECT_EQ(checkAxes(dims({2, 0}), 3), "");
  EXPECT_TRUE(failsWith(checkAxes(dims({1, 1}), 3), "appears twice"));
  EXPECT_TRUE(failsWith(checkAxes(dims({0, 3}), 3), "out of range"));
  EXPECT_TRUE(failsWith(checkAxes(dims({-2}), 3), "out of range"));
  EXPECT_TRUE(failsWith(checkAxes(dims({0}), -1), "out of range"));
}

//===----------------------------------------------------------------------===//
// Broadcast, reduce, matmul
//===----------------------------------------------------------------------===//

TEST(Broadcast, TrailingDimsAlign) {
  Dims out;
  EXPECT_EQ(broadcast(dims({2, 3}), dims({3}), out), "");
  EXPECT_EQ(out, dims({2, 3}));
}

TEST(Broadcast, OnesStretch) {
  Dims out;
  EXPECT_EQ(broadcast(dims({4, 1, 5}), dims({3, 1}), out), "");
  EXPECT_EQ(out, dims({4, 3, 5}));
}

TEST(Broadcast, RankZeroIsScalar) {
  Dims out;
  EXPECT_EQ(broadcast(dims({}), dims({2, 2}), out), "");
  EXPECT_EQ(out, dims({2, 2}));
  EXPECT_EQ(broadcast(dims({}), dims({}), out), "");
  EXPECT_EQ(out, dims({}));
}

TEST(Broadcast, ZeroSizedDims) {
  Dims out;
  EXPECT_EQ(broadcast(dims({0, 3}), dims({1, 3}), out), "");
  EXPECT_EQ(out, dims({0, 3}));
  EXPECT_TRUE(failsWith(broadcast(dims({0}), dims({2}), out), "0 vs 2"));
}

TEST(Broadcast, MismatchNamesBothShapes) {
  Dims out;
  std::string e = broadcast(dims({2, 3}), dims({4}), out);
  EXPECT_TRUE(failsWith(e, "[2, 3]"));
  EXPECT_TRUE(failsWith(e, "[4]"));
  EXPECT_TRUE(failsWith(e, "3 vs 4"));
}

TEST(Broadcast, DynamicAgainstStatic) {
  Dims out;
  EXPECT_EQ(broadcast(dims({D, 3}), dims({5, 1}), out), "");
  EXPECT_EQ(out, dims({5, 3}));
  // A dynamic dim takes the other side's size, checked at run time.
  EXPECT_EQ(broadcast(dims({4}), dims({D}), out), "");
  EXPECT_EQ(out, dims({4}));
  EXPECT_EQ(broadcast(dims({D}), dims({D}), out), "");
  EXPECT_EQ(out, dims({D}));
  EXPECT_EQ(broadcast(dims({D}), dims({1}), out), "");
  EXPECT_EQ(out, dims({D}));
}

TEST(Reduce, DropOrKeepAxes) {
  Dims out;
  EXPECT_EQ(reduce(dims({2, 3, 4}), dims({1}), false, out), "");
  EXPECT_EQ(out, dims({2, 4}));
  EXPECT_EQ(reduce(dims({2, 3, 4}), dims({2, 0}), true, out), "");
  EXPECT_EQ(out, dims({1, 3, 1}));
  EXPECT_EQ(reduce(dims({2, 3}), dims({0, 1}), false, out), "");
  EXPECT_EQ(out, dims({}));
}

TEST(Reduce, DynamicDims) {
  Dims out;
  EXPECT_EQ(reduce(dims({D, 4, D}), dims({0}), true, out), "");
  EXPECT_EQ(out, dims({1, 4, D}));
  EXPECT_EQ(reduce(dims({D, 4, D}), dims({2}), false, out), "");
  EXPECT_EQ(out, dims({D, 4}));
}

TEST(Reduce, Errors) {
  Dims out;
  EXPECT_TRUE(
      failsWith(reduce(dims({2}), dims({}), false, out), "at least one axis"));
  EXPECT_TRUE(
      failsWith(reduce(dims({2, 3}), dims({2}), false, out), "out of range"));
  EXPECT_TRUE(failsWith(reduce(dims({2, 3}), dims({0, 0}), false, out),
                        "appears twice"));
  EXPECT_TRUE(failsWith(reduce(dims({}), dims({0}), false, out),
                        "out of range for rank 0"));
}

TEST(Matmul, PlainAndBatched) {
  Dims out;
  EXPECT_EQ(matmul(dims({2, 3}), dims({3, 4}), out), "");
  EXPECT_EQ(out, dims({2, 4}));
  EXPECT_EQ(matmul(dims({5, 1, 2, 3}), dims({7, 3, 4}), out), "");
  EXPECT_EQ(out, dims({5, 7, 2, 4}));
}

TEST(Matmul, DynamicDims) {
  Dims out;
  EXPECT_EQ(matmul(dims({D, D}), dims({3, D}), out), "");
  EXPECT_EQ(out, dims({D, D}));
  EXPECT_EQ(matmul(dims({D, 2, 3}), dims({4, 3, 5}), out), "");
  EXPECT_EQ(out, dims({4, 2, 5}));
}

TEST(Matmul, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(matmul(dims({3}), dims({3, 4}), out), "rank >= 2"));
  EXPECT_TRUE(failsWith(matmul(dims({2, 3}), dims({4, 5}), out),
                        "contraction dims differ"));
  EXPECT_TRUE(
      failsWith(matmul(dims({2, 2, 3}), dims({5, 3, 4}), out), "batch dims"));
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

TEST(Reshape, StaticAndInferred) {
  Dims out;
  EXPECT_EQ(reshape(dims({2, 3}), dims({3, 2}), out), "");
  EXPECT_EQ(out, dims({3, 2}));
  EXPECT_EQ(reshape(dims({2, 3, 4}), dims({-1, 4}), out), "");
  EXPECT_EQ(out, dims({6, 4}));
  EXPECT_EQ(reshape(dims({}), dims({1, 1}), out), "");
  EXPECT_EQ(out, dims({1, 1}));
  EXPECT_EQ(reshape(dims({1}), dims({}), out), "");
  EXPECT_EQ(out, dims({}));
  EXPECT_EQ(reshape(dims({0, 3}), dims({3, 0}), out), "");
  EXPECT_EQ(out, dims({3, 0}));
}

TEST(Reshape, DynamicInput) {
  Dims out;
  EXPECT_EQ(reshape(dims({D, 4}), dims({-1, 2, 2}), out), "");
  EXPECT_EQ(out, dims({D, 2, 2}));
  // Without a -1 the target is taken as given and checked at run time.
  EXPECT_EQ(reshape(dims({D}), dims({2, 3}), out), "");
  EXPECT_EQ(out, dims({2, 3}));
}

TEST(Reshape, Errors) {
  Dims out;
  EXPECT_TRUE(
      failsWith(reshape(dims({6}), dims({-1, -1}), out), "more than one -1"));
  EXPECT_TRUE(
      failsWith(reshape(dims({6}), dims({-2, 3}), out), "negative dim"));
  EXPECT_TRUE(failsWith(reshape(dims({6}), dims({D}), out), "negative dim"));
  EXPECT_TRUE(failsWith(reshape(dims({6}), dims({4}), out),
                        "(6 elements) to [4] (4 elements)"));
  EXPECT_TRUE(
      failsWith(reshape(dims({6}), dims({4, -1}), out), "cannot reshape"));
  // A zero-sized target cannot infer the -1.
  EXPECT_TRUE(
      failsWith(reshape(dims({0}), dims({0, -1}), out), "cannot reshape"));
  EXPECT_TRUE(failsWith(reshape(dims({6}), dims({kMax, kMax}), out),
                        "too many elements"));
}

TEST(Permute, Static) {
  Dims out;
  EXPECT_EQ(permute(dims({2, 3, 4}), dims({2, 0, 1}), out), "");
  EXPECT_EQ(out, dims({4, 2, 3}));
  EXPECT_EQ(permute(dims({}), dims({}), out), "");
  EXPECT_EQ(out, dims({}));
}

TEST(Permute, DynamicDimsMove) {
  Dims out;
  EXPECT_EQ(permute(dims({D, 3}), dims({1, 0}), out), "");
  EXPECT_EQ(out, dims({3, D}));
}

TEST(Permute, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(permute(dims({2, 3}), dims({0}), out),
                        "does not match rank 2"));
  EXPECT_TRUE(
      failsWith(permute(dims({2, 3}), dims({0, 0}), out), "appears twice"));
  EXPECT_TRUE(
      failsWith(permute(dims({2, 3}), dims({0, 2}), out), "out of range"));
  EXPECT_TRUE(
      failsWith(permute(dims({2, 3}), dims({-1, 0}), out), "is invalid"));
}

TEST(Expand, StretchAndLeadingDims) {
  Dims out;
  EXPECT_EQ(expand(dims({3}), dims({2, 3}), out), "");
  EXPECT_EQ(out, dims({2, 3}));
  EXPECT_EQ(expand(dims({1, 4}), dims({7, 3, -1}), out), "");
  EXPECT_EQ(out, dims({7, 3, 4}));
  EXPECT_EQ(expand(dims({}), dims({2, 2}), out), "");
  EXPECT_EQ(out, dims({2, 2}));
  EXPECT_EQ(expand(dims({1}), dims({0}), out), "");
  EXPECT_EQ(out, dims({0}));
}

TEST(Expand, DynamicDims) {
  Dims out;
  EXPECT_EQ(expand(dims({D, 1}), dims({-1, 5}), out), "");
  EXPECT_EQ(out, dims({D, 5}));
  // A dynamic input dim may be stretched; the size is checked at run time.
  EXPECT_EQ(expand(dims({D}), dims({4}), out), "");
  EXPECT_EQ(out, dims({4}));
}

TEST(Expand, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(expand(dims({2, 3}), dims({3}), out), "lower-rank"));
  EXPECT_TRUE(
      failsWith(expand(dims({3}), dims({-1, 3}), out), "new leading dim 0"));
  EXPECT_TRUE(
      failsWith(expand(dims({3}), dims({D, 3}), out), "new leading dim 0"));
  EXPECT_TRUE(failsWith(expand(dims({3}), dims({-2}), out), "negative dim"));
  EXPECT_TRUE(
      failsWith(expand(dims({2}), dims({3}), out), "2 is neither 1 nor 3"));
}

TEST(Slice, StepsAndClampedEnds) {
  Dims out;
  EXPECT_EQ(slice(dims({4, 6}), dims({0, 1}), dims({4, 6}), dims({2, 1}), out),
            "");
  EXPECT_EQ(out, dims({2, 5}));
  // An end past the dim is clamped to it.
  EXPECT_EQ(slice(dims({8}), dims({2}), dims({kMax}), dims({3}), out), "");
  EXPECT_EQ(out, dims({2}));
  EXPECT_EQ(slice(dims({10}), dims({3}), dims({3}), dims({1}), out), "");
  EXPECT_EQ(out, dims({0}));
  EXPECT_EQ(slice(dims({5}), dims({5}), dims({9}), dims({1}), out), "");
  EXPECT_EQ(out, dims({0}));
  EXPECT_EQ(slice(dims({}), dims({}), dims({}), dims({}), out), "");
  EXPECT_EQ(out, dims({}));
}

TEST(Slice, DynamicDims) {
  Dims out;
  EXPECT_EQ(
      slice(dims({D, 8}), dims({0, 2}), dims({3, 100}), dims({1, 3}), out), "");
  EXPECT_EQ(out, dims({D, 2}));
}

TEST(Slice, Errors) {
  Dims out;
  EXPECT_TRUE(
      failsWith(slice(dims({4, 4}), dims({0}), dims({4, 4}), dims({1, 1}), out),
                "one entry per dim"));
  EXPECT_TRUE(failsWith(slice(dims({4}), dims({0}), dims({4}), dims({0}), out),
                        "step 0 of dim 0 must be >= 1"));
  EXPECT_TRUE(failsWith(slice(dims({4}), dims({0}), dims({4}), dims({-1}), out),
                        "step -1"));
  EXPECT_TRUE(failsWith(slice(dims({4}), dims({-1}), dims({4}), dims({1}), out),
                        "is invalid"));
  EXPECT_TRUE(failsWith(slice(dims({4}), dims({3}), dims({2}), dims({1}), out),
                        "slice [3, 2) of dim 0 is invalid"));
  EXPECT_TRUE(failsWith(slice(dims({4}), dims({5}), dims({6}), dims({1}), out),
                        "past dim 0"));
  // The bounds are checked on a dynamic dim too.
  EXPECT_TRUE(failsWith(slice(dims({D}), dims({2}), dims({1}), dims({1}), out),
                        "is invalid"));
}

TEST(SliceAssign, ValueFitsTheRegion) {
  EXPECT_EQ(sliceAssign(dims({5}), dims({2}), dims({0}), dims({2}), dims({1})),
            "");
  EXPECT_EQ(sliceAssign(dims({D, 4}), dims({2, 2}), dims({0, 0}), dims({4, 4}),
                        dims({2, 2})),
            "");
  EXPECT_EQ(sliceAssign(dims({5}), dims({D}), dims({1}), dims({3}), dims({1})),
            "");
  EXPECT_TRUE(failsWith(
      sliceAssign(dims({5}), dims({3}), dims({0}), dims({2}), dims({1})),
      "does not fit slice [2]"));
  EXPECT_TRUE(failsWith(
      sliceAssign(dims({5}), dims({1, 2}), dims({0}), dims({2}), dims({1})),
      "does not fit"));
  EXPECT_TRUE(failsWith(
      sliceAssign(dims({5}), dims({2}), dims({0}), dims({2}), dims({0})),
      "must be >= 1"));
}

TEST(Concat, AlongAnAxis) {
  Dims out;
  Dims a = dims({2, 3}), b = dims({1, 3});
  std::vector<DimsRef> ins = {a, b};
  EXPECT_EQ(concat(ins, 0, out), "");
  EXPECT_EQ(out, dims({3, 3}));
  Dims c = dims({4});
  std::vector<DimsRef> one = {c};
  EXPECT_EQ(concat(one, 0, out), "");
  EXPECT_EQ(out, dims({4}));
}

TEST(Concat, DynamicDims) {
  Dims out;
  Dims a = dims({2, 3}), b = dims({D, 3}), c = dims({2, D});
  std::vector<DimsRef> alongDynamic = {a, b};
  EXPECT_EQ(concat(alongDynamic, 0, out), "");
  EXPECT_EQ(out, dims({D, 3}));
  std::vector<DimsRef> otherDynamic = {a, c};
  EXPECT_EQ(concat(otherDynamic, 0, out), "");
  EXPECT_EQ(out, dims({4, 3}));
}

TEST(Concat, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(concat({}, 0, out), "at least one input"));
  Dims a = dims({2, 3}), b = dims({2, 4}), c = dims({2}), big = dims({kMax});
  std::vector<DimsRef> mismatch = {a, b};
  EXPECT_TRUE(failsWith(concat(mismatch, 0, out), "outside axis 0"));
  std::vector<DimsRef> rank = {a, c};
  EXPECT_TRUE(failsWith(concat(rank, 0, out), "different rank"));
  std::vector<DimsRef> axis = {a, a};
  EXPECT_TRUE(failsWith(concat(axis, 2, out), "out of range"));
  EXPECT_TRUE(failsWith(concat(axis, -1, out), "out of range"));
  std::vector<DimsRef> overflow = {big, big};
  EXPECT_TRUE(failsWith(concat(overflow, 0, out), "too large"));
}

TEST(Split, Pieces) {
  std::vector<Dims> outs;
  EXPECT_EQ(split(dims({3, 4}), dims({2, 1}), 0, outs), "");
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0], dims({2, 4}));
  EXPECT_EQ(outs[1], dims({1, 4}));
  EXPECT_EQ(split(dims({3, 4}), dims({0, 4}), 1, outs), "");
  EXPECT_EQ(outs[0], dims({3, 0}));
}

TEST(Split, DynamicAxis) {
  std::vector<Dims> outs;
  EXPECT_EQ(split(dims({D, 6}), dims({1, 2, 3}), 1, outs), "");
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[2], dims({D, 3}));
  // The pieces of a dynamic dim are checked at run time.
  EXPECT_EQ(split(dims({D}), dims({5, 5}), 0, outs), "");
  EXPECT_EQ(outs[1], dims({5}));
}

TEST(Split, Errors) {
  std::vector<Dims> outs;
  EXPECT_TRUE(failsWith(split(dims({4}), dims({2, 1}), 0, outs),
                        "add up to 3, not dim 0"));
  EXPECT_TRUE(
      failsWith(split(dims({4}), dims({}), 0, outs), "at least one piece"));
  EXPECT_TRUE(failsWith(split(dims({4}), dims({5, -1}), 0, outs), ">= 0"));
  EXPECT_TRUE(failsWith(split(dims({4}), dims({4}), 1, outs), "out of range"));
  EXPECT_TRUE(
      failsWith(split(dims({D}), dims({kMax, kMax}), 0, outs), "too large"));
}

TEST(Squeeze, UnitDims) {
  Dims out;
  EXPECT_EQ(squeeze(dims({1, 3, 1}), dims({0, 2}), out), "");
  EXPECT_EQ(out, dims({3}));
  EXPECT_EQ(squeeze(dims({1, 3, 1}), dims({}), out), "");
  EXPECT_EQ(out, dims({1, 3, 1}));
  EXPECT_EQ(squeeze(dims({D, 1}), dims({1}), out), "");
  EXPECT_EQ(out, dims({D}));
}

TEST(Squeeze, Errors) {
  Dims out;
  EXPECT_TRUE(
      failsWith(squeeze(dims({2, 1}), dims({0}), out), "its size is not 1"));
  // A dynamic dim is not known to be 1.
  EXPECT_TRUE(failsWith(squeeze(dims({D}), dims({0}), out), "not 1"));
  EXPECT_TRUE(failsWith(squeeze(dims({1}), dims({1}), out), "out of range"));
  EXPECT_TRUE(
      failsWith(squeeze(dims({1, 1}), dims({0, 0}), out), "appears twice"));
}

TEST(Unsqueeze, NewUnitDims) {
  Dims out;
  EXPECT_EQ(unsqueeze(dims({3}), dims({0}), out), "");
  EXPECT_EQ(out, dims({1, 3}));
  EXPECT_EQ(unsqueeze(dims({D, 2}), dims({3, 0}), out), "");
  EXPECT_EQ(out, dims({1, D, 2, 1}));
  EXPECT_EQ(unsqueeze(dims({}), dims({0, 1}), out), "");
  EXPECT_EQ(out, dims({1, 1}));
}

TEST(Unsqueeze, Errors) {
  Dims out;
  // Axes index the result, of rank 2 here.
  EXPECT_TRUE(failsWith(unsqueeze(dims({3}), dims({2}), out),
                        "out of range for rank 2"));
  EXPECT_TRUE(
      failsWith(unsqueeze(dims({3}), dims({0, 0}), out), "appears twice"));
  EXPECT_TRUE(failsWith(unsqueeze(dims({3}), dims({-1}), out), "out of range"));
}

TEST(Repeat, Tiles) {
  Dims out;
  EXPECT_EQ(repeat(dims({2, 3}), dims({2, 1}), out), "");
  EXPECT_EQ(out, dims({4, 3}));
  EXPECT_EQ(repeat(dims({D, 2}), dims({3, 2}), out), "");
  EXPECT_EQ(out, dims({D, 4}));
  EXPECT_EQ(repeat(dims({0}), dims({5}), out), "");
  EXPECT_EQ(out, dims({0}));
}

TEST(Repeat, Errors) {
  Dims out;
  EXPECT_TRUE(
      failsWith(repeat(dims({2, 3}), dims({2}), out), "one entry per dim"));
  EXPECT_TRUE(failsWith(repeat(dims({2}), dims({0}), out), "must be >= 1"));
  EXPECT_TRUE(failsWith(repeat(dims({2}), dims({-3}), out), "must be >= 1"));
  EXPECT_TRUE(failsWith(repeat(dims({4}), dims({kMax}), out), "too large"));
}

TEST(Pad, LowAndHigh) {
  Dims out;
  EXPECT_EQ(pad(dims({2, 3}), dims({0, 1}), dims({0, 2}), out), "");
  EXPECT_EQ(out, dims({2, 6}));
  EXPECT_EQ(pad(dims({D, 4}), dims({1, 0}), dims({1, 0}), out), "");
  EXPECT_EQ(out, dims({D, 4}));
  EXPECT_EQ(pad(dims({}), dims({}), dims({}), out), "");
  EXPECT_EQ(out, dims({}));
}

TEST(Pad, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(pad(dims({2}), dims({-1}), dims({0}), out),
                        "low padding entries must be >= 0"));
  EXPECT_TRUE(failsWith(pad(dims({2}), dims({0}), dims({0, 0}), out),
                        "high padding needs 1 entries, got 2"));
  EXPECT_TRUE(
      failsWith(pad(dims({2}), dims({kMax}), dims({kMax}), out), "too large"));
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

TEST(Gather, IndicesShapeIsTheResult) {
  Dims out;
  EXPECT_EQ(gather(dims({2, 5}), dims({2, 3}), 1, out), "");
  EXPECT_EQ(out, dims({2, 3}));
  // Along the axis the indices may be longer than the input.
  EXPECT_EQ(gather(dims({2, 5}), dims({1, 9}), 1, out), "");
  EXPECT_EQ(out, dims({1, 9}));
  EXPECT_EQ(gather(dims({D, 4}), dims({D, 2}), 1, out), "");
  EXPECT_EQ(out, dims({D, 2}));
}

TEST(Gather, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(gather(dims({2, 5}), dims({3, 1}), 1, out),
                        "exceed input [2, 5] in dim 0"));
  EXPECT_TRUE(failsWith(gather(dims({2, 5}), dims({2}), 1, out),
                        "must have the input's rank 2"));
  EXPECT_TRUE(
      failsWith(gather(dims({2, 5}), dims({2, 5}), 2, out), "out of range"));
}

TEST(ScatterAdd, UpdatesMatchIndices) {
  EXPECT_EQ(scatterAdd(dims({4, 2}), dims({3, 2}), dims({3, 2}), 0), "");
  EXPECT_EQ(scatterAdd(dims({8}), dims({D}), dims({D}), 0), "");
  EXPECT_EQ(scatterAdd(dims({8}), dims({5}), dims({D}), 0), "");
  EXPECT_TRUE(failsWith(scatterAdd(dims({4, 2}), dims({3, 2}), dims({3, 1}), 0),
                        "must match indices of shape [3, 2]"));
  EXPECT_TRUE(failsWith(scatterAdd(dims({4, 2}), dims({3, 2}), dims({3}), 0),
                        "must match indices"));
  EXPECT_TRUE(failsWith(scatterAdd(dims({4, 2}), dims({3, 3}), dims({3, 3}), 0),
                        "exceed input"));
  EXPECT_TRUE(failsWith(scatterAdd(dims({4}), dims({3}), dims({3}), -1),
                        "out of range"));
}

TEST(IndexSelect, OneDimIndices) {
  Dims out;
  EXPECT_EQ(indexSelect(dims({10, 4}), dims({3}), 0, out), "");
  EXPECT_EQ(out, dims({3, 4}));
  EXPECT_EQ(indexSelect(dims({D, 4}), dims({D}), 1, out), "");
  EXPECT_EQ(out, dims({D, D}));
  EXPECT_TRUE(failsWith(indexSelect(dims({10, 4}), dims({3, 1}), 0, out),
                        "must be 1-D"));
  EXPECT_TRUE(
      failsWith(indexSelect(dims({10, 4}), dims({}), 0, out), "must be 1-D"));
  EXPECT_TRUE(
      failsWith(indexSelect(dims({10}), dims({3}), 1, out), "out of range"));
}

TEST(MaskFill, MaskBroadcastsToInput) {
  EXPECT_EQ(maskFill(dims({2, 3}), dims({2, 3})), "");
  EXPECT_EQ(maskFill(dims({2, 3}), dims({3})), "");
  EXPECT_EQ(maskFill(dims({2, 3}), dims({1, 3})), "");
  EXPECT_EQ(maskFill(dims({4}), dims({})), "");
  EXPECT_EQ(maskFill(dims({D, 3}), dims({2, 3})), "");
  EXPECT_EQ(maskFill(dims({2, 3}), dims({D, D})), "");
  EXPECT_TRUE(
      failsWith(maskFill(dims({2, 3}), dims({2})),
                "does not broadcast to the input [2, 3] (dim 1: 2 vs 3)"));
  // The mask may not broadcast the input to a bigger shape.
  EXPECT_TRUE(failsWith(maskFill(dims({3}), dims({2, 3})), "more dims"));
}

TEST(Embedding, RowsPerIndex) {
  Dims out;
  EXPECT_EQ(embedding(dims({100, 16}), dims({4, 8}), out), "");
  EXPECT_EQ(out, dims({4, 8, 16}));
  EXPECT_EQ(embedding(dims({100, 16}), dims({}), out), "");
  EXPECT_EQ(out, dims({16}));
  EXPECT_EQ(embedding(dims({D, D}), dims({D}), out), "");
  EXPECT_EQ(out, dims({D, D}));
  EXPECT_TRUE(failsWith(embedding(dims({100}), dims({4}), out),
                        "weight must be [vocab, dim], got [100]"));
  EXPECT_TRUE(
      failsWith(embedding(dims({2, 3, 4}), dims({4}), out), "[vocab, dim]"));
}

//===----------------------------------------------------------------------===//
// Neural-network ops
//===----------------------------------------------------------------------===//

/// conv with one spatial dim per entry of `stride`.
std::string conv(DimsRef in, DimsRef weight, DimsRef stride, DimsRef padding,
                 DimsRef dilation, int64_t groups, Dims &out) {
  return kiln::rules::conv(in, weight, nullptr, stride, padding, dilation,
                           groups, out);
}

TEST(Conv, TwoD) {
  Dims out;
  EXPECT_EQ(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}), dims({1, 1}),
                 dims({1, 1}), dims({1, 1}), 1, out),
            "");
  EXPECT_EQ(out, dims({1, 4, 8, 8}));
  EXPECT_EQ(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}), dims({2, 2}),
                 dims({0, 0}), dims({1, 1}), 1, out),
            "");
  EXPECT_EQ(out, dims({1, 4, 3, 3}));
  // Grouped, strided and dilated differently per dim.
  EXPECT_EQ(conv(dims({D, 4, 9, 9}), dims({8, 2, 2, 2}), dims({1, 2}),
                 dims({0, 1}), dims({2, 1}), 2, out),
            "");
  EXPECT_EQ(out, dims({D, 8, 7, 5}));
}

TEST(Conv, OneDWithBias) {
  Dims out;
  Dims bias = dims({6});
  DimsRef biasRef = bias;
  EXPECT_EQ(kiln::rules::conv(dims({2, 4, 10}), dims({6, 2, 3}), &biasRef,
                              dims({2}), dims({0}), dims({2}), 2, out),
            "");
  EXPECT_EQ(out, dims({2, 6, 3}));
  Dims badBias = dims({5});
  DimsRef badRef = badBias;
  EXPECT_TRUE(
      failsWith(kiln::rules::conv(dims({2, 4, 10}), dims({6, 2, 3}), &badRef,
                                  dims({1}), dims({0}), dims({1}), 2, out),
                "bias of shape [5] must be [6]"));
  Dims dynBias = dims({D});
  DimsRef dynRef = dynBias;
  EXPECT_EQ(kiln::rules::conv(dims({2, 4, 10}), dims({6, 2, 3}), &dynRef,
                              dims({1}), dims({0}), dims({1}), 2, out),
            "");
}

TEST(Conv, DynamicDims) {
  Dims out;
  EXPECT_EQ(conv(dims({1, 1, D}), dims({1, 1, 2}), dims({1}), dims({0}),
                 dims({1}), 1, out),
            "");
  EXPECT_EQ(out, dims({1, 1, D}));
  // Dynamic channels skip the group checks; a dynamic kernel gives a dynamic
  // output size.
  EXPECT_EQ(conv(dims({1, D, 5}), dims({D, D, D}), dims({1}), dims({0}),
                 dims({1}), 3, out),
            "");
  EXPECT_EQ(out, dims({1, D, D}));
}

TEST(Conv, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8}), dims({4, 3, 3, 3}), dims({1, 1}),
                             dims({0, 0}), dims({1, 1}), 1, out),
                        "input must have rank 4"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 3}), dims({1, 1}),
                             dims({0, 0}), dims({1, 1}), 1, out),
                        "weight must have rank 4"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}),
                             dims({0, 1}), dims({0, 0}), dims({1, 1}), 1, out),
                        "stride entries must be > 0"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}),
                             dims({1, 1}), dims({0}), dims({1, 1}), 1, out),
                        "padding needs 2 entries, got 1"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}),
                             dims({1, 1}), dims({-1, 0}), dims({1, 1}), 1, out),
                        "padding entries must be >= 0"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}),
                             dims({1, 1}), dims({0, 0}), dims({0, 1}), 1, out),
                        "dilation entries must be > 0"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 3, 3}),
                             dims({1, 1}), dims({0, 0}), dims({1, 1}), 0, out),
                        "groups must be >= 1"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 1, 3, 3}),
                             dims({1, 1}), dims({0, 0}), dims({1, 1}), 2, out),
                        "input channels 3 are not divisible by groups 2"));
  EXPECT_TRUE(failsWith(conv(dims({1, 4, 8, 8}), dims({3, 2, 3, 3}),
                             dims({1, 1}), dims({0, 0}), dims({1, 1}), 2, out),
                        "output channels 3 are not divisible"));
  EXPECT_TRUE(failsWith(conv(dims({1, 4, 8, 8}), dims({4, 4, 3, 3}),
                             dims({1, 1}), dims({0, 0}), dims({1, 1}), 2, out),
                        "input channels per group"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 8, 8}), dims({4, 3, 0, 3}),
                             dims({1, 1}), dims({0, 0}), dims({1, 1}), 1, out),
                        "must be >= 1"));
  EXPECT_TRUE(failsWith(conv(dims({1, 3, 2, 2}), dims({4, 3, 3, 3}),
                             dims({1, 1}), dims({0, 0}), dims({1, 1}), 1, out),
                        "does not fit the padded input"));
  // The dilated kernel no longer fits: no output, not one.
  EXPECT_TRUE(failsWith(conv(dims({1, 1, 5}), dims({1, 1, 3}), dims({1}),
                             dims({0}), dims({3}), 1, out),
                        "does not fit"));
  EXPECT_TRUE(failsWith(conv(dims({1, 1, 5}), dims({1, 1, 3}), dims({1}),
                             dims({kMax}), dims({1}), 1, out),
                        "too large"));
  EXPECT_TRUE(failsWith(conv(dims({1, 1, 5}), dims({1, 1, 3}), dims({1}),
                             dims({0}), dims({kMax}), 1, out),
                        "too large"));
}

TEST(Pool2d, WindowOutput) {
  Dims out;
  EXPECT_EQ(
      pool2d(dims({1, 3, 8, 8}), dims({2, 2}), dims({2, 2}), dims({0, 0}), out),
      "");
  EXPECT_EQ(out, dims({1, 3, 4, 4}));
  EXPECT_EQ(
      pool2d(dims({1, 3, 8, 8}), dims({2, 4}), dims({2, 4}), dims({1, 2}), out),
      "");
  EXPECT_EQ(out, dims({1, 3, 5, 3}));
  EXPECT_EQ(
      pool2d(dims({D, 2, 5, D}), dims({3, 3}), dims({1, 1}), dims({1, 1}), out),
      "");
  EXPECT_EQ(out, dims({D, 2, 5, D}));
}

TEST(Pool2d, Errors) {
  Dims out;
  EXPECT_TRUE(failsWith(
      pool2d(dims({3, 8, 8}), dims({2, 2}), dims({2, 2}), dims({0, 0}), out),
      "NCHW"));
  EXPECT_TRUE(failsWith(
      pool2d(dims({1, 3, 8, 8}), dims({2}), dims({2, 2}), dims({0, 0}), out),
      "kernel needs 2 entries"));
  EXPECT_TRUE(failsWith(
      pool2d(dims({1, 3, 8, 8}), dims({2, 0}), dims({2, 2}), dims({0, 0}), out),
      "kernel entries must be > 0"));
  EXPECT_TRUE(failsWith(
      pool2d(dims({1, 3, 8, 8}), dims({2, 2}), dims({0, 2}), dims({0, 0}), out),
      "stride entries must be > 0"));
  EXPECT_TRUE(failsWith(
      pool2d(dims({1, 3, 8, 8}), dims({2, 2}), dims({2, 2}), dims({2, 0}), out),
      "exceeds half the kernel"));
  EXPECT_TRUE(failsWith(
      pool2d(dims({1, 3, 1, 8}), dims({2, 2}), dims({1, 1}), dims({0, 0}), out),
      "does not fit the input"));
  EXPECT_TRUE(failsWith(pool2d(dims({1, 3, 8, 8}), dims({kMax, kMax}),
                               dims({1, 1}), dims({kMax / 2, 0}), out),
                        "too large"));
}

TEST(LayerNorm, OptionalAffine) {
  Dims w = dims({16}), b = dims({16}), dyn = dims({D});
  DimsRef wr = w, br = b, dr = dyn;
  EXPECT_EQ(layerNorm(dims({8, 16}), &wr, &br), "");
  EXPECT_EQ(layerNorm(dims({8, 16}), nullptr, nullptr), "");
  EXPECT_EQ(layerNorm(dims({8, 16}), nullptr, &br), "");
  EXPECT_EQ(layerNorm(dims({D, D}), &wr, &dr), "");
  EXPECT_EQ(layerNorm(dims({16}), &dr, nullptr), "");
}

TEST(LayerNorm, Errors) {
  Dims w = dims({16}), b = dims({15}), two = dims({2, 16});
  DimsRef wr = w, br = b, tr = two;
  EXPECT_TRUE(failsWith(layerNorm(dims({}), nullptr, nullptr), "rank >= 1"));
  EXPECT_TRUE(failsWith(layerNorm(dims({8, 16}), &wr, &br),
                        "bias of shape [15] must be [16]"));
  EXPECT_TRUE(failsWith(layerNorm(dims({8, 16}), &tr, nullptr),
                        "weight of shape [2, 16]"));
  EXPECT_TRUE(failsWith(layerNorm(dims({8, 15}), &wr, nullptr),
                        "weight of shape [16] must be [15]"));
}

TEST(CrossEntropy, ScalarOrPerElementLoss) {
  Dims out = dims({1});
  EXPECT_EQ(crossEntropy(dims({4, 10}), dims({4}), false, out), "");
  EXPECT_EQ(out, dims({}));
  EXPECT_EQ(crossEntropy(dims({D, 3}), dims({D}), false, out), "");
  EXPECT_EQ(crossEntropy(dims({D, 3}), dims({5}), true, out), "");
  EXPECT_EQ(out, dims({5}));
  EXPECT_EQ(crossEntropy(dims({2, 10, 3, D}), dims({2, 3, 7}), true, out), "");
  EXPECT_EQ(out, dims({2, 3, 7}));
  EXPECT_TRUE(failsWith(crossEntropy(dims({4}), dims({4}), false, out),
                        "logits must be [N, C, d...]"));
  EXPECT_TRUE(failsWith(crossEntropy(dims({4, 10}), dims({4, 1}), false, out),
                        "labels must be [N, d...] for logits [4, 10]"));
  EXPECT_TRUE(failsWith(crossEntropy(dims({4, 10}), dims({3}), false, out),
                        "disagree on dim 0 of the logits"));
  EXPECT_TRUE(failsWith(crossEntropy(dims({4, 10, 2}), dims({4, 3}), true, out),
                        "disagree on dim 2 of the logits"));
}

} // namespace
