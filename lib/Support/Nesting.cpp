//===- Nesting.cpp - How deep a textual IR file nests ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/Nesting.h"

using namespace kiln;

std::optional<TextPosition> kiln::findDeepNesting(std::string_view text,
                                                  int limit) {
  TextPosition pos;
  int depth = 0;
  bool inString = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++pos.line;
      pos.column = 1;
      inComment = false;
      continue;
    }
    ++pos.column;
    if (inComment)
      continue;
    if (inString) {
      if (c == '\\')
        ++i, ++pos.column; // the escaped character
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '/':
      if (i + 1 < text.size() && text[i + 1] == '/')
        inComment = true;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > limit) {
        --pos.column; // at the bracket itself
        return pos;
      }
      break;
    case '>':
      // `->` is an arrow; `>=` a comparison in an affine set.
      if ((i > 0 && text[i - 1] == '-') ||
          (i + 1 < text.size() && text[i + 1] == '='))
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}
