//===- MemoryStats.h - Bytes a device holds ---------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_MEMORYSTATS_H
#define KILN_SUPPORT_MEMORYSTATS_H

#include <cstdint>

namespace kiln {

/// Bytes held by a device's tensors and buffers, now and at the peak.
struct MemoryStats {
  int64_t currentBytes = 0;
  int64_t peakBytes = 0;
  int64_t allocations = 0;
};

} // namespace kiln

#endif // KILN_SUPPORT_MEMORYSTATS_H
