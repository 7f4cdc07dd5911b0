//===- KilnCreationOps.td - Tensor creation ops -------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNCREATIONOPS_TD
#define KILN_DIALECT_KILN_IR_KILNCREATIONOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

def Kiln_ConstantOp : Kiln_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor constant";
  let description = [{
    ```mlir
    %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Kiln_FullOp : Kiln_Op<"full", [Pure]> {
  let summary = "tensor filled with one value";
  let description = [{
    Every element is `value`, converted to the result dtype. Dynamic dims
    take their sizes from the index operands, in order.

    ```mlir
    %f = kiln.full 5.000000e-01 : tensor<3xf32>
    %g = kiln.full 0.000000e+00 [%n] : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins F64Attr:$value, Variadic<Index>:$dynamicDims);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$value (`[` $dynamicDims^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ArangeOp : Kiln_Op<"arange", [Pure]> {
  let summary = "1-D range start, start + step, ...";
  let description = [{
    `result[i] = start + i * step`, computed in f64 and converted.

    ```mlir
    %r = kiln.arange 0.000000e+00, 1.000000e+00 : tensor<5xi64>
    ```
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$step);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = "$start `,` $step attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kiln_EyeOp : Kiln_Op<"eye", [Pure]> {
  let summary = "identity matrix (ones on the main diagonal)";
  let description = [{
    ```mlir
    %i = kiln.eye : tensor<3x4xf32>
    ```
  }];
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

class Kiln_RandomOp<string mnemonic, string what>
    : Kiln_Op<mnemonic, [Pure, AttrSizedOperandSegments]> {
  let summary = what # " random numbers from a counter-based generator";
  let results = (outs Kiln_FloatTensor:$result);
  let hasVerifier = 1;
}

def Kiln_RandOp : Kiln_RandomOp<"rand", "uniform"> {
  let description = [{
    Element `i` (in row-major order) is a function of `(seed, i)` alone, so
    every backend gives the same numbers. Values are in `[low, high)`.
    The optional `offset`, a rank-0 i64 tensor known at run time, is added
    to `seed`: a training loop draws new numbers each step (dropout's
    masks) from one compiled graph.

    ```mlir
    %u = kiln.rand seed = 7, 0.000000e+00, 1.000000e+00 : tensor<3x4xf32>
    %v = kiln.rand seed = 7 offset %step : tensor<i64>, 0.000000e+00, 1.000000e+00 : tensor<3x4xf32>
    ```
  }];
  let arguments = (ins I64Attr:$seed, F64Attr:$low, F64Attr:$high,
                       Optional<Kiln_I64Scalar>:$offset,
                       Variadic<Index>:$dynamicDims);
  let assemblyFormat = "`seed` `=` $seed (`offset` $offset^ `:` type($offset))? "
                       "`,` $low `,` $high "
                       "(`[` $dynamicDims^ `]`)? attr-dict `:` type($result)";
}

def Kiln_RandnOp : Kiln_RandomOp<"randn", "normal"> {
  let description = [{
    Box-Muller over two counter-based uniforms per element; `offset` as
    for `kiln.rand`.

    ```mlir
    %n = kiln.randn seed = 7, 0.000000e+00, 1.000000e+00 : tensor<3x4xf32>
    ```
  }];
  let arguments = (ins I64Attr:$seed, F64Attr:$mean, F64Attr:$std,
                       Optional<Kiln_I64Scalar>:$offset,
                       Variadic<Index>:$dynamicDims);
  let assemblyFormat = "`seed` `=` $seed (`offset` $offset^ `:` type($offset))? "
                       "`,` $mean `,` $std "
                       "(`[` $dynamicDims^ `]`)? attr-dict `:` type($result)";
}

#endif // KILN_DIALECT_KILN_IR_KILNCREATIONOPS_TD
