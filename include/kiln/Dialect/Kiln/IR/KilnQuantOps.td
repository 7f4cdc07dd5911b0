//===- KilnQuantOps.td - Quantization ops -------------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNQUANTOPS_TD
#define KILN_DIALECT_KILN_IR_KILNQUANTOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

def Kiln_QuantizeOp : Kiln_Op<"quantize", [Pure]> {
  let summary = "float tensor to a quantized tensor of the result's scheme";
  let description = [{
    Per block (or per tensor), `scale = max|x| / maxLevel` and
    `q = clamp(round(x / scale), -maxLevel, maxLevel)`.

    ```mlir
    %q = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input);
  let results = (outs Kiln_QuantTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Kiln_DequantizeOp : Kiln_Op<"dequantize", [Pure, Kiln_Elementwise,
    Kiln_OwnKernel]> {
  let summary = "quantized tensor to floats: scale * q";
  let description = [{
    A dequantize that feeds a matmul is fused into it by `--kiln-fuse`.

    ```mlir
    %w = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Kiln_QuantTensor:$input);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNQUANTOPS_TD
