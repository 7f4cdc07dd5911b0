//===- CpuProgram.h - The Cpu backend's part of an artifact -----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the Cpu target (lib/Target/Cpu) writes into an artifact's payload
// and the Cpu backend (lib/Runtime/Cpu) runs: each fused kernel's phases
// (their symbols, parallel units and grain), its buffers' types and
// shapes, its scratch and in-place rules, and the object files that define
// the phases. A plan step of kind kCpuKernelStep calls kernel `index`; the
// other steps are host ops (views, collectives).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CPUPROGRAM_H
#define KILN_RUNTIME_CPUPROGRAM_H

#include "kiln/Runtime/Artifact.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::detail::cpu {

/// The plan steps that call a kernel of CpuProgram::kernels.
constexpr int kCpuKernelStep = 1;

/// One phase of a kernel: `kiln_call_<name>(begin, end, descriptors)` runs
/// units [begin, end) of it.
struct CpuPhase {
  std::string name;
  int64_t units = 1, grain = 1;
  /// Of a kernel with dynamic dims: ceil(S * unitsPer[0] / unitsPer[1])
  /// units for the run's dynamic size S (none: `units`).
  int64_t unitsPer[2] = {0, 0};

  int64_t unitsFor(int64_t s) const {
    if (unitsPer[1] <= 0 || s < 0)
      return units;
    return (s * unitsPer[0] + unitsPer[1] - 1) / unitsPer[1];
  }
};

/// Which input's buffer an output may take when the input dies at the
/// call: any input (elementwise kernels), one, or none.
constexpr int kAnyInputInPlace = -2;
constexpr int kNoInputInPlace = -1;

struct CpuKernel {
  std::string name;
  std::string label; ///< kind(fused ops) and output shape, for the profile
  std::vector<CpuPhase> phases;
  int64_t workspaceBytes = 0;
  /// Of a kernel with dynamic dims: ceil(S / r) * p + c bytes, as
  /// {p, r, c} (none: r == 0).
  int64_t workspacePer[3] = {0, 0, 0};
  int inPlaceInput = kNoInputInPlace;
  std::vector<DType> outTypes;
  /// Dynamic dims (kDynamic) are one size per call: S times a static
  /// factor that the kernel's inputs show (a dim that merged S with T is
  /// S * T).
  std::vector<std::vector<int64_t>> inShapes, outShapes;
  /// The input and dim that give the call's dynamic size (none: -1).
  int sizeInput = -1, sizeDim = -1;
  /// The phases take the dynamic size as a last i64 buffer (kiln.sizes).
  bool needsSizes = false;
  /// The phases' size is this many times the call's (kiln.size_scale).
  int64_t sizeScale = 1;

  int64_t workspaceFor(int64_t s) const {
    if (workspacePer[1] <= 0 || s < 0)
      return workspaceBytes;
    return (s + workspacePer[1] - 1) / workspacePer[1] * workspacePer[0] +
           workspacePer[2];
  }
};

struct CpuProgram {
  std::vector<CpuKernel> kernels;
  /// (argument, dim) of every dynamic dim of the graph's arguments.
  std::vector<std::pair<int, int>> dynamicArgs;
  /// Object files defining every phase's `kiln_call_<phase>`.
  std::vector<std::string> objects;
};

/// The payload bytes of `p`.
std::string encode(const CpuProgram &p);

/// Registers LLVM's native target, its assembly printer and parser, once
/// per process: what the JIT that runs programs and the code generator
/// that makes them both need.
void initializeNativeLLVM();
/// The program of a payload, or nothing when the bytes are not one.
std::optional<CpuProgram> decodeCpuProgram(std::string_view bytes);

} // namespace kiln::detail::cpu

#endif // KILN_RUNTIME_CPUPROGRAM_H
