//===- OpDesc.cpp - One op of a plan, as plain data -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/OpDesc.h"
#include "kiln/Support/Error.h"

using namespace kiln;
using namespace kiln::detail;

namespace {

const char *kindName(OpAttr::Kind k) {
  switch (k) {
  case OpAttr::Kind::Int:
    return "an integer";
  case OpAttr::Kind::Float:
    return "a float";
  case OpAttr::Kind::Ints:
    return "an integer array";
  case OpAttr::Kind::Text:
    return "a string";
  case OpAttr::Kind::Unit:
    return "a unit attribute";
  case OpAttr::Kind::Bytes:
    return "elements";
  }
  return "?";
}

template <typename V>
const V &at(const OpDesc &op, const std::vector<V> &v, unsigned i,
            const char *what) {
  if (i >= v.size())
    throw Error("runtime: " + op.name + " has no " + what + " " +
                std::to_string(i));
  return v[i];
}

} // namespace

const OpAttr *OpDesc::attr(std::string_view n) const {
  for (const OpAttr &a : attrs)
    if (a.name == n)
      return &a;
  return nullptr;
}

const OpAttr &OpDesc::require(std::string_view n, OpAttr::Kind kind) const {
  const OpAttr *a = attr(n);
  if (!a)
    throw Error("runtime: " + name + " has no attribute '" + std::string(n) +
                "'");
  if (a->kind != kind)
    throw Error("runtime: attribute '" + std::string(n) + "' of " + name +
                " is " + kindName(a->kind) + ", not " + kindName(kind));
  return *a;
}

DType detail::operandDType(const OpDesc &op, unsigned i) {
  return at(op, op.operands, i, "operand").dtype;
}
DType detail::resultDType(const OpDesc &op, unsigned i) {
  return at(op, op.results, i, "result").dtype;
}
const std::vector<int64_t> &detail::operandShape(const OpDesc &op, unsigned i) {
  return at(op, op.operands, i, "operand").shape;
}
const std::vector<int64_t> &detail::resultShape(const OpDesc &op, unsigned i) {
  return at(op, op.results, i, "result").shape;
}
const std::vector<int64_t> &detail::arrayAttr(const OpDesc &op,
                                              std::string_view name) {
  return op.require(name, OpAttr::Kind::Ints).ints;
}
double detail::floatAttr(const OpDesc &op, std::string_view name) {
  return op.require(name, OpAttr::Kind::Float).f;
}
int64_t detail::intAttr(const OpDesc &op, std::string_view name) {
  return op.require(name, OpAttr::Kind::Int).i;
}
const std::string &detail::textAttr(const OpDesc &op, std::string_view name) {
  return op.require(name, OpAttr::Kind::Text).text;
}
bool detail::unitAttr(const OpDesc &op, std::string_view name) {
  return op.attr(name) != nullptr;
}

ReductionKind detail::reductionKindOf(const OpDesc &op) {
  int64_t k = intAttr(op, kReductionKindAttr);
  if (k < 0 || k > static_cast<int64_t>(ReductionKind::All))
    throw Error("runtime: " + op.name + " has no reduction kind " +
                std::to_string(k));
  return static_cast<ReductionKind>(k);
}
