//===- KernelCacheFuzzer.cpp - The kernel-cache reader under libFuzzer ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes as the disk-cache entry of a key: load() gives the entry or a
// miss (a corrupt entry is reported and removed), never a crash. The same
// bytes, and an entry's contents, as an artifact (what an entry holds) and
// as the Cpu and Cuda programs of its payload: read back or refused, never
// read past. With KILN_FUZZ_SEED_OUT=<file> the fuzzer writes a valid entry
// there, and a valid artifact to <file>.artifact, and exits: the seeds of
// its corpus.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kiln/Runtime/Artifact.h"
#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Runtime/CudaProgram.h"
#include "kiln/Runtime/KernelCache.h"
#include "kiln/Support/Error.h"

#include <fstream>
#include <sstream>

namespace kc = kiln::detail::kernelcache;

static const char *const kKey = "fuzz: one graph's key";

/// A Cpu artifact of one kernel step and one view.
static std::string sampleArtifact() {
  using namespace kiln::detail;
  Artifact a;
  a.backend = "cpu";
  PlanBuilder b(1);
  std::vector<int> k = b.step(cpu::kCpuKernelStep, 0, {0}, 1);
  std::vector<int> v = b.step(kHostOpStep, 0, {k[0]}, 1);
  a.plan = b.finish({v[0]});
  OpDesc view;
  view.name = "kiln.reshape";
  view.operands = {{kiln::DType::F32, {2, 3}}};
  view.results = {{kiln::DType::F32, {6}}};
  a.ops = {view};
  cpu::CpuProgram p;
  cpu::CpuKernel kernel;
  kernel.name = "main_kernel0_elementwise";
  kernel.phases = {{"main_kernel0_elementwise__p0", 1, 1, {0, 0}}};
  kernel.outTypes = {kiln::DType::F32};
  kernel.inShapes = kernel.outShapes = {{2, 3}};
  p.kernels = {kernel};
  p.objects = {"\x7f"
               "ELF"};
  a.payload = cpu::encode(p);
  return serialize(a);
}

/// Reads `bytes` as an artifact and its payload as either program.
static void readArtifact(std::string_view bytes) {
  using namespace kiln::detail;
  std::optional<Artifact> a = deserialize(bytes);
  std::string_view payload = a ? std::string_view(a->payload) : bytes;
  (void)cpu::decodeCpuProgram(payload);
  (void)cuda::decodeCudaProgram(payload);
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  std::string dir = kiln::fuzz::scratchDir() + "/cache";
  ::setenv("KILN_CACHE_DIR", dir.c_str(), 1);
  if (const char *out = std::getenv("KILN_FUZZ_SEED_OUT")) {
    kc::store(kKey, std::string("\x7f"
                                "ELF a compiled object",
                                22));
    std::ifstream in(kc::directory() + "/" + kc::hashOf(kKey) + ".kobj",
                     std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::ofstream(out, std::ios::binary) << bytes.str();
    std::ofstream(std::string(out) + ".artifact", std::ios::binary)
        << sampleArtifact();
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path =
      kc::directory() + "/" + kc::hashOf(kKey) + ".kobj";
  kiln::fuzz::writeFile(path, data, size);
  try {
    if (std::optional<std::string> entry = kc::load(kKey))
      readArtifact(*entry);
  } catch (const kiln::Error &) {
  }
  readArtifact(std::string_view(reinterpret_cast<const char *>(data), size));
  return 0;
}
