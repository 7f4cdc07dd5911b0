//===- CpuJit.h - Loading and calling compiled Cpu kernels ------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime half of the Cpu backend's code: object files that the Cpu
// target compiled (lib/Target/Cpu) are linked by LLVM's ORC JIT, with the
// runtime functions the generated code calls (kiln/Support/KernelAbi.h)
// defined by the process.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_CPU_CPUJIT_H
#define KILN_LIB_RUNTIME_CPU_CPUJIT_H

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::detail::cpu {

/// The signature every generated phase is called through.
using PhaseFn = void (*)(int64_t begin, int64_t end, void **descriptors);

/// Loads object files into one library of the process's JIT and returns
/// the entry points (kiln_call_<phase>) of `phases`, in order. Throws
/// kiln::Error when an object does not load or a phase is missing.
std::vector<PhaseFn> loadObjects(const std::vector<std::string> &objects,
                                 const std::vector<std::string> &phases);

/// The first out-of-range index that a kernel call met: the generated code
/// calls kBadIndexFn on every bad index and goes on with it clamped.
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

#endif // KILN_LIB_RUNTIME_CPU_CPUJIT_H
