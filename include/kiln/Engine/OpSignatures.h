//===- OpSignatures.h - The dtypes each op's operands accept ----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Read off ODS at build time (KilnOpSignatures.inc), so that the API checks
// an op's operand dtypes at the line that records it with the dialect's own
// type constraints, not with a second copy of them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_OPSIGNATURES_H
#define KILN_ENGINE_OPSIGNATURES_H

#include "kiln/Support/DType.h"

#include <string>
#include <string_view>

namespace kiln::detail {

/// Empty when `dtype` fits operand `index` of `op` ("kiln.exp"), else what
/// is wrong: "operand 0 must be a tensor of a float dtype (f64/f32/f16/bf16),
/// not i32". Operands ODS does not constrain to plain dtypes (quantized
/// ones) and unknown ops pass; a quantized dtype fails every plain
/// constraint.
std::string checkOperandDType(const char *op, size_t index, DType dtype);

/// Whether ODS gives `op` the fact `fact` (a Kiln_Fact trait such as
/// "Elementwise" or "NeedsElements").
bool opHasFact(const char *op, std::string_view fact);

} // namespace kiln::detail

#endif // KILN_ENGINE_OPSIGNATURES_H
