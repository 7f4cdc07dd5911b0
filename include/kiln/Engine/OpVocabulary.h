//===- OpVocabulary.h - The kiln ops as C++, read off ODS -------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One struct per kiln op, generated from the dialect's ODS at build time
// (utils/gen-op-vocabulary.py): its name, a function per attribute that
// makes the recorded attribute from a value of the attribute's kind, and
// the op's facts as constexpr bools. The API records ops through these, so
// a misspelt op or attribute, or a value of the wrong kind, does not
// compile:
//
//   Recorder r(ops::Sum::name, {&x});
//   r.make(dtype, shape, {ops::Sum::axes({1}), ops::Sum::keepdim()});
//   if constexpr (ops::ReduceMax::needsElements) ...
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_OPVOCABULARY_H
#define KILN_ENGINE_OPVOCABULARY_H

#include "kiln/Engine/Graph.h"

#include <cstdint>
#include <vector>

namespace kiln::detail::ops {

#include "kiln/Engine/OpVocabulary.inc"

} // namespace kiln::detail::ops

#endif // KILN_ENGINE_OPVOCABULARY_H
