// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the ops that reverse mode uses (KilnAutodiffOps.td).

func.func @detach_result_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.detach' op requires the same type for all operands and results}}
  %0 = "kiln.detach"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @detach_of_quantized(%x: tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  // expected-error@+1 {{'kiln.detach' op operand #0 must be ranked tensor of any kiln dtype}}
  %0 = kiln.detach %x : tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @grad_loss_not_scalar(%loss: tensor<4xf32>, %w: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.grad' op loss must be a rank-0 tensor, got [4]}}
  %0 = kiln.grad %loss wrt %w : tensor<4xf32>, (tensor<4xf32>)
  return
}

// -----

func.func @grad_int_loss(%loss: tensor<i32>, %w: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.grad' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<i32>'}}
  %0 = kiln.grad %loss wrt %w : tensor<i32>, (tensor<4xf32>)
  return
}

// -----

func.func @grad_result_types(%loss: tensor<f32>, %w: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.grad' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2x2xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = "kiln.grad"(%loss, %w) : (tensor<f32>, tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @conv2d_backward_input_grad_shape(%g: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_input' op gradient of shape [1, 4, 6, 6] does not match the convolution output [1, 4, 8, 8]}}
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv2d_backward_input_channels(%g: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_input' op weight [4, 3, 3, 3] expects 3 input channels per group, input [1, 2, 8, 8] has 2 in 1 groups}}
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @conv2d_backward_input_stride_count(%g: tensor<1x4x8x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_input' op stride needs 2 entries, got [1, 1, 1]}}
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1, 1] padding [1, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x4x8x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x3x8x8x8xf32>
  return
}

// -----

func.func @conv2d_backward_input_dtype(%g: tensor<1x4x8x8xf16>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_input' op dtype mismatch between operands (f16[1, 4, 8, 8], f32[4, 3, 3, 3], f32[1, 3, 8, 8])}}
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf16>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv2d_backward_input_groups(%g: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_input' op groups must be >= 1, got 0}}
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 0 : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv2d_backward_weight_grad_shape(%g: tensor<1x4x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_weight' op gradient of shape [1, 4, 8, 8] does not match the convolution output [1, 4, 6, 6]}}
  %0 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_backward_weight_rank(%g: tensor<1x4x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_weight' op weight must have rank 4 (O, C/groups, kernel...), got [4, 3, 3]}}
  %0 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3xf32>
  return
}

// -----

func.func @conv2d_backward_weight_dtype(%g: tensor<1x4x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_weight' op dtype mismatch between operands (f32[1, 4, 8, 8], f32[1, 3, 8, 8], bf16[4, 3, 3, 3])}}
  %0 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xbf16>
  return
}

// -----

func.func @conv2d_backward_weight_stride_count(%g: tensor<1x4x8xf32>, %x: tensor<1x3x8xf32>) {
  // expected-error@+1 {{'kiln.conv2d_backward_weight' op stride needs 2 entries, got [1]}}
  %0 = kiln.conv2d_backward_weight %g, %x stride [1] padding [1] dilation [1] groups 1 : (tensor<1x4x8xf32>, tensor<1x3x8xf32>) -> tensor<4x3x3xf32>
  return
}

// -----

func.func @max_pool2d_backward_result(%g: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.max_pool2d_backward' op result must have the input's type}}
  %0 = kiln.max_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @max_pool2d_backward_grad_shape(%g: tensor<1x3x3x3xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.max_pool2d_backward' op gradient of shape [1, 3, 3, 3] does not match the pooled shape [1, 3, 4, 4]}}
  %0 = kiln.max_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x3x3xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @max_pool2d_backward_kernel_too_big(%g: tensor<1x1x1x1xf32>, %x: tensor<1x1x2x2xf32>) {
  // expected-error@+1 {{'kiln.max_pool2d_backward' op kernel [3, 3] does not fit the input [1, 1, 2, 2]}}
  %0 = kiln.max_pool2d_backward %g, %x kernel [3, 3] stride [2, 2] padding [0, 0] : (tensor<1x1x1x1xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @max_pool2d_backward_dtype(%g: tensor<1x3x4x4xf16>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.max_pool2d_backward' op dtype mismatch between operands (f16[1, 3, 4, 4], f32[1, 3, 8, 8], f32[1, 3, 8, 8])}}
  %0 = kiln.max_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf16>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @avg_pool2d_backward_input_rank(%g: tensor<3x4x4xf32>, %x: tensor<3x8x8xf32>) {
  // expected-error@+1 {{'kiln.avg_pool2d_backward' op input must be NCHW (rank 4), got [3, 8, 8]}}
  %0 = kiln.avg_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<3x4x4xf32>, tensor<3x8x8xf32>) -> tensor<3x8x8xf32>
  return
}

// -----

func.func @avg_pool2d_backward_padding(%g: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.avg_pool2d_backward' op padding [2, 2] exceeds half the kernel [2, 2]}}
  %0 = kiln.avg_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [2, 2] count_include_pad : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @avg_pool2d_backward_result(%g: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'kiln.avg_pool2d_backward' op result must have the input's type}}
  %0 = kiln.avg_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x7xf32>
  return
}
