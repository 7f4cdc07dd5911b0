//===- Targets.cpp - Every target, registered once ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A new backend is a folder of lib/Target with a register function, and
// one line here.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Target.h"

#include <mutex>

namespace kiln::detail {
void registerFlexTarget();
void registerCpuTarget();
void registerCudaTarget();
} // namespace kiln::detail

void kiln::detail::registerAllTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerFlexTarget();
    registerCpuTarget();
    registerCudaTarget();
  });
}
