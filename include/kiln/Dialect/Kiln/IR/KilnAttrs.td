//===- KilnAttrs.td - Attributes of the kiln dialect --------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTRS_TD
#define KILN_DIALECT_KILN_IR_KILNATTRS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

def Kiln_QuantValues : I32EnumAttr<"QuantValues", "quantized value range", [
    I32EnumAttrCase<"Q8", 0, "q8">,
    I32EnumAttrCase<"Q4", 1, "q4">
  ]> {
  let cppNamespace = "::mlir::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_GeluApprox : I32EnumAttr<"GeluApprox", "gelu approximation", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Tanh", 1, "tanh">
  ]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_InterpolateMode : I32EnumAttr<"InterpolateMode",
    "how kiln.interpolate reads between input positions", [
    I32EnumAttrCase<"Nearest", 0, "nearest">,
    I32EnumAttrCase<"Linear", 1, "linear">
  ]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_LossReduction : I32EnumAttr<"LossReduction",
    "how a loss combines its elements", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Sum", 1, "sum">,
    I32EnumAttrCase<"Mean", 2, "mean">
  ]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_AllReduceKind : I32EnumAttr<"AllReduceKind",
    "how an all-reduce combines the ranks' values", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">
  ]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_KernelKind : I32EnumAttr<"KernelKind",
    "what a kernel that --kiln-fuse outlined computes", [
    I32EnumAttrCase<"Elementwise", 0, "elementwise">,
    I32EnumAttrCase<"Reduction", 1, "reduction">,
    I32EnumAttrCase<"Matmul", 2, "matmul">,
    I32EnumAttrCase<"Generic", 3, "generic">
  ]> {
  let cppNamespace = "::mlir::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_KernelKindAttr : EnumAttr<Kiln_Dialect, Kiln_KernelKind,
                                   "kernel_kind"> {
  let summary = "The kind of a fused kernel (kiln.kernel)";
  let assemblyFormat = "`<` $value `>`";
}

def Kiln_QuantSchemeAttr : AttrDef<Kiln_Dialect, "QuantScheme",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "quant";
  let summary = "Symmetric quantization scheme carried as a tensor encoding";
  let description = [{
    Describes how a quantized tensor stores its values:

    - `q8` values live in `i8` tensors, `q4` values in `i4` tensors;
    - quantization is symmetric: `real = scale * q`;
    - one scale per tensor (`tensor`) or per block of N consecutive elements
      along the last dimension (`block = N`);
    - `scale` is the dtype of the scales.

    ```mlir
    tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
    tensor<16xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
    ```
  }];
  let parameters = (ins
    "::mlir::kiln::QuantValues":$values,
    "int64_t":$blockSize,
    "::mlir::Type":$scaleType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when one scale covers the whole tensor.
    bool isPerTensor() const { return getBlockSize() == 0; }
    /// Bits of one stored value: 8 for q8, 4 for q4.
    unsigned getValueBits() const {
      return getValues() == ::mlir::kiln::QuantValues::Q8 ? 8 : 4;
    }
    /// Largest representable magnitude (127 or 7).
    int64_t getMaxLevel() const {
      return getValues() == ::mlir::kiln::QuantValues::Q8 ? 127 : 7;
    }
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNATTRS_TD
