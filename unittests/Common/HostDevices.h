//===- HostDevices.h - The backends every host can run ---------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Tests that must hold on each backend a host has loop over these.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_COMMON_HOSTDEVICES_H
#define KILN_UNITTESTS_COMMON_HOSTDEVICES_H

#include "kiln/Kiln.h"

#include <vector>

namespace kiln::test {

/// Flex (the reference) and Cpu.
inline std::vector<DispatchDevice> hostDevices() {
  return {DispatchDevice::flex(), DispatchDevice::cpu()};
}

} // namespace kiln::test

#endif // KILN_UNITTESTS_COMMON_HOSTDEVICES_H
