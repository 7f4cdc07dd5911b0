//===- Autodiff.h - Marks left by --kiln-autodiff ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_AUTODIFF_H
#define KILN_TRANSFORMS_AUTODIFF_H

namespace mlir::kiln {

/// On every op that --kiln-autodiff created: part of the backward graph.
constexpr const char kBackwardAttr[] = "kiln.backward";
/// On forward ops that --kiln-checkpoint cloned into the backward graph to
/// recompute a value instead of keeping it.
constexpr const char kRecomputedAttr[] = "kiln.recomputed";
/// On forward ops whose results the backward graph reads as saved.
constexpr const char kSavedAttr[] = "kiln.saved";
/// On an argument of a graph function whose buffer the run gives up: it
/// dies at its last reader, and a result of its size may take it.
/// --kiln-checkpoint's model of the step's memory reads it.
constexpr const char kDonatedAttr[] = "kiln.donated";

} // namespace mlir::kiln

#endif // KILN_TRANSFORMS_AUTODIFF_H
