//===- DeviceKind.h - The backends a device can be --------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_DEVICEKIND_H
#define KILN_SUPPORT_DEVICEKIND_H

#include <cstdint>
#include <string>

namespace kiln {

/// Flex: the eager reference interpreter; Cpu: the JIT; Cuda: NVIDIA GPUs.
enum class DeviceKind : uint8_t { Flex, Cpu, Cuda };

/// "flex", "cpu", "cuda:<index>".
std::string deviceName(DeviceKind kind, int index);

} // namespace kiln

#endif // KILN_SUPPORT_DEVICEKIND_H
