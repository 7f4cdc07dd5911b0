//===- KilnToLinalg.h - Lowering kiln to linalg on tensors ------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The pieces of --convert-kiln-to-linalg, for pipelines that run the
// conversion themselves (the CPU and GPU backends).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_H

#include "kiln/Support/KernelAbi.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kiln {

/// Kiln tensor types to the types linalg works on: `ui8` elements become
/// `i8`; a quantized tensor becomes (values: tensor<Kxi8>, scales:
/// tensor<Sxscale>, one index per dynamic dim). Everything else is kept.
class KilnToLinalgTypeConverter : public TypeConverter {
public:
  KilnToLinalgTypeConverter();
};

/// The patterns that lower every primitive kiln op, plus the function,
/// call and return signature conversions. Composite ops must have been
/// decomposed (populateDecomposePatterns) before. With `indexChecks`, the
/// indexing ops call kBadIndexFn on an index out of range (see
/// kiln/Support/IndexCheck.h); the module must then declare it
/// (declareBadIndexFn).
void populateKilnToLinalgConversionPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            bool indexChecks = false);

/// kBadIndexFn(site: i64, index: i64, size: i64), provided by the Cpu
/// runtime: records the first out-of-range index of a kernel call (the
/// kernel goes on with the index clamped) so that the materialization
/// throws a kiln::Error naming the op (kiln::IndexSite) and the index.
/// (kiln/Support/KernelAbi.h).
inline constexpr llvm::StringLiteral kBadIndexFn = ::kiln::abi::kBadIndexFn;

/// Declares kBadIndexFn in `module` unless it is there.
void declareBadIndexFn(ModuleOp module);

/// Makes the kiln dialect illegal and func/call/return legal once their
/// types are converted.
void configureKilnToLinalgTarget(ConversionTarget &target,
                                 const TypeConverter &converter);

} // namespace mlir::kiln

#endif // KILN_CONVERSION_KILNTOLINALG_H
