//===- Nesting.h - How deep a textual IR file nests -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// MLIR's parser recurses once per nested region, type or attribute, so a
// file nested deep enough overflows the stack. The tools measure the nesting
// first and refuse such a file with a diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_NESTING_H
#define KILN_SUPPORT_NESTING_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace kiln {

/// The most nesting the tools accept: far more than any real graph has.
constexpr int kMaxNesting = 1024;

/// Where a position in text is, counted from 1.
struct TextPosition {
  size_t line = 1, column = 1;
};

/// The first position at which `text` nests deeper than `limit` levels of
/// (), [], {} and <> (outside strings and comments), or nothing.
std::optional<TextPosition> findDeepNesting(std::string_view text,
                                            int limit = kMaxNesting);

} // namespace kiln

#endif // KILN_SUPPORT_NESTING_H
