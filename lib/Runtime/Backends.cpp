//===- Backends.cpp - Every backend, registered once ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A new backend is a folder of lib/Runtime (and one of lib/Target for its
// compiler) with a register function, and one line here.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/CpuBackend.h"
#include "kiln/Runtime/CudaBackend.h"
#include "kiln/Runtime/FlexBackend.h"

#include <mutex>

void kiln::detail::registerAllBackends() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerFlexBackend();
    registerCpuBackend();
    registerCudaBackend();
  });
}
