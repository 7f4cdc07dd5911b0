// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the neural-network ops (KilnNNOps.td).

func.func @conv2d_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op input must have rank 4 (N, C, spatial...), got [3, 8, 8]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return
}

// -----

func.func @conv2d_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op weight must have rank 4 (O, C/groups, kernel...), got [4, 3, 3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_stride_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op stride needs 2 entries}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op padding needs 2 entries, got 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_stride_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op stride entries must be > 0, got [0, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [0, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op padding entries must be >= 0, got [-1, 0]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [-1, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32>
  return
}

// -----

func.func @conv2d_dilation_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op dilation entries must be > 0, got [1, 0]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 0] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_groups_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op groups must be >= 1, got 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 0 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_input_channels_vs_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op input channels 3 are not divisible by groups 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_output_channels_vs_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op output channels 3 are not divisible by groups 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv2d_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op weight [4, 2, 3, 3] expects 2 input channels per group, input [1, 3, 8, 8] has 3 in 1 groups}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op bias of shape [3] must be [4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w, %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_kernel_too_big(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op kernel [3, 3] does not fit the padded input [1, 3, 2, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv2d_empty_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x0x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op kernel [0, 3] must be >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x0x3xf32>) -> tensor<1x4x9x6xf32>
  return
}

// -----

func.func @conv2d_huge_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op padding [4611686018427387904, 0] and dilation [1, 1] are too large}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [4611686018427387904, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_dtype(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error@+2 {{'kiln.conv2d' op dtype mismatch between operands (f32[1, 3, 8, 8], f16[4, 3, 3, 3])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_of_int(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) {
  // expected-error@+1 {{'kiln.conv2d' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

func.func @conv2d_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv2d' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv1d_stride_count(%x: tensor<2x4x10xf32>, %w: tensor<6x4x3xf32>) {
  // expected-error@+2 {{'kiln.conv1d' op stride needs 1 entries}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv1d %x, %w stride [1, 1] padding [0] dilation [1] groups 1 : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x8xf32>
  return
}

// -----

func.func @conv1d_input_rank(%x: tensor<2x4x10x1xf32>, %w: tensor<6x4x3xf32>) {
  // expected-error@+2 {{'kiln.conv1d' op input must have rank 3 (N, C, spatial...), got [2, 4, 10, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv1d %x, %w stride [1] padding [0] dilation [1] groups 1 : (tensor<2x4x10x1xf32>, tensor<6x4x3xf32>) -> tensor<2x6x8xf32>
  return
}

// -----

func.func @conv1d_groups(%x: tensor<2x4x10xf32>, %w: tensor<6x4x3xf32>) {
  // expected-error@+2 {{'kiln.conv1d' op weight [6, 4, 3] expects 4 input channels per group, input [2, 4, 10] has 4 in 2 groups}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv1d %x, %w stride [1] padding [0] dilation [1] groups 2 : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x8xf32>
  return
}

// -----

func.func @max_pool2d_input_rank(%x: tensor<3x8x8xf32>) {
  // expected-error@+2 {{'kiln.max_pool2d' op input must be NCHW (rank 4), got [3, 8, 8]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<3x8x8xf32> -> tensor<3x4x4xf32>
  return
}

// -----

func.func @max_pool2d_kernel_too_big(%x: tensor<1x1x2x2xf32>) {
  // expected-error@+2 {{'kiln.max_pool2d' op kernel [3, 3] does not fit the input [1, 1, 2, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool2d %x kernel [3, 3] stride [2, 2] padding [0, 0] : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @max_pool2d_kernel_count(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+2 {{'kiln.max_pool2d' op kernel needs 2 entries, got 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool2d %x kernel [2, 2, 2] stride [2, 2] padding [0, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @max_pool2d_stride_zero(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+2 {{'kiln.max_pool2d' op stride entries must be > 0, got [2, 0]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool2d %x kernel [2, 2] stride [2, 0] padding [0, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @avg_pool2d_padding_over_half_kernel(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+2 {{'kiln.avg_pool2d' op padding [2, 0] exceeds half the kernel [3, 3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [2, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x10x6xf32>
  return
}

// -----

func.func @avg_pool2d_huge_padding(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+2 {{'kiln.avg_pool2d' op padding [4611686018427387904, 0] exceeds half the kernel [3, 3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [4611686018427387904, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x6x6xf32>
  return
}

// -----

func.func @avg_pool2d_of_int(%x: tensor<1x1x8x8xi8>) {
  // expected-error@+1 {{'kiln.avg_pool2d' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x1x8x8xi8> -> tensor<1x1x4x4xi8>
  return
}

// -----

func.func @avg_pool2d_result(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+2 {{'kiln.avg_pool2d' op inferred type(s) 'tensor<1x1x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x1x8x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @layer_norm_weight_shape(%x: tensor<8x16xf32>, %g: tensor<8xf32>) {
  // expected-error@+2 {{'kiln.layer_norm' op weight of shape [8] must be [16]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.layer_norm %x weight %g eps 1.0e-05 : (tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @layer_norm_bias_rank(%x: tensor<8x16xf32>, %b: tensor<1x16xf32>) {
  // expected-error@+2 {{'kiln.layer_norm' op bias of shape [1, 16] must be [16]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.layer_norm %x bias %b eps 1.0e-05 : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @layer_norm_rank0(%x: tensor<f32>) {
  // expected-error@+2 {{'kiln.layer_norm' op input must have rank >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.layer_norm %x eps 1.0e-05 : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @layer_norm_dtype(%x: tensor<8x16xf32>, %g: tensor<16xbf16>) {
  // expected-error@+2 {{'kiln.layer_norm' op dtype mismatch between operands (f32[8, 16], bf16[16])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.layer_norm %x weight %g eps 1.0e-05 : (tensor<8x16xf32>, tensor<16xbf16>) -> tensor<8x16xf32>
  return
}

// -----

func.func @dropout_p_one(%x: tensor<8xf32>) {
  // expected-error@+1 {{'kiln.dropout' op p must be in [0, 1), got 1.000000e+00}}
  %0 = kiln.dropout %x p = 1.0 seed = 3 : tensor<8xf32>
  return
}

// -----

func.func @dropout_p_negative(%x: tensor<8xf32>) {
  // expected-error@+1 {{'kiln.dropout' op p must be in [0, 1), got -5.000000e-01}}
  %0 = kiln.dropout %x p = -0.5 seed = 3 : tensor<8xf32>
  return
}

// -----

func.func @dropout_p_nan(%x: tensor<8xf32>) {
  // expected-error@+1 {{'kiln.dropout' op p must be in [0, 1), got nan}}
  %0 = kiln.dropout %x p = 0x7FF8000000000000 seed = 3 : tensor<8xf32>
  return
}

// -----

func.func @dropout_offset_rank_1(%x: tensor<8xf32>, %o: tensor<1xi64>) {
  // expected-error@+1 {{'kiln.dropout' op operand #1 must be rank-0 ranked tensor of i64}}
  %0 = kiln.dropout %x p = 0.5 seed = 3 offset %o : tensor<1xi64> : tensor<8xf32>
  return
}

// -----

func.func @dropout_offset_i32(%x: tensor<8xf32>, %o: tensor<i32>) {
  // expected-error@+1 {{'kiln.dropout' op operand #1 must be rank-0 ranked tensor of i64}}
  %0 = kiln.dropout %x p = 0.5 seed = 3 offset %o : tensor<i32> : tensor<8xf32>
  return
}

// -----

func.func @dropout_of_int(%x: tensor<8xi32>) {
  // expected-error@+1 {{'kiln.dropout' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.dropout %x p = 0.5 seed = 3 : tensor<8xi32>
  return
}

// -----

func.func @cross_entropy_logits_rank(%l: tensor<10xf32>, %t: tensor<i64>) {
  // expected-error@+2 {{'kiln.cross_entropy' op logits must be [N, C, d...], got [10]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %l, %t : (tensor<10xf32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_labels_rank(%l: tensor<4x10xf32>, %t: tensor<4x1xi64>) {
  // expected-error@+2 {{'kiln.cross_entropy' op labels must be [N, d...] for logits [4, 10], got [4, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_batch(%l: tensor<4x10xf32>, %t: tensor<5xi64>) {
  // expected-error@+2 {{'kiln.cross_entropy' op logits [4, 10] and labels [5] disagree on dim 0 of the logits}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<5xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_not_scalar(%l: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error@+2 {{'kiln.cross_entropy' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @cross_entropy_rank3_dims(%l: tensor<4x10x3xf32>, %t: tensor<4x2xi64>) {
  // expected-error@+2 {{'kiln.cross_entropy' op logits [4, 10, 3] and labels [4, 2] disagree on dim 2 of the logits}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %l, %t reduction = none : (tensor<4x10x3xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @cross_entropy_smoothing(%l: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.cross_entropy' op label_smoothing must be in [0, 1], got 2.000000e+00}}
  %0 = kiln.cross_entropy %l, %t label_smoothing = 2.0 : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_float_labels(%l: tensor<4x10xf32>, %t: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.cross_entropy' op operand #1 must be ranked tensor of i64/i32 indices}}
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @unfold_input_rank(%x: tensor<3x8x8xf32>) {
  // expected-error@+2 {{'kiln.unfold' op input must be NCHW (rank 4), got [3, 8, 8]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<3x8x8xf32> -> tensor<27x64xf32>
  return
}

// -----

func.func @unfold_window_too_big(%x: tensor<1x1x2x2xf32>) {
  // expected-error@+2 {{'kiln.unfold' op kernel [3, 3] does not fit the padded input [1, 1, 2, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<1x1x2x2xf32> -> tensor<1x9x1xf32>
  return
}

// -----

func.func @unfold_zero_dilation(%x: tensor<1x1x8x8xf32>) {
  // expected-error@+2 {{'kiln.unfold' op dilation entries must be > 0, got [0, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [0, 1] : tensor<1x1x8x8xf32> -> tensor<1x9x36xf32>
  return
}

// -----

func.func @unfold_wrong_result(%x: tensor<1x2x8x8xf32>) {
  // expected-error@+2 {{'kiln.unfold' op inferred type(s) 'tensor<1x18x36xf32>' are incompatible with return type(s) of operation 'tensor<1x18x64xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x18x64xf32>
  return
}

// -----

func.func @unfold_images_in_columns_per_image_result(%x: tensor<2x2x8x8xf32>) {
  // expected-error@+2 {{'kiln.unfold' op inferred type(s) 'tensor<18x72xf32>' are incompatible with return type(s) of operation 'tensor<2x18x36xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [1, 1] images_in_columns : tensor<2x2x8x8xf32> -> tensor<2x18x36xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<8xf32>, %m: tensor<8xf32>) {
  // expected-error@+2 {{'kiln.batch_norm' op input must be [N, C, ...] (rank >= 2), got [8]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.batch_norm %x, %m, %m eps 1.0e-05 : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @batch_norm_var_shape(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.batch_norm' op var of shape [4] must be [3], one entry per channel of the input [2, 3, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.batch_norm %x, %m, %v eps 1.0e-05 : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @batch_norm_bias_rank(%x: tensor<2x3xf32>, %m: tensor<3xf32>, %b: tensor<1x3xf32>) {
  // expected-error@+2 {{'kiln.batch_norm' op bias of shape [1, 3] must be [3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.batch_norm %x, %m, %m bias %b eps 1.0e-05 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_dtype(%x: tensor<2x3xf32>, %m: tensor<3xf16>) {
  // expected-error@+2 {{'kiln.batch_norm' op dtype mismatch between operands (f32[2, 3], f16[3], f16[3])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.batch_norm %x, %m, %m eps 1.0e-05 : (tensor<2x3xf32>, tensor<3xf16>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<2x6x4xf32>) {
  // expected-error@+2 {{'kiln.group_norm' op groups 4 does not divide the 6 channels of [2, 6, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.group_norm %x groups 4 eps 1.0e-05 : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  return
}

// -----

func.func @group_norm_zero_groups(%x: tensor<2x6x4xf32>) {
  // expected-error@+2 {{'kiln.group_norm' op groups must be > 0, got 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.group_norm %x groups 0 eps 1.0e-05 : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  return
}

// -----

func.func @group_norm_dynamic_channels(%x: tensor<2x?x4xf32>) {
  // expected-error@+2 {{'kiln.group_norm' op the channel and spatial dims must be static, got [2, ?, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.group_norm %x groups 1 eps 1.0e-05 : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  return
}

// -----

func.func @group_norm_weight(%x: tensor<2x6x4xf32>, %w: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.group_norm' op weight of shape [4] must be [6]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.group_norm %x weight %w groups 2 eps 1.0e-05 : (tensor<2x6x4xf32>, tensor<4xf32>) -> tensor<2x6x4xf32>
  return
}

// -----

func.func @adaptive_pool_rank(%x: tensor<2x3x4xf32>) {
  // expected-error@+2 {{'kiln.adaptive_avg_pool2d' op input must be NCHW (rank 4), got [2, 3, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.adaptive_avg_pool2d %x size [1, 1] : tensor<2x3x4xf32> -> tensor<2x3x1x1xf32>
  return
}

// -----

func.func @adaptive_pool_size(%x: tensor<2x3x4x4xf32>) {
  // expected-error@+2 {{'kiln.adaptive_max_pool2d' op size entries must be > 0, got [0, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.adaptive_max_pool2d %x size [0, 2] : tensor<2x3x4x4xf32> -> tensor<2x3x0x2xf32>
  return
}

// -----

func.func @adaptive_pool_dynamic(%x: tensor<2x3x?x4xf32>) {
  // expected-error@+2 {{'kiln.adaptive_avg_pool2d' op the spatial dims must be static, got [2, 3, ?, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.adaptive_avg_pool2d %x size [2, 2] : tensor<2x3x?x4xf32> -> tensor<2x3x2x2xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv_transpose2d' op weight [3, 3, 3, 3] expects 3 input channels, input [1, 4, 5, 5] has 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv_transpose2d' op output_padding [2, 0] must be smaller than the stride [2, 2] or the dilation [1, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w stride [2, 2] padding [0, 0] output_padding [2, 0] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x13x11xf32>
  return
}

// -----

func.func @conv_transpose_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv_transpose2d' op input channels 4 are not divisible by groups 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 3 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x9x7x7xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.conv_transpose2d' op bias of shape [4] must be [3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w, %b stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_padding(%x: tensor<1x4x1x1xf32>, %w: tensor<4x3x1x1xf32>) {
  // expected-error@+2 {{'kiln.conv_transpose2d' op padding [1, 1] leaves no output of input [1, 4, 1, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose2d %x, %w stride [1, 1] padding [1, 1] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x1x1xf32>, tensor<4x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  return
}

// -----

func.func @conv_transpose1d_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error@+2 {{'kiln.conv_transpose1d' op input must have rank 3 (N, C, spatial...), got [1, 4, 5, 5]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose1d %x, %w stride [1] padding [0] output_padding [0] dilation [1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x3x3xf32>) -> tensor<1x3x7xf32>
  return
}

// -----

func.func @max_pool_kernel_entries(%x: tensor<1x3x9x9xf32>) {
  // expected-error@+2 {{'kiln.max_pool' op kernel needs 1 or 2 entries (1-D or 2-D pooling), got 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %x kernel [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] dilation [1, 1, 1] : tensor<1x3x9x9xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @max_pool_rank(%x: tensor<1x3x9x9xf32>) {
  // expected-error@+2 {{'kiln.max_pool' op input must have rank 3 (N, C, spatial...), got [1, 3, 9, 9]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %x kernel [2] stride [2] padding [0] dilation [1] : tensor<1x3x9x9xf32> -> tensor<1x3x4xf32>
  return
}

// -----

func.func @max_pool_padding(%x: tensor<1x3x9x9xf32>) {
  // expected-error@+2 {{'kiln.max_pool' op padding [2, 0] exceeds half the window of kernel [3, 3] and dilation [1, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %x kernel [3, 3] stride [1, 1] padding [2, 0] dilation [1, 1] : tensor<1x3x9x9xf32> -> tensor<1x3x11x7xf32>
  return
}

// -----

func.func @max_pool_fit(%x: tensor<1x3x4x4xf32>) {
  // expected-error@+2 {{'kiln.max_pool_indices' op kernel [3, 3] with dilation [2, 2] does not fit the padded input [1, 3, 4, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max_pool_indices %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [2, 2] : tensor<1x3x4x4xf32> -> tensor<1x3x1x1xi64>
  return
}

// -----

func.func @avg_pool_stride(%x: tensor<1x3x9xf32>) {
  // expected-error@+2 {{'kiln.avg_pool' op stride entries must be > 0, got [0]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.avg_pool %x kernel [2] stride [0] padding [0] : tensor<1x3x9xf32> -> tensor<1x3x4xf32>
  return
}

// -----

func.func @interpolate_mode(%x: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'mode' [nearest, linear]}}
  %0 = kiln.interpolate %x size [8, 8] mode cubic : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @interpolate_align_nearest(%x: tensor<1x3x4x4xf32>) {
  // expected-error@+2 {{'kiln.interpolate' op align_corners needs mode linear}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.interpolate %x size [8, 8] mode nearest align_corners : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @interpolate_size(%x: tensor<1x3x4x4xf32>) {
  // expected-error@+2 {{'kiln.interpolate' op size needs 2 entries, got 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.interpolate %x size [8] mode nearest : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @interpolate_scales(%x: tensor<1x3x4x4xf32>) {
  // expected-error@+2 {{'kiln.interpolate' op scales must be finite and > 0, got -2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.interpolate %x size [8, 8] mode nearest scales [2.0, -2.0] : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @interpolate_dynamic(%x: tensor<1x3x?x4xf32>) {
  // expected-error@+2 {{'kiln.interpolate' op the spatial dims must be static and >= 1, got [1, 3, ?, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.interpolate %x size [8, 8] mode nearest : tensor<1x3x?x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @rms_norm_negative_eps(%x: tensor<8x16xf32>) {
  // expected-error@+1 {{'kiln.rms_norm' op eps must be >= 0, got -1.000000e+00}}
  %0 = kiln.rms_norm %x eps -1.0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @rms_norm_weight_size(%x: tensor<8x16xf32>, %g: tensor<8xf32>) {
  // expected-error@+2 {{'kiln.rms_norm' op weight of shape [8] must be [16]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.rms_norm %x weight %g eps 1.0e-06 : (tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @rms_norm_mixed_dtypes(%x: tensor<8x16xf32>, %g: tensor<16xf16>) {
  // expected-error@+2 {{'kiln.rms_norm' op dtype mismatch between operands (f32[8, 16], f16[16])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.rms_norm %x weight %g eps 1.0e-06 : (tensor<8x16xf32>, tensor<16xf16>) -> tensor<8x16xf32>
  return
}

// -----

func.func @rope_odd_dim(%x: tensor<4x7xf32>) {
  // expected-error@+1 {{'kiln.rope' op the last dim D must be static, even and >= 2, got [4, 7]}}
  %0 = kiln.rope %x theta 1.0e+04 : tensor<4x7xf32>
  return
}

// -----

func.func @rope_dynamic_dim(%x: tensor<4x?xf32>) {
  // expected-error@+1 {{'kiln.rope' op the last dim D must be static, even and >= 2, got [4, ?]}}
  %0 = kiln.rope %x theta 1.0e+04 : tensor<4x?xf32>
  return
}

// -----

func.func @rope_rank_1(%x: tensor<8xf32>) {
  // expected-error@+1 {{'kiln.rope' op input must have rank >= 2 ([..., T, D]), got [8]}}
  %0 = kiln.rope %x theta 1.0e+04 : tensor<8xf32>
  return
}

// -----

func.func @rope_theta(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'kiln.rope' op theta must be finite and > 0, got 0}}
  %0 = kiln.rope %x theta 0.0 : tensor<4x8xf32>
  return
}

// -----

func.func @rope_offset_f32(%x: tensor<4x8xf32>, %o: tensor<f32>) {
  // expected-error@+1 {{'kiln.rope' op operand #1 must be rank-0 ranked tensor of i64}}
  %0 = kiln.rope %x offset %o : tensor<f32> theta 1.0e+04 : tensor<4x8xf32>
  return
}
