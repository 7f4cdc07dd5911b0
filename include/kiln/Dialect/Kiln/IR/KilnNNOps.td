//===- KilnNNOps.td - Neural-network ops --------------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNNNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNNNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

def Kiln_Conv2dOp : Kiln_Op<"conv2d", [Pure, Kiln_ComputeBound,
    InferTypeOpAdaptor, Kiln_Diff]> {
  let summary = "2-D convolution, NCHW input and OIHW weight";
  let description = [{
    `weight` is `[O, C / groups, KH, KW]`; `bias`, when present, is `[O]`.

    ```mlir
    %y = kiln.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
           : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                       Optional<Kiln_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? `stride` $stride "
                       "`padding` $padding `dilation` $dilation `groups` "
                       "$groups attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferConv2d">.inferBody;
}

def Kiln_Conv1dOp : Kiln_Op<"conv1d", [Pure, Kiln_ComputeBound,
    Kiln_Composite, InferTypeOpAdaptor]> {
  let summary = "1-D convolution, NCL input and OIK weight (composite)";
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                       Optional<Kiln_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? `stride` $stride "
                       "`padding` $padding `dilation` $dilation `groups` "
                       "$groups attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferConv1d">.inferBody;
}

class Kiln_ConvTransposeOp<string mnemonic, string what>
    : Kiln_Op<mnemonic, [Pure, Kiln_ComputeBound, Kiln_Composite,
                         InferTypeOpAdaptor]> {
  let summary = what # " transposed convolution (composite)";
  let description = [{
    The gradient of a convolution with respect to its input, as a layer:
    `weight` is `[C_in, C_out / groups, kernel...]`, `bias` `[C_out]`; each
    spatial size is `(in - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1`, as in PyTorch and ONNX's ConvTranspose. It
    decomposes into `kiln.conv2d_backward_input` (a 1-D one through a
    2-D one of height 1) and the bias.

    ```mlir
    %y = kiln.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1
           : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                       Optional<Kiln_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$output_padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? `stride` $stride "
                       "`padding` $padding `output_padding` $output_padding "
                       "`dilation` $dilation `groups` $groups attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferConvTranspose">.inferBody;
}

def Kiln_ConvTranspose2dOp : Kiln_ConvTransposeOp<"conv_transpose2d", "2-D">;
def Kiln_ConvTranspose1dOp : Kiln_ConvTransposeOp<"conv_transpose1d", "1-D">;

class Kiln_Pool2dOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat([Pure, Kiln_ComputeBound,
                                     InferTypeOpAdaptor, Kiln_Diff], traits)> {
  let results = (outs Kiln_FloatTensor:$result);
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferPool2d">.inferBody;
}

def Kiln_MaxPool2dOp : Kiln_Pool2dOp<"max_pool2d"> {
  let summary = "2-D max pooling over NCHW; padding counts as -inf";
  let arguments = (ins Kiln_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding);
  let assemblyFormat = "$input `kernel` $kernel `stride` $stride `padding` "
                       "$padding attr-dict `:` type($input) `->` type($result)";
}

def Kiln_AvgPool2dOp : Kiln_Pool2dOp<"avg_pool2d"> {
  let summary = "2-D average pooling over NCHW";
  let description = [{
    With `count_include_pad` the divisor is the full window; without it,
    only the in-bounds elements count.
  }];
  let arguments = (ins Kiln_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       UnitAttr:$count_include_pad);
  let assemblyFormat = "$input `kernel` $kernel `stride` $stride `padding` "
                       "$padding (`count_include_pad` $count_include_pad^)? "
                       "attr-dict `:` type($input) `->` type($result)";
}

def Kiln_InterpolateOp : Kiln_Op<"interpolate", [Pure, Kiln_Composite,
    InferTypeOpAdaptor]> {
  let summary = "resize the spatial dims, nearest or (bi)linear (composite)";
  let description = [{
    `[N, C, L]` or `[N, C, H, W]` to `size`, as PyTorch's interpolate: output
    position `o` of a dim reads input coordinate `o * scale` (nearest,
    rounded down) or `(o + 0.5) * scale - 0.5` (linear, clamped at 0), where
    `scale` is `1 / scales[i]` when `scales` are given and `in / out`
    otherwise; with `align_corners`, `o * (in - 1) / (out - 1)`. Linear
    mode is separable: one constant interpolation matrix per dim, applied
    by matmul; nearest is an index_select per dim.

    ```mlir
    %y = kiln.interpolate %x size [8, 8] mode linear align_corners
           : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, DenseI64ArrayAttr:$size,
                       Kiln_InterpolateMode:$mode,
                       OptionalAttr<DenseF64ArrayAttr>:$scales,
                       UnitAttr:$align_corners);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `size` $size `mode` $mode (`scales` $scales^)? "
                       "(`align_corners` $align_corners^)? attr-dict `:` "
                       "type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferInterpolate">.inferBody;
}

class Kiln_PoolOp<string mnemonic, dag extra, string extraFormat,
                  string infer, Type result = Kiln_FloatTensor>
    : Kiln_Op<mnemonic, [Pure, Kiln_Composite, InferTypeOpAdaptor]> {
  let arguments = !con((ins Kiln_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                            DenseI64ArrayAttr:$stride,
                            DenseI64ArrayAttr:$padding), extra,
                       (ins UnitAttr:$ceil_mode));
  let results = (outs result:$result);
  let assemblyFormat = "$input `kernel` $kernel `stride` $stride `padding` "
                       "$padding " # extraFormat # " (`ceil_mode` $ceil_mode^)? "
                       "attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::" # infer>.inferBody;
}

def Kiln_MaxPoolOp : Kiln_PoolOp<"max_pool",
    (ins DenseI64ArrayAttr:$dilation), "`dilation` $dilation", "inferMaxPool"> {
  let summary = "1-D or 2-D max pooling with dilation and ceil mode (composite)";
  let description = [{
    One `kernel` entry per spatial dim of `[N, C, spatial...]`; padding
    counts as -inf. With `ceil_mode` a last partial window is kept when it
    starts inside the input or its low padding, as in PyTorch and ONNX. A
    2-D one without dilation or a partial window is `kiln.max_pool2d`;
    others decompose into the maximum of one strided slice per window
    offset of the padded input, which fuses into one kernel.

    ```mlir
    %y = kiln.max_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] ceil_mode
           : tensor<1x3x9x9xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
}

def Kiln_MaxPoolIndicesOp : Kiln_PoolOp<"max_pool_indices",
    (ins DenseI64ArrayAttr:$dilation), "`dilation` $dilation",
    "inferMaxPoolIndices", Kiln_IndexTensor> {
  let summary = "where kiln.max_pool found each maximum (composite)";
  let description = [{
    The flat index into its input plane (`h * W + w`, or `l` in 1-D) of the
    first maximum of each window of `kiln.max_pool` with the same
    attributes, as i64: PyTorch's `return_indices`.
  }];
}

def Kiln_AvgPoolOp : Kiln_PoolOp<"avg_pool",
    (ins UnitAttr:$count_include_pad),
    "(`count_include_pad` $count_include_pad^)?", "inferAvgPool"> {
  let summary = "1-D or 2-D average pooling with ceil mode (composite)";
  let description = [{
    With `count_include_pad` the divisor counts the padding inside each
    window (not the part of a `ceil_mode` window past it); without it, only
    the input's elements, as in PyTorch. A 2-D one without a partial
    window is `kiln.avg_pool2d`; others decompose into the sum of one
    strided slice per window offset times a constant map of divisors.
  }];
}

def Kiln_UnfoldOp : Kiln_Op<"unfold", [Pure, Kiln_ComputeBound,
    InferTypeOpAdaptor]> {
  let summary = "the sliding windows of an NCHW input, one column each";
  let description = [{
    Row `(c * KH + i) * KW + j` of image `n`, column `oh * WO + ow`, is
    `input[n, c, oh * stride[0] + i * dilation[0] - padding[0],
    ow * stride[1] + j * dilation[1] - padding[1]]`, zero outside the
    input: a 2-D convolution with groups 1 is the product of its weight,
    as `[O, C * KH * KW]`, and these columns. The Cpu backend lowers such
    convolutions to it, and its matmul kernel reads the columns from the
    input while packing, without storing them.

    With `images_in_columns`, the images follow one another along the
    columns instead: the result is `[C * KH * KW, N * HO * WO]`, column
    `n * HO * WO + oh * WO + ow`. A convolution whose images have few
    output pixels (a ResNet's last stages) is then one product with
    columns enough to fill the matmul's tiles.

    ```mlir
    %c = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1]
           : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
    %d = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1]
           images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x128xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       UnitAttr:$images_in_columns);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `kernel` $kernel `stride` $stride `padding` "
                       "$padding `dilation` $dilation "
                       "(`images_in_columns` $images_in_columns^)? attr-dict "
                       "`:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferUnfold">.inferBody;
}

def Kiln_LayerNormOp : Kiln_Op<"layer_norm", [Pure, Kiln_ComputeBound,
    Kiln_Composite, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "normalize over the last dim, then scale and shift (composite)";
  let description = [{
    `(x - mean) / sqrt(var + eps) * weight + bias`, with the biased variance.
    `weight` and `bias` are optional 1-D tensors of the last dim's size.

    ```mlir
    %y = kiln.layer_norm %x weight %g bias %b eps 1.000000e-05 : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %z = kiln.layer_norm %x bias %b eps 1.000000e-05 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       Optional<Kiln_FloatTensor>:$weight,
                       Optional<Kiln_FloatTensor>:$bias, F64Attr:$eps);
  let results = (outs Kiln_FloatTensor:$result);
  // Each optional operand is introduced by its own keyword, so that a bias
  // without a weight parses back.
  let assemblyFormat = "$input (`weight` $weight^)? (`bias` $bias^)? "
                       "`eps` $eps attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferLayerNorm">.inferBody;
}

def Kiln_RmsNormOp : Kiln_Op<"rms_norm", [Pure, Kiln_ComputeBound,
    Kiln_Composite, InferTypeOpAdaptor]> {
  let summary = "divide by the root mean square over the last dim, then scale "
                "(composite)";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * weight`, over the last dim, as Llama's
    RMSNorm. `weight` is an optional 1-D tensor of the last dim's size.

    ```mlir
    %y = kiln.rms_norm %x weight %g eps 9.9999999999999995E-7 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       Optional<Kiln_FloatTensor>:$weight, F64Attr:$eps);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input (`weight` $weight^)? `eps` $eps attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferRmsNorm">.inferBody;
}

def Kiln_RopeOp : Kiln_Op<"rope", [Pure, Kiln_Composite,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "rotary position embedding of [..., T, D] (composite)";
  let description = [{
    Row `t` of dim -2 sits at position `p = t + offset` (`offset`: an
    optional rank-0 i64 tensor read at run time, so decoding with a
    key/value cache compiles once). Each pair of the last dim is rotated by
    the angle `p * theta^(-2k / D)` of its index `k`. The pairs are
    `(k, k + D/2)` (the half-split layout of Hugging Face's Llama), or
    `(2k, 2k + 1)` with `interleaved` (GPT-J's and Meta's layout).

    ```mlir
    %q = kiln.rope %x theta 1.000000e+04 : tensor<2x4x8x16xf32>
    %k = kiln.rope %x offset %p : tensor<i64> theta 5.000000e+05 interleaved : tensor<2x4x8x16xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       Optional<Kiln_I64Scalar>:$offset, F64Attr:$theta,
                       UnitAttr:$interleaved);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input (`offset` $offset^ `:` type($offset))? `theta` "
                       "$theta (`interleaved` $interleaved^)? attr-dict `:` "
                       "type($input)";
  let hasVerifier = 1;
}

def Kiln_BatchNormOp : Kiln_Op<"batch_norm", [Pure, Kiln_Composite,
    InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "normalize each channel (dim 1) with given statistics (composite)";
  let description = [{
    `(x - mean) / sqrt(var + eps) * weight + bias`, where `mean`, `var` and
    the optional `weight` and `bias` are 1-D tensors of the channel count
    and broadcast over every dim but dim 1 of `[N, C, ...]`. In training the
    statistics are the batch's (graph ops over the other dims); in
    evaluation they are the running ones. It decomposes into a per-channel
    scale and shift and one multiply-add per element.

    ```mlir
    %y = kiln.batch_norm %x, %mean, %var weight %g bias %b eps 1.000000e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$mean,
                       Kiln_FloatTensor:$var,
                       Optional<Kiln_FloatTensor>:$weight,
                       Optional<Kiln_FloatTensor>:$bias, F64Attr:$eps);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `,` $mean `,` $var (`weight` $weight^)? "
                       "(`bias` $bias^)? `eps` $eps attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferBatchNorm">.inferBody;
}

def Kiln_GroupNormOp : Kiln_Op<"group_norm", [Pure, Kiln_Composite,
    InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "normalize groups of channels per sample (composite)";
  let description = [{
    The `C` channels of `[N, C, ...]` form `groups` groups of `C / groups`
    channels; each sample's group is normalized over its channels and
    spatial positions (biased variance), then each channel is scaled by
    `weight` and shifted by `bias` (optional, `[C]`). Instance norm is the
    case `groups = C`.

    ```mlir
    %y = kiln.group_norm %x weight %g bias %b groups 2 eps 1.000000e-05 : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       Optional<Kiln_FloatTensor>:$weight,
                       Optional<Kiln_FloatTensor>:$bias, I64Attr:$groups,
                       F64Attr:$eps);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input (`weight` $weight^)? (`bias` $bias^)? "
                       "`groups` $groups `eps` $eps attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferGroupNorm">.inferBody;
}

class Kiln_AdaptivePool2dOp<string mnemonic, string how>
    : Kiln_Op<mnemonic, [Pure, Kiln_Composite, InferTypeOpAdaptor]> {
  let summary = how # " over the windows that cut NCHW into `size` cells (composite)";
  let description = [{
    Output cell `i` along a spatial dim of input size `L` and output size
    `S` covers input rows `[floor(i * L / S), ceil((i + 1) * L / S))`, as in
    PyTorch and ONNX's global pooling (size 1). The spatial dims must be
    static; when `S` divides `L` the op is a plain pooling.
  }];
  let arguments = (ins Kiln_FloatTensor:$input, DenseI64ArrayAttr:$size);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `size` $size attr-dict `:` type($input) `->` "
                       "type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferAdaptivePool2d">.inferBody;
}

def Kiln_AdaptiveAvgPool2dOp
    : Kiln_AdaptivePool2dOp<"adaptive_avg_pool2d", "mean">;
def Kiln_AdaptiveMaxPool2dOp
    : Kiln_AdaptivePool2dOp<"adaptive_max_pool2d", "maximum">;

def Kiln_DropoutOp : Kiln_Op<"dropout", [Pure, Kiln_Elementwise, Kiln_OwnKernel,
    Kiln_Composite, AllTypesMatch<["input", "result"]>]> {
  let summary = "zero elements with probability p, scale the rest by 1/(1-p)";
  let description = [{
    The mask comes from the counter-based generator with `seed` (plus the
    optional run-time `offset`, as for `kiln.rand`), so it is the same on
    every backend and in the backward pass, and a training loop that
    advances `offset` draws a new mask each step without a recompile.

    ```mlir
    %y = kiln.dropout %x p = 1.000000e-01 seed = 3 : tensor<8xf32>
    %z = kiln.dropout %x p = 1.000000e-01 seed = 3 offset %step : tensor<i64> : tensor<8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, F64Attr:$p, I64Attr:$seed,
                       Optional<Kiln_I64Scalar>:$offset);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input `p` `=` $p `seed` `=` $seed "
                       "(`offset` $offset^ `:` type($offset))? attr-dict `:` "
                       "type($input)";
  let hasVerifier = 1;
}

def Kiln_CrossEntropyOp : Kiln_Op<"cross_entropy", [Pure, Kiln_ChecksIndices,
    Kiln_ComputeBound, Kiln_Composite, InferTypeOpAdaptor]> {
  let summary = "softmax cross-entropy of logits [N, C, d...] and labels "
                "[N, d...], as PyTorch's (composite)";
  let description = [{
    Each element's loss is `-log_softmax(logits)[label]` over the class dim
    1, or with `label_smoothing` e,
    `-(1 - e) log_softmax[label] - e mean_c(log_softmax[c])`. Elements
    whose label is `ignore_index` lose 0 and do not count. `reduction`:
    `none` gives the losses ([N, d...]), `sum` their sum, `mean` (the
    default) their sum over the counted elements (NaN when none counts).

    ```mlir
    %l = kiln.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
    %m = kiln.cross_entropy %logits, %labels ignore_index = 0 label_smoothing = 1.000000e-01 reduction = none : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$logits, Kiln_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
                       DefaultValuedAttr<Kiln_LossReduction,
                         "::mlir::kiln::LossReduction::Mean">:$reduction);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$logits `,` $labels "
                       "(`ignore_index` `=` $ignore_index^)? "
                       "(`label_smoothing` `=` $label_smoothing^)? "
                       "(`reduction` `=` $reduction^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferCrossEntropy">.inferBody;
}

#endif // KILN_DIALECT_KILN_IR_KILNNNOPS_TD
