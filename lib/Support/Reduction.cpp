//===- Reduction.cpp - What each reduction computes -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/Reduction.h"

using namespace kiln;

const char *kiln::reductionName(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return "sum";
  case ReductionKind::Prod:
    return "prod";
  case ReductionKind::Max:
    return "max";
  case ReductionKind::Min:
    return "min";
  case ReductionKind::Any:
    return "any";
  case ReductionKind::All:
    return "all";
  }
  return "?";
}

DTypeKind kiln::reductionAccumulator(ReductionKind kind, DTypeKind storage) {
  bool isFloat = storage == DTypeKind::F64 || storage == DTypeKind::F32 ||
                 storage == DTypeKind::F16 || storage == DTypeKind::BF16;
  if (isFloat && kind == ReductionKind::Prod)
    return DTypeKind::F64;
  if (storage == DTypeKind::F16 || storage == DTypeKind::BF16)
    return DTypeKind::F32;
  return storage;
}
