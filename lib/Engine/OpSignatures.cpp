//===- OpSignatures.cpp - The dtypes each op's operands accept ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/OpSignatures.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

using namespace kiln;
using namespace kiln::detail;

namespace {

struct OperandRule {
  uint16_t dtypes; ///< bit k: DTypeKind k is accepted
  const char *what;
  bool variadic; ///< the rule of every operand from here on
};

using Table = std::unordered_map<std::string_view, std::vector<OperandRule>>;

const Table &table() {
  static const Table t = {
#define KILN_OPERAND(mask, what, variadic)                                     \
  OperandRule { mask, what, variadic }
#define KILN_OPERAND_ANY                                                       \
  OperandRule { 0, nullptr, false }
#define KILN_OP_SIGNATURE(name, ...) {name, {__VA_ARGS__}},
#define KILN_OP_FACT(name, fact)
#include "kiln/Dialect/Kiln/IR/KilnOpSignatures.inc"
#undef KILN_OP_FACT
#undef KILN_OP_SIGNATURE
#undef KILN_OPERAND_ANY
#undef KILN_OPERAND
  };
  return t;
}

using Facts = std::unordered_multimap<std::string_view, std::string_view>;

const Facts &facts() {
  static const Facts f = {
#define KILN_OP_SIGNATURE(name, ...)
#define KILN_OP_FACT(name, fact) {name, fact},
#include "kiln/Dialect/Kiln/IR/KilnOpSignatures.inc"
#undef KILN_OP_FACT
#undef KILN_OP_SIGNATURE
  };
  return f;
}

} // namespace

std::string detail::checkOperandDType(const char *op, size_t index,
                                      DType dtype) {
  auto it = table().find(op);
  if (it == table().end() || it->second.empty())
    return {};
  const std::vector<OperandRule> &rules = it->second;
  if (index >= rules.size() && !rules.back().variadic)
    return {};
  const OperandRule &rule = rules[std::min(index, rules.size() - 1)];
  if (!rule.what)
    return {};
  if (dtype.isQuantized())
    return "operand " + std::to_string(index) +
           " is quantized; dequantize it first";
  if (rule.dtypes & (1u << static_cast<unsigned>(dtype.kind())))
    return {};
  return "operand " + std::to_string(index) + " must be a tensor of " +
         rule.what + ", not " + dtype.str();
}

bool detail::opHasFact(const char *op, std::string_view fact) {
  auto [lo, hi] = facts().equal_range(op);
  for (auto it = lo; it != hi; ++it)
    if (it->second == fact)
      return true;
  return false;
}
