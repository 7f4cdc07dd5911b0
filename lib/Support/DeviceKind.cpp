//===- DeviceKind.cpp - The backends a device can be ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/DeviceKind.h"

std::string kiln::deviceName(DeviceKind kind, int index) {
  switch (kind) {
  case DeviceKind::Flex:
    return "flex";
  case DeviceKind::Cpu:
    return "cpu";
  case DeviceKind::Cuda:
    return "cuda:" + std::to_string(index);
  }
  return "?";
}
