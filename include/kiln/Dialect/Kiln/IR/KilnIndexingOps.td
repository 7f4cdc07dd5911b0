//===- KilnIndexingOps.td - Gather, scatter and friends -----*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNINDEXINGOPS_TD
#define KILN_DIALECT_KILN_IR_KILNINDEXINGOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

def Kiln_GatherOp : Kiln_Op<"gather", [Pure, Kiln_ChecksIndices,
    Kiln_ComputeBound, InferTypeOpAdaptor, Kiln_Diff]> {
  let summary = "result[..i..] = input[..indices[..i..]..] along axis";
  let description = [{
    `indices` has the input's rank; the result has the shape of `indices`.
    An index outside [0, size) is an error (Kiln_ChecksIndices); the Cuda
    backend clamps it into range.

    ```mlir
    %g = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `[` $indices `]` `axis` `=` $axis attr-dict "
                       "`:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferGather">.inferBody;
}

def Kiln_ScatterAddOp : Kiln_Op<"scatter_add", [Pure, Kiln_ChecksIndices,
    Kiln_ComputeBound, InferTypeOpAdaptor, Kiln_Diff]> {
  let summary = "input with updates added at indices along axis";
  let description = [{
    `result = input; result[..indices[..i..]..] += updates[..i..]`.
    `indices` and `updates` have the same shape and the input's rank.

    ```mlir
    %s = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$updates, Kiln_NumericTensor:$input,
                       Kiln_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = "$updates `into` $input `[` $indices `]` `axis` `=` "
                       "$axis attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferScatterAdd">.inferBody;
}

def Kiln_IndexSelectOp : Kiln_Op<"index_select", [Pure, Kiln_ChecksIndices,
    Kiln_ComputeBound, InferTypeOpAdaptor, Kiln_Diff]> {
  let summary = "pick whole slices along axis by a 1-D index list";
  let description = [{
    ```mlir
    %r = kiln.index_select %x[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `[` $indices `]` `axis` `=` $axis attr-dict "
                       "`:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferIndexSelect">.inferBody;
}

def Kiln_MaskFillOp : Kiln_Op<"mask_fill", [Pure, Kiln_Elementwise, Kiln_OwnKernel,
    Kiln_Composite, InferTypeOpAdaptor]> {
  let summary = "value where mask is true, input elsewhere (composite)";
  let description = [{
    The mask broadcasts to the input's shape.

    ```mlir
    %r = kiln.mask_fill %x, %m value -1.000000e+09 : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_BoolTensor:$mask,
                       F64Attr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `,` $mask `value` $value attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferMaskFill">.inferBody;
  let hasVerifier = 1;
}

def Kiln_OneHotOp : Kiln_Op<"one_hot", [Pure]> {
  let summary = "one-hot encoding along a new last dim";
  let description = [{
    The last dim of the result is the number of classes. Indices out of
    range give an all-zero row.

    ```mlir
    %o = kiln.one_hot %i : tensor<4xi64> -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Kiln_IndexTensor:$indices);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat =
      "$indices attr-dict `:` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

def Kiln_EmbeddingOp : Kiln_Op<"embedding", [Pure, Kiln_ChecksIndices,
    Kiln_Composite, InferTypeOpAdaptor]> {
  let summary = "rows of a [V, D] table picked by indices of any shape";
  let description = [{
    ```mlir
    %e = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<4x8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$weight, Kiln_IndexTensor:$indices);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$weight `[` $indices `]` attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferEmbedding">.inferBody;
}

#endif // KILN_DIALECT_KILN_IR_KILNINDEXINGOPS_TD
