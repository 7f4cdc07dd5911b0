//===- KilnReductionOps.td - Reductions ---------------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD
#define KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

defvar Kiln_InferReduce = "::mlir::kiln::inferReduce";
defvar Kiln_InferReduceBool = "::mlir::kiln::inferReduceBool";

def Kiln_SumOp : Kiln_ReduceOp<"sum", Kiln_NumericTensor, Kiln_NumericTensor,
    Kiln_InferReduce, [Kiln_ComputeBound, Kiln_Diff], "Sum"> {
  let summary = "sum over axes";
  let description = [{
    ```mlir
    %s = kiln.sum %x [1] : tensor<2x3xf32> -> tensor<2xf32>
    %k = kiln.sum %x [0, 1] keepdim : tensor<2x3xf32> -> tensor<1x1xf32>
    ```
  }];
  let hasFolder = 1;
}
def Kiln_MeanOp : Kiln_ReduceOp<"mean", Kiln_FloatTensor, Kiln_FloatTensor,
    Kiln_InferReduce, [Kiln_ComputeBound, Kiln_Composite]> {
  let summary = "mean over axes (composite: sum times 1/count)";
}
def Kiln_ProdOp : Kiln_ReduceOp<"prod", Kiln_NumericTensor, Kiln_NumericTensor,
    Kiln_InferReduce, [Kiln_ComputeBound, Kiln_Diff], "Prod"> {
  let summary = "product over axes";
}
def Kiln_ReduceMaxOp : Kiln_ReduceOp<"reduce_max", Kiln_NumericTensor,
    Kiln_NumericTensor, Kiln_InferReduce,
    [Kiln_ComputeBound, Kiln_NeedsElements, Kiln_Diff], "Max"> {
  let summary = "maximum over axes (NaN propagates)";
}
def Kiln_ReduceMinOp : Kiln_ReduceOp<"reduce_min", Kiln_NumericTensor,
    Kiln_NumericTensor, Kiln_InferReduce,
    [Kiln_ComputeBound, Kiln_NeedsElements, Kiln_Diff], "Min"> {
  let summary = "minimum over axes (NaN propagates)";
}
def Kiln_AnyOp : Kiln_ReduceOp<"any", Kiln_BoolTensor, Kiln_BoolTensor,
    Kiln_InferReduceBool, [Kiln_ComputeBound], "Any"> {
  let summary = "logical or over axes";
}
def Kiln_AllOp : Kiln_ReduceOp<"all", Kiln_BoolTensor, Kiln_BoolTensor,
    Kiln_InferReduceBool, [Kiln_ComputeBound], "All"> {
  let summary = "logical and over axes";
}

def Kiln_ArgMaxOp : Kiln_ArgReduceOp<"argmax"> {
  let summary = "index of the first maximum along an axis";
}
def Kiln_ArgMinOp : Kiln_ArgReduceOp<"argmin"> {
  let summary = "index of the first minimum along an axis";
}

def Kiln_CumsumOp : Kiln_AxisOp<"cumsum", Kiln_NumericTensor,
    [Kiln_ComputeBound, Kiln_Diff]> {
  let summary = "inclusive running sum along an axis";
}
def Kiln_ArgsortOp : Kiln_Op<"argsort", [Pure, Kiln_ComputeBound,
    Kiln_HostStep, InferTypeOpAdaptor]> {
  let summary = "the indices that sort an axis (stable)";
  let description = [{
    Ascending, or descending with `descending`; equal values keep their
    order, and NaN sorts above every number, as in PyTorch's stable sort.
    Sort values and top-k are gathers of these indices (the API's sort and
    topk), which is where their gradient flows.

    ```mlir
    %i = kiln.argsort %x axis = 1 descending : tensor<4x10xf32> -> tensor<4x10xi64>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$descending);
  let results = (outs Kiln_TensorOf<[I64], "i64">:$result);
  let assemblyFormat = "$input `axis` `=` $axis (`descending` $descending^)? "
                       "attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferArgsort">.inferBody;
}
def Kiln_SoftmaxOp : Kiln_AxisOp<"softmax", Kiln_FloatTensor,
    [Kiln_ComputeBound, Kiln_Composite]> {
  let summary = "exp(x - max) / sum(exp(x - max)) along an axis (composite)";
  let description = [{
    ```mlir
    %p = kiln.softmax %x axis = 1 : tensor<4x10xf32>
    ```
  }];
}
def Kiln_LogSoftmaxOp : Kiln_AxisOp<"log_softmax", Kiln_FloatTensor,
    [Kiln_ComputeBound, Kiln_Composite]> {
  let summary = "x - logsumexp(x) along an axis (composite)";
}
def Kiln_LogSumExpOp : Kiln_ReduceOp<"logsumexp", Kiln_FloatTensor,
    Kiln_FloatTensor, Kiln_InferReduce, [Kiln_ComputeBound, Kiln_Composite]> {
  let summary = "max + log(sum(exp(x - max))) over axes (composite)";
}

#endif // KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD
