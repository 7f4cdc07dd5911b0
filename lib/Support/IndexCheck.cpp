//===- IndexCheck.cpp - Out-of-range indices ------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/IndexCheck.h"

using namespace kiln;

const char *kiln::indexSiteOp(IndexSite site) {
  switch (site) {
  case IndexSite::Gather:
    return "kiln.gather";
  case IndexSite::IndexSelect:
    return "kiln.index_select";
  case IndexSite::Embedding:
    return "kiln.embedding";
  case IndexSite::ScatterAdd:
    return "kiln.scatter_add";
  }
  return "an indexing op";
}

std::string kiln::indexOutOfRangeReason(int64_t index, int64_t size) {
  return "index " + std::to_string(index) + " is out of range for an axis of " +
         std::to_string(size) + " elements";
}

std::string kiln::indexOutOfRange(std::string_view op, int64_t index,
                                  int64_t size) {
  return std::string(op) + ": " + indexOutOfRangeReason(index, size);
}
