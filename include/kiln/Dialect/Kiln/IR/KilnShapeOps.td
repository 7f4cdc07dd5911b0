//===- KilnShapeOps.td - Layout and shape ops ---------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNSHAPEOPS_TD
#define KILN_DIALECT_KILN_IR_KILNSHAPEOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

class Kiln_ShapeOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor, Kiln_Diff],
                                    traits)>;

def Kiln_ReshapeOp : Kiln_ShapeOp<"reshape", [Kiln_View]> {
  let summary = "same elements in row-major order, new shape";
  let description = [{
    `shape` may hold one `-1`, the dim that makes the element counts agree.

    ```mlir
    %r = kiln.reshape %x [3, -1] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$input $shape attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferReshape">.inferBody;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_PermuteOp : Kiln_ShapeOp<"permute", [Kiln_View]> {
  let summary = "reorder dims: result dim i is input dim dims[i]";
  let description = [{
    ```mlir
    %t = kiln.permute %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$input $dims attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferPermute">.inferBody;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_ExpandOp : Kiln_ShapeOp<"expand", [Kiln_Elementwise]> {
  let summary = "numpy broadcast to a larger shape";
  let description = [{
    Missing leading dims are added; size-1 dims are repeated. `-1` keeps a
    dim as it is.

    ```mlir
    %e = kiln.expand %b [2, 3] : tensor<3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$input $shape attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferExpand">.inferBody;
  let hasFolder = 1;
}

def Kiln_SliceOp : Kiln_ShapeOp<"slice", [Kiln_View]> {
  let summary = "strided slice [start, end) with a positive step per dim";
  let description = [{
    `end` is clamped to the dim size.

    ```mlir
    %s = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xf32> -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input $starts $ends $steps attr-dict `:` "
                       "type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferSlice">.inferBody;
  let hasFolder = 1;
}

def Kiln_SliceAssignOp : Kiln_ShapeOp<"slice_assign"> {
  let summary = "dest with a strided slice replaced by value";
  let description = [{
    ```mlir
    %r = kiln.slice_assign %value into %dest [0] [2] [1] : (tensor<2xf32>, tensor<5xf32>) -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$value, Kiln_Tensor:$dest,
                       DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$ends,
                       DenseI64ArrayAttr:$steps);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$value `into` $dest $starts $ends $steps attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferSliceAssign">.inferBody;
}

def Kiln_ConcatOp : Kiln_ShapeOp<"concat"> {
  let summary = "join tensors along an axis";
  let description = [{
    ```mlir
    %c = kiln.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferConcat">.inferBody;
  let hasFolder = 1;
}

def Kiln_SplitOp : Kiln_ShapeOp<"split"> {
  let summary = "cut a tensor into pieces of the given sizes along an axis";
  let description = [{
    ```mlir
    %a, %b = kiln.split %x [2, 1] axis = 0 : tensor<3x4xf32> -> tensor<2x4xf32>, tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$sizes,
                       I64Attr:$axis);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let assemblyFormat = "$input $sizes `axis` `=` $axis attr-dict `:` "
                       "type($input) `->` type($results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferSplit">.inferBody;
}

def Kiln_SqueezeOp : Kiln_ShapeOp<"squeeze", [Kiln_View]> {
  let summary = "drop size-1 dims";
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$input $axes attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferSqueeze">.inferBody;
}

def Kiln_UnsqueezeOp : Kiln_ShapeOp<"unsqueeze", [Kiln_View]> {
  let summary = "insert size-1 dims at the given result positions";
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$input $axes attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferUnsqueeze">.inferBody;
}

def Kiln_FlipOp : Kiln_ShapeOp<"flip", [Kiln_View]> {
  let summary = "reverse the order of elements along axes";
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input $axes attr-dict `:` type($input)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferFlip">.inferBody;
}

def Kiln_RepeatOp : Kiln_ShapeOp<"repeat"> {
  let summary = "tile the whole tensor repeats[i] times along dim i";
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$input $repeats attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferRepeat">.inferBody;
}

def Kiln_PadOp : Kiln_ShapeOp<"pad"> {
  let summary = "constant padding before (low) and after (high) each dim";
  let description = [{
    ```mlir
    %p = kiln.pad %x low [0, 1] high [0, 2] value 0.000000e+00 : tensor<2x3xf32> -> tensor<2x6xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `low` $low `high` $high `value` $value "
                       "attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferPad">.inferBody;
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNSHAPEOPS_TD
