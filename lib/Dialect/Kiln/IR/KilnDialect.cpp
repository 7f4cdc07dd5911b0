//===- KilnDialect.cpp - The kiln dialect and its attributes --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "KilnInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnOpsDialect.cpp.inc"
#include "kiln/Dialect/Kiln/IR/KilnOpsEnums.cpp.inc"
#include "kiln/Dialect/Kiln/IR/KilnOpsInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOpsAttrs.cpp.inc"

void KilnDialect::initialize() {
  registerKilnDialectOperations(this);
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnOpsAttrs.cpp.inc"
      >();
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = llvm::dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

// The kernel contract's attributes are read by passes and generators that
// trust their kinds: a kernel's kind is checked where the IR is parsed or
// built.
LogicalResult KilnDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != kKernelKindAttr)
    return success();
  if (!llvm::isa<KernelKindAttr>(attr.getValue()))
    return op->emitOpError()
           << "'" << kKernelKindAttr
           << "' must be a #kiln.kernel_kind (elementwise, reduction, matmul "
              "or generic), got "
           << attr.getValue();
  if (!llvm::isa<FunctionOpInterface>(op))
    return op->emitOpError() << "'" << kKernelKindAttr
                             << "' marks a kernel function, not this op";
  return success();
}

//===----------------------------------------------------------------------===//
// #kiln.quant
//===----------------------------------------------------------------------===//

QuantSchemeAttr mlir::kiln::getQuantScheme(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return nullptr;
  return llvm::dyn_cast_or_null<QuantSchemeAttr>(tensor.getEncoding());
}

// #kiln.quant<q8, symmetric, block = 32, scale = f32>
// #kiln.quant<q4, symmetric, tensor, scale = f16>
Attribute QuantSchemeAttr::parse(AsmParser &parser, Type) {
  StringRef valuesWord, modeWord;
  if (parser.parseLess() || parser.parseKeyword(&valuesWord))
    return {};
  std::optional<QuantValues> values = symbolizeQuantValues(valuesWord);
  if (!values) {
    parser.emitError(parser.getCurrentLocation(),
                     "expected q8 or q4 quantized values, got '")
        << valuesWord << "'";
    return {};
  }
  if (parser.parseComma() || parser.parseKeyword(&modeWord))
    return {};
  if (modeWord != "symmetric") {
    parser.emitError(parser.getCurrentLocation(),
                     "only symmetric quantization is supported, got '")
        << modeWord << "'";
    return {};
  }
  int64_t block = 0;
  if (parser.parseComma())
    return {};
  if (succeeded(parser.parseOptionalKeyword("tensor"))) {
    block = 0;
  } else if (succeeded(parser.parseOptionalKeyword("block"))) {
    if (parser.parseEqual() || parser.parseInteger(block))
      return {};
    if (block <= 0) {
      parser.emitError(parser.getCurrentLocation(),
                       "block size must be positive, got ")
          << block;
      return {};
    }
  } else {
    parser.emitError(parser.getCurrentLocation(),
                     "expected 'tensor' or 'block = N'");
    return {};
  }
  Type scale;
  if (parser.parseComma() || parser.parseKeyword("scale") ||
      parser.parseEqual() || parser.parseType(scale) || parser.parseGreater())
    return {};
  return parser.getChecked<QuantSchemeAttr>(parser.getContext(), *values,
                                            block, scale);
}

void QuantSchemeAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyQuantValues(getValues()) << ", symmetric, ";
  if (isPerTensor())
    printer << "tensor";
  else
    printer << "block = " << getBlockSize();
  printer << ", scale = " << getScaleType() << ">";
}

LogicalResult
QuantSchemeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        QuantValues, int64_t blockSize, Type scaleType) {
  if (blockSize < 0)
    return emitError() << "block size must be positive, got " << blockSize;
  if (!llvm::isa<Float64Type, Float32Type, Float16Type, BFloat16Type>(
          scaleType))
    return emitError() << "scale dtype must be f64, f32, f16 or bf16, got "
                       << scaleType;
  return success();
}

LogicalResult QuantSchemeAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  // The tensor type parser verifies the encoding before it checks that an
  // element type was parsed (`tensor<, #kiln.quant<...>>`); it has already
  // reported that error.
  if (!elementType)
    return failure();
  unsigned bits = getValueBits();
  if (!elementType.isSignlessInteger(bits))
    return emitError() << stringifyQuantValues(getValues())
                       << " values are stored as i" << bits << ", not "
                       << elementType;
  if (!isPerTensor()) {
    if (shape.empty())
      return emitError() << "per-block quantization needs rank >= 1";
    int64_t last = shape.back();
    if (!ShapedType::isDynamic(last) && last % getBlockSize() != 0)
      return emitError() << "last dim " << last
                         << " is not a multiple of the block size "
                         << getBlockSize();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Inference helpers shared by many ops
//===----------------------------------------------------------------------===//

namespace {
std::string describe(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto r = llvm::dyn_cast<RankedTensorType>(t)) {
    os << r.getElementType() << rules::formatDims(r.getShape());
  } else {
    os << t;
  }
  return s;
}
} // namespace

LogicalResult mlir::kiln::commonElementType(StringRef opName,
                                            std::optional<Location> loc,
                                            ValueRange values,
                                            Type &elementType) {
  elementType = nullptr;
  for (Value v : values) {
    auto t = rankedType(v);
    if (!t)
      return failure();
    if (!elementType) {
      elementType = t.getElementType();
      continue;
    }
    if (t.getElementType() != elementType) {
      std::string all;
      for (Value w : values)
        all += (all.empty() ? "" : ", ") + describe(w.getType());
      return inferError(opName, loc, "dtype mismatch between operands (" +
                                         all + ")");
    }
  }
  return success(static_cast<bool>(elementType));
}

LogicalResult mlir::kiln::inferBroadcastImpl(StringRef opName,
                                             std::optional<Location> loc,
                                             ValueRange operands,
                                             Type resultElement,
                                             SmallVectorImpl<Type> &inferred) {
  rules::Dims shape;
  bool first = true;
  for (Value v : operands) {
    auto t = rankedType(v);
    if (!t)
      return failure();
    if (first) {
      shape.assign(t.getShape().begin(), t.getShape().end());
      first = false;
      continue;
    }
    rules::Dims next;
    if (std::string e = rules::broadcast(shape, t.getShape(), next);
        !e.empty())
      return inferError(opName, loc, e);
    shape = next;
  }
  inferred.push_back(tensorOf(shape, resultElement));
  return success();
}

LogicalResult mlir::kiln::inferReduceImpl(StringRef opName,
                                          std::optional<Location> loc,
                                          Value input, ArrayRef<int64_t> axes,
                                          bool keepdim, Type element,
                                          SmallVectorImpl<Type> &inferred) {
  auto t = rankedType(input);
  if (!t)
    return failure();
  rules::Dims out;
  if (std::string e = rules::reduce(t.getShape(), axes, keepdim, out);
      !e.empty())
    return inferError(opName, loc, e);
  inferred.push_back(tensorOf(out, element));
  return success();
}
