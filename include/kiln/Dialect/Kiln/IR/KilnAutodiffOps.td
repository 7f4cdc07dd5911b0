//===- KilnAutodiffOps.td - Ops used by reverse mode --------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNAUTODIFFOPS_TD
#define KILN_DIALECT_KILN_IR_KILNAUTODIFFOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

def Kiln_DetachOp : Kiln_Op<"detach", [Pure, Kiln_Elementwise,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "identity that stops gradients";
  let description = [{
    `--kiln-autodiff` treats the result as a constant and then removes the
    op.

    ```mlir
    %d = kiln.detach %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Kiln_GradOp : Kiln_Op<"grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "gradients of a scalar loss with respect to some values";
  let description = [{
    A placeholder that `--kiln-autodiff` replaces with the backward graph.
    Result `i` has the type of `wrt[i]`.

    ```mlir
    %gw, %gb = kiln.grad %loss wrt %w, %b : tensor<f32>, (tensor<4x3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$loss, Variadic<Kiln_FloatTensor>:$wrt);
  let results = (outs Variadic<Kiln_FloatTensor>:$grads);
  let assemblyFormat = "$loss `wrt` $wrt attr-dict `:` type($loss) `,` "
                       "`(` type($wrt) `)`";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferGrad">.inferBody;
}

def Kiln_Conv2dBackwardInputOp : Kiln_Op<"conv2d_backward_input",
    [Pure, Kiln_ComputeBound, Kiln_Diff]> {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    The transposed convolution of `grad` with `weight`; the result type
    names the input shape, which stride alone leaves ambiguous. It is
    linear in both operands, so it has a gradient of its own (a
    transposed convolution layer trains through it): the convolution of
    the result's gradient with `weight`, and the weight gradient of a
    convolution of that gradient whose output gradient is `grad`.
  }];
  let arguments = (ins Kiln_FloatTensor:$grad, Kiln_FloatTensor:$weight,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $weight `stride` $stride `padding` $padding "
                       "`dilation` $dilation `groups` $groups attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Kiln_Conv2dBackwardWeightOp : Kiln_Op<"conv2d_backward_weight",
    [Pure, Kiln_ComputeBound]> {
  let summary = "gradient of conv2d with respect to its weight";
  let arguments = (ins Kiln_FloatTensor:$grad, Kiln_FloatTensor:$input,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input `stride` $stride `padding` $padding "
                       "`dilation` $dilation `groups` $groups attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Kiln_MaxPool2dBackwardOp : Kiln_Op<"max_pool2d_backward",
    [Pure, Kiln_ComputeBound]> {
  let summary = "routes each window's gradient to its first maximum";
  let arguments = (ins Kiln_FloatTensor:$grad, Kiln_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input `kernel` $kernel `stride` $stride "
                       "`padding` $padding attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Kiln_AvgPool2dBackwardOp : Kiln_Op<"avg_pool2d_backward",
    [Pure, Kiln_ComputeBound]> {
  let summary = "spreads each window's gradient evenly over the window";
  let arguments = (ins Kiln_FloatTensor:$grad, Kiln_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, UnitAttr:$count_include_pad);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input `kernel` $kernel `stride` $stride "
                       "`padding` $padding (`count_include_pad` $count_include_pad^)? "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNAUTODIFFOPS_TD
