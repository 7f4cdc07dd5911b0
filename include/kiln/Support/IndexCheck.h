//===- IndexCheck.h - Out-of-range indices ----------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The ops that read or write at indices (gather, index_select, embedding,
// scatter_add, and cross_entropy's labels through gather) check every
// index against [0, size). Indices already known when the op is recorded
// are checked then; others by the kernel, one compare per index, which
// reports the first bad one (Flex and Cpu): the materialization then
// throws, and the kernel never reads or writes outside its tensors. The
// kernel names the op it came from by an IndexSite.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_INDEXCHECK_H
#define KILN_SUPPORT_INDEXCHECK_H

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

enum class IndexSite : int64_t { Gather, IndexSelect, Embedding, ScatterAdd };

/// "kiln.gather", "kiln.index_select", "kiln.embedding", "kiln.scatter_add".
const char *indexSiteOp(IndexSite site);

/// "index <index> is out of range for an axis of <size> elements".
std::string indexOutOfRangeReason(int64_t index, int64_t size);
/// "<op>: " and the reason.
std::string indexOutOfRange(std::string_view op, int64_t index, int64_t size);

} // namespace kiln

#endif // KILN_SUPPORT_INDEXCHECK_H
