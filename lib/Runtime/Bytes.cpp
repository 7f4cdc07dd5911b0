//===- Bytes.cpp - Plain data to bytes and back ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Bytes.h"

#include <cstring>

using namespace kiln;
using namespace kiln::detail;

void ByteWriter::f64(double v) {
  uint64_t u;
  std::memcpy(&u, &v, 8);
  u64(u);
}

bool ByteReader::f64(double &v) {
  uint64_t u;
  if (!u64(u))
    return false;
  std::memcpy(&v, &u, 8);
  return true;
}

void ByteWriter::dtype(DType d) {
  u64(static_cast<uint64_t>(d.kind()));
  if (d.isQuantized()) {
    const QuantScheme &q = d.scheme();
    u64(static_cast<uint64_t>(q.values));
    i64(q.blockSize);
    u64(static_cast<uint64_t>(q.scale));
  }
}

bool ByteReader::dtype(DType &d) {
  uint64_t kind;
  if (!u64(kind))
    return false;
  if (kind > static_cast<uint64_t>(DTypeKind::QFloat))
    return fail();
  if (kind != static_cast<uint64_t>(DTypeKind::QFloat)) {
    d = DType(static_cast<DTypeKind>(kind));
    return true;
  }
  uint64_t values, scale;
  int64_t block;
  if (!u64(values) || !i64(block) || !u64(scale))
    return false;
  if (values > 1 || block < 0 || scale > static_cast<uint64_t>(DTypeKind::BF16))
    return fail();
  d = DType::QFloat({static_cast<QuantScheme::Values>(values), block,
                     static_cast<DTypeKind>(scale)});
  return true;
}
