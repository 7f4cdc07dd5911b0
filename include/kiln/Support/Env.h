//===- Env.h - Every environment knob, read in one place --------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Kiln reads the environment here and nowhere else; docs/tools.md lists
// every variable. Knobs that decide something for the whole process (the
// log topics, the cache directory) are read once, at their first use; the
// others at each call, so that a program may change them between calls.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_ENV_H
#define KILN_SUPPORT_ENV_H

#include "kiln/Support/CpuIsa.h"

#include <optional>
#include <string>

namespace kiln::env {

/// KILN_LOG: is `topic` in its comma-separated list (or is it "all")?
/// Topics: compile, recompile, graph, kernels, profile, comm.
bool logEnabled(const char *topic);

/// KILN_DEVICE: the default device ("flex", "cpu", "cuda", "cuda:N"); empty
/// when unset.
std::string device();

/// KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln: where
/// compiled kernels persist; empty when none is set.
std::string cacheDir();

/// KILN_DUMP_OBJECTS: a directory that keeps every object file the Cpu
/// backend compiles (for objdump); empty when unset.
std::string dumpObjectsDir();

/// KILN_STREAM_STORES: "0" writes large Cpu outputs with plain stores, any
/// other value with non-temporal ones; unset leaves it to the host.
std::optional<bool> streamStores();

/// KILN_CPU_ISA: the instruction set the Cpu backend generates code for:
/// "native" (the default: the host's own processor), "avx2" or "avx512".
/// Read once; any other value is a kiln::Error that names the choices.
CpuIsa cpuIsa();

/// KILN_COMPILE_TIMEOUT: seconds one compile may take before the process
/// prints the graph being compiled and aborts (a hang detector for tests
/// and fuzzers); 0 or unset: no limit. Read once; a value that is not a
/// count of seconds is a kiln::Error.
double compileTimeoutSeconds();

/// KILN_AUTO_DYNAMIC: a dim becomes dynamic once its size alone made a
/// graph recompile, unless it is "0" (then dims are dynamic only where
/// markDynamic marks them). Read at each compile.
bool autoDynamic();

/// KILN_CUDA_MMA: "0" keeps f32 matmuls off the tensor cores.
bool cudaMma();

/// KILN_MPI_LIBRARY: the MPI library a job loads, else "libmpi.so.40"
/// (Open MPI 4). Read at each use.
std::string mpiLibrary();

/// The NCCL library that Cuda collectives load (KILN_NCCL_LIBRARY, else
/// libnccl.so.2, looked for on the library path and then in the CUDA
/// toolkit's lib64).
std::string ncclLibrary();

/// The CUDA toolkit that libdevice is linked from: CUDA_ROOT, CUDA_HOME or
/// CUDA_PATH, else /usr/local/cuda when it has libdevice (and then
/// CUDA_ROOT is set to it, which is where MLIR's GPU serializer looks);
/// empty when there is none.
std::string cudaToolkit();

} // namespace kiln::env

#endif // KILN_SUPPORT_ENV_H
