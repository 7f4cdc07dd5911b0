//===- ShapeRulesTest.cpp - Broadcasting and shape inference --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/ShapeRules.h"

#include <gtest/gtest.h>

using namespace kiln::rules;

namespace {

Dims dims(std::initializer_list<int64_t> d) { return Dims(d); }

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
}

TEST(Broadcast, MismatchNamesBothShapes) {
  Dims out;
  std::string e = broadcast(dims({2, 3}), dims({4}), out);
  EXPECT_NE(e.find("[2, 3]"), std::string::npos) << e;
  EXPECT_NE(e.find("[4]"), std::string::npos) << e;
}

TEST(Broadcast, DynamicAgainstStatic) {
  Dims out;
  EXPECT_EQ(broadcast(dims({kDynamic, 3}), dims({5, 1}), out), "");
  EXPECT_EQ(out, dims({5, 3}));
  EXPECT_EQ(formatDims(dims({kDynamic, 3})), "[?, 3]");
}

} // namespace
