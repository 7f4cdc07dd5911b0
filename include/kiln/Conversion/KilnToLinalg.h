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
/// decomposed (populateDecomposePatterns) before.
void populateKilnToLinalgConversionPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns);

/// Makes the kiln dialect illegal and func/call/return legal once their
/// types are converted.
void configureKilnToLinalgTarget(ConversionTarget &target,
                                 const TypeConverter &converter);

} // namespace mlir::kiln

#endif // KILN_CONVERSION_KILNTOLINALG_H
