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

static bool isFloatKind(DTypeKind k) {
  return k == DTypeKind::F64 || k == DTypeKind::F32 || k == DTypeKind::F16 ||
         k == DTypeKind::BF16;
}

DTypeKind kiln::reductionAccumulator(ReductionKind kind, DTypeKind storage) {
  if (isFloatKind(storage) &&
      (kind == ReductionKind::Sum || kind == ReductionKind::Prod))
    return DTypeKind::F64;
  if (storage == DTypeKind::F16 || storage == DTypeKind::BF16)
    return DTypeKind::F32;
  return storage;
}

DTypeKind kiln::reductionBlockAccumulator(ReductionKind kind,
                                          DTypeKind storage) {
  if (kind == ReductionKind::Sum && isFloatKind(storage) &&
      storage != DTypeKind::F64)
    return DTypeKind::F32;
  return reductionAccumulator(kind, storage);
}
