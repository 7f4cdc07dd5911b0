//===- OpDesc.h - One op of a plan, as plain data ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What a host step needs to know of the kiln op it runs, read off the IR by
// a target (kiln/Target/Target.h) when the graph is compiled: the op's name,
// its operands' and results' dtypes and shapes, and its attributes. Enum
// attributes are kept by their case's name ("tanh"), a constant's elements
// as the bytes of its dtype. The runtime builds steps from this alone, so
// running a plan, or loading one from disk, needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_OPDESC_H
#define KILN_RUNTIME_OPDESC_H

#include "kiln/Support/DType.h"
#include "kiln/Support/Reduction.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::detail {

/// The dtype and shape of a value (kiln::rules::kDynamic for a dynamic dim).
struct TensorDesc {
  DType dtype;
  std::vector<int64_t> shape;
};

/// One attribute of an op.
struct OpAttr {
  enum class Kind : uint8_t { Int, Float, Ints, Text, Unit, Bytes };
  std::string name;
  Kind kind = Kind::Unit;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> ints;
  /// Text: a string or an enum case's name; Bytes: raw data.
  std::string text;
};

struct OpDesc {
  std::string name; ///< "kiln.add"
  std::vector<TensorDesc> operands, results;
  std::vector<OpAttr> attrs;

  /// The attribute `name`, or null.
  const OpAttr *attr(std::string_view name) const;
  /// The attribute `name` of kind `kind`; throws kiln::Error naming the op
  /// when it is missing or of another kind.
  const OpAttr &require(std::string_view name, OpAttr::Kind kind) const;
};

/// The attribute a target adds to the description of an op with a
/// combining reduction (the dialect's ReductionOpInterface): its
/// kiln::ReductionKind, as an integer.
inline constexpr const char kReductionKindAttr[] = "reduction_kind";
/// The unit attribute a target adds to a collective (the dialect's
/// Kiln_Collective ops): a step that may take a dying operand's buffer.
inline constexpr const char kCollectiveAttr[] = "collective";

// The facts a kernel builder reads, with the names the builders use.
DType operandDType(const OpDesc &op, unsigned i);
DType resultDType(const OpDesc &op, unsigned i = 0);
const std::vector<int64_t> &operandShape(const OpDesc &op, unsigned i);
const std::vector<int64_t> &resultShape(const OpDesc &op, unsigned i = 0);
/// Integer array / float / integer / text attribute by name (throws if
/// missing); a unit attribute is present or not.
const std::vector<int64_t> &arrayAttr(const OpDesc &op, std::string_view name);
double floatAttr(const OpDesc &op, std::string_view name);
int64_t intAttr(const OpDesc &op, std::string_view name);
const std::string &textAttr(const OpDesc &op, std::string_view name);
bool unitAttr(const OpDesc &op, std::string_view name);
/// The kind of a combining reduction (kReductionKindAttr).
ReductionKind reductionKindOf(const OpDesc &op);

} // namespace kiln::detail

#endif // KILN_RUNTIME_OPDESC_H
