//===- HeaderTest.cpp - kiln/Kiln.h needs nothing but the C++ library -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// This file is compiled with include/ as its only project include path (no
// LLVM or MLIR directories, see CMakeLists.txt): if the public header pulled
// in an MLIR or LLVM header, the build of this test would fail.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#ifdef LLVM_SUPPORT_COMPILER_H
#error "kiln/Kiln.h reached an LLVM header"
#endif
#ifdef MLIR_IR_MLIRCONTEXT_H
#error "kiln/Kiln.h reached an MLIR header"
#endif

namespace {

TEST(HeaderTest, TheAPIWorksThroughKilnHOnly) {
  using namespace kiln;
  Tensor a = Tensor::fromVector<float>({1, 2, 3}, {3}, DispatchDevice::flex());
  EXPECT_EQ((a * 2.0).sum().item<float>(), 12.0f);
}

} // namespace
