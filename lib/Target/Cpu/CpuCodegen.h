//===- CpuCodegen.h - From generated kernels to object files ----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_CPU_CPUCODEGEN_H
#define KILN_LIB_TARGET_CPU_CPUCODEGEN_H

#include "kiln/Support/CpuIsa.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::detail::cpu {

/// The processor the kernels are compiled for, chosen by KILN_CPU_ISA: the
/// host's own (native), or the x86-64-v3 level (avx2), or the host's with
/// AVX-512 required (avx512).
struct CpuMachine {
  CpuIsa isa = CpuIsa::Native; ///< as resolved on this host
  std::string cpu;             ///< LLVM's name of the CPU
  std::string features;        ///< "+avx2,-avx512f,..." (may be empty)
  int64_t vectorBits = 256;    ///< what the micro-kernels target
  /// Names all of the above: part of every cache key.
  std::string key() const;
};

/// The machine of this process's compiles (KILN_CPU_ISA is read once).
/// Throws kiln::Error when the host cannot run the chosen ISA.
const CpuMachine &cpuMachine();

/// Lowers the phase functions of `module` (the output of
/// --kiln-cpu-pipeline) to LLVM with --kiln-cpu-lower-to-llvm, which drops
/// the graph function and the templates, optimizes them for cpuMachine()
/// and returns the object files: the kernels are split into one part per
/// thread of the pool (at most one per kernel), compiled in parallel. Adds
/// the phases' entry points (kiln/Support/KernelAbi.h). Throws kiln::Error.
std::vector<std::string> compileToObjects(mlir::ModuleOp module, double &mlirMs,
                                          double &llvmMs);

} // namespace kiln::detail::cpu

#endif // KILN_LIB_TARGET_CPU_CPUCODEGEN_H
