//===- KilnDialect.h - The kiln dialect -------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "kiln/Dialect/Kiln/IR/KilnAttrs.h"

#include "kiln/Dialect/Kiln/IR/KilnOpsDialect.h.inc"

#include <optional>

namespace mlir::kiln {

/// The names of the kernel contract's attributes (KilnDialect.td describes
/// each), for code that reads or writes them without a dialect instance.
inline constexpr llvm::StringLiteral kBackwardAttr =
    KilnDialect::BackwardAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kSavedAttr =
    KilnDialect::SavedAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kRecomputedAttr =
    KilnDialect::RecomputedAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kStrategyAttr =
    KilnDialect::StrategyAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kDonatedAttr =
    KilnDialect::DonatedAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kKernelKindAttr =
    KilnDialect::KernelAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kKernelAxesAttr =
    KilnDialect::ReducedAxesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kKernelOfAttr =
    KilnDialect::KernelOfAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPhaseAttr =
    KilnDialect::PhaseAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUnitsAttr =
    KilnDialect::UnitsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kGrainAttr =
    KilnDialect::GrainAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kWorkspaceAttr =
    KilnDialect::WorkspaceAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kInPlaceAttr =
    KilnDialect::InPlaceAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kSizesAttr =
    KilnDialect::SizesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUnitsPerAttr =
    KilnDialect::UnitsPerAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kWorkspacePerAttr =
    KilnDialect::WorkspacePerAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kSizeScaleAttr =
    KilnDialect::SizeScaleAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kVectorCodeAttr =
    KilnDialect::VectorCodeAttrHelper::getNameStr();

/// The kind of kernel `fn` is (its kiln.kernel), if it is one.
inline std::optional<KernelKind> kernelKindOf(Operation *fn) {
  if (auto kind = fn->getAttrOfType<KernelKindAttr>(kKernelKindAttr))
    return kind.getValue();
  return std::nullopt;
}

/// Marks `fn` as a kernel of `kind`.
inline void setKernelKind(Operation *fn, KernelKind kind) {
  fn->setAttr(kKernelKindAttr, KernelKindAttr::get(fn->getContext(), kind));
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
