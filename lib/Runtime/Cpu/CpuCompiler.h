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
#include <optional>
#include <string>
#include <vector>

namespace kiln::detail::cpu {

/// The signature every generated phase is called through.
using PhaseFn = void (*)(int64_t begin, int64_t end, void **descriptors);

/// The host CPU's name and features: part of every cache key.
const std::string &hostTarget();

/// Lowers the phase functions of `module` (the output of
/// --kiln-generate-kernels) to LLVM, optimizes for the host and returns the
/// object file. Adds `kiln_call_<phase>` entry points. Throws kiln::Error.
std::string compileToObject(mlir::ModuleOp module, double &mlirMs,
                            double &llvmMs);

/// Loads an object file into the process's JIT and returns the entry
/// points of `phases`, in order.
std::vector<PhaseFn> loadObject(const std::string &object,
                                const std::vector<std::string> &phases);

/// Compiled objects on disk, keyed by graph, compiler version and target.
/// Entries are checksummed; a corrupt one is reported once, removed and
/// recompiled.
std::optional<std::string> diskCacheLoad(const std::string &key);
void diskCacheStore(const std::string &key, const std::string &object);
/// The 16 hex digits that name the entry of `key` (<hash>.kobj).
std::string diskCacheHash(const std::string &key);
/// The directory in use (KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else
/// ~/.cache/kiln); empty when none can be used.
std::string diskCacheDir();

} // namespace kiln::detail::cpu

#endif // KILN_LIB_RUNTIME_CPU_CPUCOMPILER_H
