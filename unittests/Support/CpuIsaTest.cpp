//===- CpuIsaTest.cpp - The ISA choice of the Cpu backend -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/CpuIsa.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

TEST(CpuIsaTest, NamesParseBack) {
  for (CpuIsa isa : {CpuIsa::Native, CpuIsa::Avx2, CpuIsa::Avx512})
    EXPECT_EQ(parseCpuIsa(cpuIsaName(isa)), isa);
  EXPECT_EQ(parseCpuIsa("avx2"), CpuIsa::Avx2);
  EXPECT_FALSE(parseCpuIsa("AVX2").has_value());
  EXPECT_FALSE(parseCpuIsa("avx512f").has_value());
  EXPECT_FALSE(parseCpuIsa("").has_value());
}

TEST(CpuIsaTest, WhatTheHostRunsFollowsItsFeatures) {
  // An AVX-512 host of Kiln's kind also has AVX2 with FMA.
  if (hostHasAvx512())
    EXPECT_TRUE(hostHasAvx2());
  EXPECT_EQ(cpuIsaUnsupported(CpuIsa::Native), "");
  EXPECT_EQ(cpuIsaUnsupported(CpuIsa::Avx2).empty(), hostHasAvx2());
  std::string avx512 = cpuIsaUnsupported(CpuIsa::Avx512);
  EXPECT_EQ(avx512.empty(), hostHasAvx512());
  if (!avx512.empty())
    EXPECT_EQ(avx512, "this host's processor has no AVX-512 (F, BW, CD, DQ "
                      "and VL)");
}

TEST(CpuIsaTest, NativeResolvesToTheWidestTheHostHas) {
  CpuIsa native = resolveCpuIsa(CpuIsa::Native);
  if (hostHasAvx512())
    EXPECT_EQ(native, CpuIsa::Avx512);
  else if (hostHasAvx2())
    EXPECT_EQ(native, CpuIsa::Avx2);
  else
    EXPECT_EQ(native, CpuIsa::Native);
  EXPECT_EQ(resolveCpuIsa(CpuIsa::Avx2), CpuIsa::Avx2);
  EXPECT_EQ(resolveCpuIsa(CpuIsa::Avx512), CpuIsa::Avx512);
}

} // namespace
