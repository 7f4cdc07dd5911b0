//===- KernelCache.h - Compiled kernels on disk -----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The disk cache every compiling backend shares (Cpu objects, Cuda PTX): one
// file per compiled graph under kiln::env::cacheDir(), named by a hash of its
// key (the graph's structure, the compiler's version and the target). The
// in-memory cache of executables is the engine's.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_KERNELCACHE_H
#define KILN_RUNTIME_KERNELCACHE_H

#include <optional>
#include <string>

namespace kiln::detail::kernelcache {

/// The entry of `key`, or nothing. Entries are checksummed; a corrupt one is
/// reported once, removed, and reads as a miss.
std::optional<std::string> load(const std::string &key);
/// Stores `data` as the entry of `key` (a whole entry or none: written to a
/// temporary file and renamed). A cache that cannot be written only costs
/// the next process its warm start.
void store(const std::string &key, const std::string &data);
/// The 16 hex digits that name the entry of `key` (<hash>.kobj).
std::string hashOf(const std::string &key);
/// The directory in use (created when missing); empty when none can be
/// used.
std::string directory();

} // namespace kiln::detail::kernelcache

#endif // KILN_RUNTIME_KERNELCACHE_H
