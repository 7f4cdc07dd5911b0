//===- Env.cpp - Every environment knob, read in one place ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/Env.h"
#include "kiln/Support/Error.h"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <sys/stat.h>

using namespace kiln;

namespace {

/// The value of `name`, or empty when it is unset.
std::string read(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

bool env::logEnabled(const char *topic) {
  static const std::string value = read("KILN_LOG");
  if (value.empty())
    return false;
  if (value == "all")
    return true;
  std::stringstream ss(value);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item == topic)
      return true;
  return false;
}

std::string env::device() { return read("KILN_DEVICE"); }

std::string env::cacheDir() {
  static const std::string dir = [] {
    if (const char *d = std::getenv("KILN_CACHE_DIR"))
      return std::string(d);
    if (std::string xdg = read("XDG_CACHE_HOME"); !xdg.empty())
      return xdg + "/kiln";
    if (std::string home = read("HOME"); !home.empty())
      return home + "/.cache/kiln";
    return std::string();
  }();
  return dir;
}

CpuIsa env::cpuIsa() {
  static const std::optional<CpuIsa> isa = parseCpuIsa(
      read("KILN_CPU_ISA").empty() ? "native" : read("KILN_CPU_ISA"));
  if (!isa)
    throw Error("KILN_CPU_ISA is '" + read("KILN_CPU_ISA") +
                "'; expected native, avx2 or avx512");
  return *isa;
}

double env::compileTimeoutSeconds() {
  static const std::optional<double> seconds = []() -> std::optional<double> {
    std::string v = read("KILN_COMPILE_TIMEOUT");
    if (v.empty())
      return 0.0;
    char *end = nullptr;
    double s = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0' || !(s >= 0) || s > 1e6)
      return std::nullopt;
    return s;
  }();
  if (!seconds)
    throw Error("KILN_COMPILE_TIMEOUT is '" + read("KILN_COMPILE_TIMEOUT") +
                "'; expected a number of seconds from 0 (no limit) to "
                "1000000");
  return *seconds;
}

bool env::autoDynamic() { return read("KILN_AUTO_DYNAMIC") != "0"; }

std::string env::dumpObjectsDir() { return read("KILN_DUMP_OBJECTS"); }

std::optional<bool> env::streamStores() {
  const char *v = std::getenv("KILN_STREAM_STORES");
  if (!v)
    return std::nullopt;
  return std::strcmp(v, "0") != 0;
}

bool env::cudaMma() {
  const char *v = std::getenv("KILN_CUDA_MMA");
  return !(v && std::strcmp(v, "0") == 0);
}

std::string env::mpiLibrary() {
  std::string v = read("KILN_MPI_LIBRARY");
  return v.empty() ? "libmpi.so.40" : v;
}

std::string env::ncclLibrary() {
  std::string v = read("KILN_NCCL_LIBRARY");
  return v.empty() ? "libnccl.so.2" : v;
}

std::string env::cudaToolkit() {
  for (const char *name : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (std::string v = read(name); !v.empty())
      return v;
  const std::string usual = "/usr/local/cuda";
  if (!isFile(usual + "/nvvm/libdevice/libdevice.10.bc"))
    return {};
  ::setenv("CUDA_ROOT", usual.c_str(), /*overwrite=*/0);
  return usual;
}
