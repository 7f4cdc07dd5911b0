//===- CpuIsa.h - The instruction set the Cpu backend targets ---*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The Cpu backend generates code for the host's own processor by default.
// KILN_CPU_ISA (env::cpuIsa) narrows that to AVX2 or asks for AVX-512, so
// that a host with AVX-512 also compiles and runs the code an AVX2-only
// host gets, and tests cover both on any host.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_CPUISA_H
#define KILN_SUPPORT_CPUISA_H

#include <optional>
#include <string>

namespace kiln {

/// Native: whatever the host has. Avx2: 256-bit vectors, AVX2 and FMA (the
/// x86-64-v3 level). Avx512: 512-bit vectors (AVX-512 F, BW, CD, DQ, VL).
enum class CpuIsa { Native, Avx2, Avx512 };

/// "native", "avx2", "avx512".
const char *cpuIsaName(CpuIsa isa);

/// The ISA named `name` ("native", "avx2" or "avx512"), if it is one.
std::optional<CpuIsa> parseCpuIsa(const std::string &name);

/// Whether the host's processor has AVX2 with FMA, and AVX-512 F, BW, CD,
/// DQ and VL.
bool hostHasAvx2();
bool hostHasAvx512();

/// Why code for `isa` cannot run on this host (empty when it can): the
/// reason a test of that ISA skips, and the error a compile for it gives.
std::string cpuIsaUnsupported(CpuIsa isa);

/// The ISA that `isa` amounts to on this host: Native becomes Avx512 or
/// Avx2 by what the host has (a host with neither stays Native).
CpuIsa resolveCpuIsa(CpuIsa isa);

} // namespace kiln

#endif // KILN_SUPPORT_CPUISA_H
