//===- CpuCompiler.h - From generated kernels to machine code ---*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_CPU_CPUCOMPILER_H
#define KILN_LIB_RUNTIME_CPU_CPUCOMPILER_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::detail::cpu {

/// The signature every generated phase is called through.
using PhaseFn = void (*)(int64_t begin, int64_t end, void **descriptors);

/// The host CPU's name and features: part of every cache key.
const std::string &hostTarget();

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
