//===- CpuIsa.cpp - The instruction set the Cpu backend targets -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/CpuIsa.h"

using namespace kiln;

const char *kiln::cpuIsaName(CpuIsa isa) {
  switch (isa) {
  case CpuIsa::Native:
    return "native";
  case CpuIsa::Avx2:
    return "avx2";
  case CpuIsa::Avx512:
    return "avx512";
  }
  return "?";
}

std::optional<CpuIsa> kiln::parseCpuIsa(const std::string &name) {
  for (CpuIsa isa : {CpuIsa::Native, CpuIsa::Avx2, CpuIsa::Avx512})
    if (name == cpuIsaName(isa))
      return isa;
  return std::nullopt;
}

bool kiln::hostHasAvx2() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool kiln::hostHasAvx512() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

std::string kiln::cpuIsaUnsupported(CpuIsa isa) {
  switch (isa) {
  case CpuIsa::Native:
    return {};
  case CpuIsa::Avx2:
    return hostHasAvx2() ? std::string()
                         : "this host's processor has no AVX2 with FMA";
  case CpuIsa::Avx512:
    return hostHasAvx512()
               ? std::string()
               : "this host's processor has no AVX-512 (F, BW, CD, DQ "
                 "and VL)";
  }
  return {};
}

CpuIsa kiln::resolveCpuIsa(CpuIsa isa) {
  if (isa != CpuIsa::Native)
    return isa;
  if (hostHasAvx512())
    return CpuIsa::Avx512;
  if (hostHasAvx2())
    return CpuIsa::Avx2;
  return CpuIsa::Native;
}
