//===- CpuJit.cpp - Loading and calling compiled Cpu kernels --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CpuJit.h"
#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/IndexCheck.h"
#include "kiln/Support/KernelAbi.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#if defined(__x86_64__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cpu;

void kiln::detail::cpu::initializeNativeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

/// Where kilnBadIndex reports on this thread (set around each phase call).
static thread_local IndexFault *currentIndexFault = nullptr;

cpu::IndexFaultScope::IndexFaultScope(IndexFault *fault)
    : previous(currentIndexFault) {
  currentIndexFault = fault;
}
cpu::IndexFaultScope::~IndexFaultScope() { currentIndexFault = previous; }

void cpu::IndexFault::throwIfSet() const {
  if (set)
    throw Error(indexOutOfRange(indexSiteOp(static_cast<IndexSite>(site)),
                                index, size));
}

/// kBadIndexFn(site, index, size): records the first bad index of the
/// kernel call running on this thread.
extern "C" void kilnBadIndex(int64_t site, int64_t index, int64_t size) {
  IndexFault *f = currentIndexFault;
  if (!f)
    return;
  std::lock_guard<std::mutex> lock(f->mu);
  if (f->set)
    return;
  f->set = true;
  f->site = site;
  f->index = index;
  f->size = size;
}

namespace {

/// The bf16 conversions LLVM may leave as calls into compiler-rt (on
/// targets without AVX512-BF16). They are Kiln's own, so kernels do not
/// depend on the process having a compiler-rt or a recent libgcc.
/// Round to nearest even; NaN stays a quiet NaN.
uint16_t bf16BitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

extern "C" __bf16 kilnTruncSfBf2(float f) {
  uint16_t h = bf16BitsOf(f);
  __bf16 r;
  std::memcpy(&r, &h, 2);
  return r;
}

/// f64 -> bf16 through f32 rounded to odd, so the value is rounded once.
extern "C" __bf16 kilnTruncDfBf2(double d) {
  float f = static_cast<float>(d);
  if (!std::isnan(d) && static_cast<double>(f) != d) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::fabs(static_cast<double>(f)) > std::fabs(d))
      --u; // toward zero
    u |= 1;
    std::memcpy(&f, &u, 4);
  }
  return kilnTruncSfBf2(f);
}

/// kStreamStoreFn(dst, src, bytes): the block of a streamed output
/// (kernelgen::emitStreamedStores) copied with non-temporal stores, which
/// write whole lines without reading them first; the unaligned head and
/// tail as plain stores.
extern "C" void kilnStreamStore(int64_t dst, int64_t src, int64_t bytes) {
  char *d = reinterpret_cast<char *>(dst);
  const char *s = reinterpret_cast<const char *>(src);
#if defined(__x86_64__)
  int64_t head =
      static_cast<int64_t>((16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15);
  head = std::min(head, bytes);
  std::memcpy(d, s, static_cast<size_t>(head));
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, d += 64, s += 64)
    for (int k = 0; k < 4; ++k)
      _mm_stream_si128(
          reinterpret_cast<__m128i *>(d) + k,
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(s) + k));
  for (; bytes >= 16; bytes -= 16, d += 16, s += 16)
    _mm_stream_si128(reinterpret_cast<__m128i *>(d),
                     _mm_loadu_si128(reinterpret_cast<const __m128i *>(s)));
#endif
  std::memcpy(d, s, static_cast<size_t>(bytes));
}

/// kStreamFenceFn(): non-temporal stores are weakly ordered; this makes a
/// phase's stores visible before it reports its end.
extern "C" void kilnStreamFence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

/// memref.copy of non-contiguous buffers lowers to a call of `memrefCopy`
/// (MLIR's C runner utilities). Kiln's own: a strided copy of `elemSize`-byte
/// elements between two unranked descriptors
/// ({rank, {allocated, aligned, offset, sizes[rank], strides[rank]}*}).
struct UnrankedDescriptor {
  int64_t rank;
  void *descriptor;
};

extern "C" void kilnMemrefCopy(int64_t elemSize, UnrankedDescriptor *src,
                               UnrankedDescriptor *dst) {
  struct View {
    char *base;
    const int64_t *sizes, *strides;
  };
  auto viewOf = [&](UnrankedDescriptor *u) {
    auto *words = static_cast<int64_t *>(u->descriptor);
    char *aligned = reinterpret_cast<char *>(words[1]);
    return View{aligned + words[2] * elemSize, words + 3, words + 3 + u->rank};
  };
  View s = viewOf(src), d = viewOf(dst);
  int64_t rank = src->rank;
  for (int64_t k = 0; k < rank; ++k)
    if (s.sizes[k] == 0)
      return;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t so = 0, dOff = 0;
  while (true) {
    std::memcpy(d.base + dOff * elemSize, s.base + so * elemSize,
                static_cast<size_t>(elemSize));
    int64_t k = rank - 1;
    for (; k >= 0; --k) {
      so += s.strides[k];
      dOff += d.strides[k];
      if (++index[k] < s.sizes[k])
        break;
      so -= s.strides[k] * s.sizes[k];
      dOff -= d.strides[k] * s.sizes[k];
      index[k] = 0;
    }
    if (k < 0)
      return;
  }
}

/// One LLJIT for the process; every executable gets its own JITDylib.
class Jit {
public:
  static Jit &get() {
    static Jit jit;
    return jit;
  }

  std::vector<PhaseFn> load(const std::vector<std::string> &objects,
                            const std::vector<std::string> &phases) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string name = "kiln" + std::to_string(next_++);
    auto dylib = jit_->createJITDylib(name);
    if (!dylib)
      throw Error("cpu: " + llvm::toString(dylib.takeError()));
    dylib->addGenerator(
        cantFail(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            jit_->getDataLayout().getGlobalPrefix())));
    llvm::orc::SymbolMap runtime;
    auto add = [&](const char *symbol, void *fn) {
      runtime[jit_->mangleAndIntern(symbol)] = {
          llvm::orc::ExecutorAddr::fromPtr(fn), llvm::JITSymbolFlags::Exported};
    };
    add("__truncsfbf2", reinterpret_cast<void *>(&kilnTruncSfBf2));
    add("__truncdfbf2", reinterpret_cast<void *>(&kilnTruncDfBf2));
    add("memrefCopy", reinterpret_cast<void *>(&kilnMemrefCopy));
    add(abi::kStreamStoreFn, reinterpret_cast<void *>(&kilnStreamStore));
    add(abi::kStreamFenceFn, reinterpret_cast<void *>(&kilnStreamFence));
    add(abi::kBadIndexFn, reinterpret_cast<void *>(&kilnBadIndex));
    if (llvm::Error e = dylib->define(llvm::orc::absoluteSymbols(runtime)))
      throw Error("cpu: " + llvm::toString(std::move(e)));
    for (const std::string &object : objects) {
      auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, name);
      if (llvm::Error e = jit_->addObjectFile(*dylib, std::move(buffer)))
        throw Error("cpu: cannot load compiled kernels: " +
                    llvm::toString(std::move(e)));
    }
    std::vector<PhaseFn> fns;
    for (const std::string &p : phases) {
      auto sym = jit_->lookup(*dylib, abi::kPhaseEntryPrefix + p);
      if (!sym)
        throw Error("cpu: compiled kernels lack " + p + ": " +
                    llvm::toString(sym.takeError()));
      fns.push_back(sym->toPtr<PhaseFn>());
    }
    return fns;
  }

private:
  Jit() {
    initializeNativeLLVM();
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
      throw Error("cpu: " + llvm::toString(builder.takeError()));
    auto jit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(*builder))
                   .create();
    if (!jit)
      throw Error("cpu: cannot start the JIT: " +
                  llvm::toString(jit.takeError()));
    jit_ = std::move(*jit);
  }

  std::mutex mu_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  int64_t next_ = 0;
};

} // namespace

std::vector<PhaseFn> cpu::loadObjects(const std::vector<std::string> &objects,
                                      const std::vector<std::string> &phases) {
  return Jit::get().load(objects, phases);
}
