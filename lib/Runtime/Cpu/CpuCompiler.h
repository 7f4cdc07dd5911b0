//===- CpuCompiler.h - From generated kernels to machine code ---*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_CPU_CPUCOMPILER_H
#define KILN_LIB_RUNTIME_CPU_CPUCOMPILER_H

#include "kiln/Support/CpuIsa.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::detail::cpu {

/// The signature every generated phase is called through.
using PhaseFn = void (*)(int64_t begin, int64_t end, void **descriptors);

/// The processor the kernels are compiled for, chosen by KILN_CPU_ISA: the
/// host's own (native), or the x86-64-v3 level (avx2), or the host's with
/// AVX-512 required (avx512).
struct CpuTarget {
  CpuIsa isa = CpuIsa::Native; ///< as resolved on this host
  std::string cpu;             ///< LLVM's name of the CPU
  std::string features;        ///< "+avx2,-avx512f,..." (may be empty)
  int64_t vectorBits = 256;    ///< what the micro-kernels target
  /// Names all of the above: part of every cache key.
  std::string key() const;
};

/// The target of this process's compiles (KILN_CPU_ISA is read once).
/// Throws kiln::Error when the host cannot run the chosen ISA.
const CpuTarget &cpuTarget();

/// Lowers the phase functions of `module` (the output of
/// --kiln-cpu-pipeline) to LLVM with --kiln-cpu-lower-to-llvm, which drops
/// the graph function and the templates, optimizes for the host and returns
/// the object files: the kernels are split into one part per thread of the
/// pool (at most one per kernel), compiled in parallel. Adds
/// `kiln_call_<phase>` entry points. Throws kiln::Error.
std::vector<std::string> compileToObjects(mlir::ModuleOp module, double &mlirMs,
                                          double &llvmMs);

/// Loads object files into one library of the process's JIT and returns
/// the entry points of `phases`, in order.
std::vector<PhaseFn> loadObjects(const std::vector<std::string> &objects,
                                 const std::vector<std::string> &phases);

/// The first out-of-range index that a kernel call met: the generated code
/// calls kBadIndexFn (kiln/Conversion/KilnToLinalg.h) on every bad index
/// and goes on with it clamped.
struct IndexFault {
  std::mutex mu;
  bool set = false;
  int64_t site = 0, index = 0, size = 0;
  /// Throws the kiln::Error that names the op and the index, if one was met.
  void throwIfSet() const;
};

/// While alive, kBadIndexFn calls on this thread report to `fault`.
class IndexFaultScope {
public:
  explicit IndexFaultScope(IndexFault *fault);
  ~IndexFaultScope();
  IndexFaultScope(const IndexFaultScope &) = delete;
  IndexFaultScope &operator=(const IndexFaultScope &) = delete;

private:
  IndexFault *previous;
};

} // namespace kiln::detail::cpu

#endif // KILN_LIB_RUNTIME_CPU_CPUCOMPILER_H
