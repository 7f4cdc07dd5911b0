//===- KilnAttrs.h - Attributes of the kiln dialect -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTRS_H
#define KILN_DIALECT_KILN_IR_KILNATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TensorEncoding.h"

#include "kiln/Dialect/Kiln/IR/KilnOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOpsAttrs.h.inc"

namespace mlir::kiln {

/// The scheme of a quantized tensor type, or null.
QuantSchemeAttr getQuantScheme(Type type);

/// A ranked tensor whose encoding is a #kiln.quant scheme.
inline bool isQuantizedTensorType(Type type) {
  return static_cast<bool>(getQuantScheme(type));
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNATTRS_H
