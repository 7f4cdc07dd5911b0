// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the reductions (KilnReductionOps.td).

func.func @sum_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.sum' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @sum_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.sum' op axis -1 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [-1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @sum_duplicated_axes(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.sum' op axis 1 appears twice in [1, 0, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [1, 0, 1] : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

func.func @sum_no_axes(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.sum' op needs at least one axis}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @sum_of_rank0(%x: tensor<f32>) {
  // expected-error@+2 {{'kiln.sum' op axis 0 is out of range for rank 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [0] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @sum_keepdim_result(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [1] keepdim : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @sum_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.sum' op operand #0 must be ranked tensor of a numeric (non-bool) dtype, but got 'tensor<4xi1>'}}
  %0 = kiln.sum %x [0] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @sum_result_dtype(%x: tensor<4xi32>) {
  // expected-error@+2 {{'kiln.sum' op inferred type(s) 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<i64>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sum %x [0] : tensor<4xi32> -> tensor<i64>
  return
}

// -----

func.func @prod_axis_out_of_range(%x: tensor<4xi8>) {
  // expected-error@+2 {{'kiln.prod' op axis 1 is out of range for rank 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.prod %x [1] : tensor<4xi8> -> tensor<i8>
  return
}

// -----

func.func @reduce_max_duplicated_axes(%x: tensor<2x2xui8>) {
  // expected-error@+2 {{'kiln.reduce_max' op axis 0 appears twice in [0, 0]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.reduce_max %x [0, 0] : tensor<2x2xui8> -> tensor<2xui8>
  return
}

// -----

func.func @reduce_min_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.reduce_min' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.reduce_min %x [0] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @mean_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.mean' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<4xi32>'}}
  %0 = kiln.mean %x [0] : tensor<4xi32> -> tensor<i32>
  return
}

// -----

func.func @mean_axis_out_of_range(%x: tensor<?x4xf32>) {
  // expected-error@+2 {{'kiln.mean' op axis 5 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.mean %x [5] : tensor<?x4xf32> -> tensor<?xf32>
  return
}

// -----

func.func @logsumexp_result_shape(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.logsumexp' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.logsumexp %x [1] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @logsumexp_of_int(%x: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.logsumexp' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.logsumexp %x [0] : tensor<4xi64> -> tensor<i64>
  return
}

// -----

func.func @any_of_float(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.any' op operand #0 must be ranked tensor of bool (i1), but got 'tensor<4xf32>'}}
  %0 = kiln.any %x [0] : tensor<4xf32> -> tensor<i1>
  return
}

// -----

func.func @all_axis_out_of_range(%x: tensor<4xi1>) {
  // expected-error@+2 {{'kiln.all' op axis 3 is out of range for rank 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.all %x [3] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.argmax' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.argmax %x axis = 2 : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

func.func @argmax_gives_i64(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.argmax' op result #0 must be ranked tensor of i64, but got 'tensor<2xi32>'}}
  %0 = kiln.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @argmin_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.argmin' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.argmin %x axis = 0 : tensor<4xi1> -> tensor<i64>
  return
}

// -----

func.func @argmin_keepdim_result(%x: tensor<2x3xi32>) {
  // expected-error@+2 {{'kiln.argmin' op inferred type(s) 'tensor<1x3xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.argmin %x axis = 0 keepdim : tensor<2x3xi32> -> tensor<3xi64>
  return
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.cumsum' op axis 2 is out of range for rank 2}}
  %0 = kiln.cumsum %x axis = 2 : tensor<2x3xf32>
  return
}

// -----

func.func @cumsum_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.cumsum' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.cumsum %x axis = 0 : tensor<4xi1>
  return
}

// -----

func.func @softmax_axis_negative(%x: tensor<4x10xf32>) {
  // expected-error@+1 {{'kiln.softmax' op axis -1 is out of range for rank 2}}
  %0 = kiln.softmax %x axis = -1 : tensor<4x10xf32>
  return
}

// -----

func.func @softmax_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.softmax' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.softmax %x axis = 0 : tensor<4xi32>
  return
}

// -----

func.func @log_softmax_of_rank0(%x: tensor<f32>) {
  // expected-error@+1 {{'kiln.log_softmax' op axis 0 is out of range for rank 0}}
  %0 = kiln.log_softmax %x axis = 0 : tensor<f32>
  return
}

// -----

func.func @log_softmax_result_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.log_softmax' op requires the same type for all operands and results}}
  %0 = "kiln.log_softmax"(%x) <{axis = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @reduce_missing_axes(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.sum' op requires attribute 'axes'}}
  %0 = "kiln.sum"(%x) : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_axes_of_wrong_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{invalid properties {axes = "0"} for op kiln.sum: Invalid attribute `axes` in property conversion: "0"}}
  %0 = "kiln.sum"(%x) <{axes = "0"}> : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// max and argmax have no value over an empty axis (as in numpy).
func.func @max_over_an_empty_axis(%x: tensor<0x3xf32>) {
  // expected-error@+1 {{'kiln.reduce_max' op axis 0 of [0, 3] is empty, and the reduction has no value over no elements}}
  %0 = kiln.reduce_max %x [0] : tensor<0x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @argmin_over_an_empty_axis(%x: tensor<3x0xi32>) {
  // expected-error@+1 {{'kiln.argmin' op axis 1 of [3, 0] is empty}}
  %0 = kiln.argmin %x axis = 1 : tensor<3x0xi32> -> tensor<3xi64>
  return
}

// -----

func.func @argsort_axis(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.argsort' op axis 2 is out of range for rank 2}}
  %0 = kiln.argsort %x axis = 2 : tensor<2x3xf32> -> tensor<2x3xi64>
  return
}

// -----

func.func @argsort_of_bool(%x: tensor<3xi1>) {
  // expected-error@+1 {{'kiln.argsort' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.argsort %x axis = 0 : tensor<3xi1> -> tensor<3xi64>
  return
}

// -----

func.func @argsort_result_dtype(%x: tensor<3xf32>) {
  // expected-error@+1 {{'kiln.argsort' op result #0 must be ranked tensor of i64}}
  %0 = kiln.argsort %x axis = 0 : tensor<3xf32> -> tensor<3xi32>
  return
}
