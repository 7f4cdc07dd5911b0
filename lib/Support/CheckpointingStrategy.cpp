//===- CheckpointingStrategy.cpp - What autodiff keeps --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/CheckpointingStrategy.h"

using namespace kiln;

std::string CheckpointingStrategy::str() const {
  switch (kind_) {
  case Kind::Disabled:
    return "disabled";
  case Kind::Balanced:
    return "balanced";
  case Kind::Budget:
    return "budget=" + std::to_string(bytes_);
  }
  return "?";
}
