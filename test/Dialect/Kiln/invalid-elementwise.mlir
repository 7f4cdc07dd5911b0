// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the elementwise ops (KilnElementwiseOps.td). A rule
// that result-type inference checks reports its message and then "failed to
// infer returned types".

//===----------------------------------------------------------------------===//
// Unary: dtypes
//===----------------------------------------------------------------------===//

func.func @exp_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.exp' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<4xi32>'}}
  %0 = kiln.exp %x : tensor<4xi32>
  return
}

// -----

func.func @exp_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.exp' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.exp %x : tensor<4xi1>
  return
}

// -----

func.func @log_of_int(%x: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.log' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.log %x : tensor<4xi64>
  return
}

// -----

func.func @log1p_of_uint(%x: tensor<4xui8>) {
  // expected-error@+1 {{'kiln.log1p' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.log1p %x : tensor<4xui8>
  return
}

// -----

func.func @sqrt_of_int(%x: tensor<4xi8>) {
  // expected-error@+1 {{'kiln.sqrt' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.sqrt %x : tensor<4xi8>
  return
}

// -----

func.func @rsqrt_of_int(%x: tensor<4xi16>) {
  // expected-error@+1 {{'kiln.rsqrt' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.rsqrt %x : tensor<4xi16>
  return
}

// -----

func.func @recip_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.recip' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.recip %x : tensor<4xi1>
  return
}

// -----

func.func @sin_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.sin' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.sin %x : tensor<4xi32>
  return
}

// -----

func.func @cos_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.cos' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.cos %x : tensor<4xi32>
  return
}

// -----

func.func @tan_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.tan' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.tan %x : tensor<4xi32>
  return
}

// -----

func.func @tanh_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.tanh' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.tanh %x : tensor<4xi32>
  return
}

// -----

func.func @sigmoid_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.sigmoid' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.sigmoid %x : tensor<4xi1>
  return
}

// -----

func.func @erf_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.erf' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.erf %x : tensor<4xi32>
  return
}

// -----

func.func @silu_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.silu' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.silu %x : tensor<4xi32>
  return
}

// -----

func.func @floor_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.floor' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.floor %x : tensor<4xi32>
  return
}

// -----

func.func @ceil_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.ceil' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.ceil %x : tensor<4xi32>
  return
}

// -----

func.func @round_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.round' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.round %x : tensor<4xi32>
  return
}

// -----

func.func @gelu_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.gelu' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.gelu %x approximate = tanh : tensor<4xi32>
  return
}

// -----

func.func @gelu_unknown_approximation(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = kiln.gelu %x approximate = sigmoid : tensor<4xf32>
  return
}

// -----

func.func @neg_of_unsigned(%x: tensor<4xui8>) {
  // expected-error@+1 {{'kiln.neg' op operand #0 must be ranked tensor of a signed dtype, but got 'tensor<4xui8>'}}
  %0 = kiln.neg %x : tensor<4xui8>
  return
}

// -----

func.func @neg_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.neg' op operand #0 must be ranked tensor of a signed dtype}}
  %0 = kiln.neg %x : tensor<4xi1>
  return
}

// -----

func.func @abs_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.abs' op operand #0 must be ranked tensor of a signed dtype}}
  %0 = kiln.abs %x : tensor<4xi1>
  return
}

// -----

func.func @relu_of_unsigned(%x: tensor<4xui8>) {
  // expected-error@+1 {{'kiln.relu' op operand #0 must be ranked tensor of a signed dtype}}
  %0 = kiln.relu %x : tensor<4xui8>
  return
}

// -----

func.func @sign_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.sign' op operand #0 must be ranked tensor of a signed dtype}}
  %0 = kiln.sign %x : tensor<4xi1>
  return
}

// -----

func.func @not_of_float(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.not' op operand #0 must be ranked tensor of bool (i1), but got 'tensor<4xf32>'}}
  %0 = kiln.not %x : tensor<4xf32>
  return
}

// -----

func.func @is_nan_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.is_nan' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.is_nan %x : tensor<4xi32> -> tensor<4xi1>
  return
}

// -----

func.func @is_nan_gives_bool(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.is_nan' op result #0 must be ranked tensor of bool (i1), but got 'tensor<4xf32>'}}
  %0 = kiln.is_nan %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @is_nan_keeps_shape(%x: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.is_nan' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<2x2xi1>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.is_nan %x : tensor<4xf32> -> tensor<2x2xi1>
  return
}

// -----

func.func @unary_of_quantized(%x: tensor<32xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>) {
  // expected-error@+1 {{'kiln.abs' op operand #0 must be ranked tensor of a signed dtype}}
  %0 = kiln.abs %x : tensor<32xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  return
}

// -----

func.func @unary_of_unranked(%x: tensor<*xf32>) {
  // expected-error@+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = kiln.exp %x : tensor<*xf32>
  return
}

// -----

func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.exp' op requires the same type for all operands and results}}
  %0 = "kiln.exp"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

//===----------------------------------------------------------------------===//
// Clamp
//===----------------------------------------------------------------------===//

// -----

func.func @clamp_min_above_max(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.clamp' op needs min <= max, got [1.000000e+00, -1.000000e+00]}}
  %0 = kiln.clamp %x [1.0, -1.0] : tensor<4xf32>
  return
}

// -----

func.func @clamp_nan_bound(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.clamp' op needs min <= max, got [nan, 1.000000e+00]}}
  %0 = kiln.clamp %x [0x7FF8000000000000, 1.0] : tensor<4xf32>
  return
}

// -----

func.func @clamp_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.clamp' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.clamp %x [0.0, 1.0] : tensor<4xi1>
  return
}

//===----------------------------------------------------------------------===//
// Binary: broadcasting, dtypes, result types
//===----------------------------------------------------------------------===//

// -----

func.func @add_broadcast_mismatch(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.add' op cannot broadcast shapes [2, 3] and [4] (dim 1: 3 vs 4)}}
  // expected-error@+1 {{'kiln.add' op failed to infer returned types}}
  %0 = kiln.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @sub_broadcast_mismatch_leading(%x: tensor<2x1x3xi32>, %y: tensor<5x4x3xi32>) {
  // expected-error@+2 {{'kiln.sub' op cannot broadcast shapes [2, 1, 3] and [5, 4, 3] (dim 0: 2 vs 5)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.sub %x, %y : (tensor<2x1x3xi32>, tensor<5x4x3xi32>) -> tensor<5x4x3xi32>
  return
}

// -----

func.func @mul_dtype_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xf16>) {
  // expected-error@+2 {{'kiln.mul' op dtype mismatch between operands (f32[2, 3], f16[3])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.mul %x, %y : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @div_signedness_mismatch(%x: tensor<4xi8>, %y: tensor<4xui8>) {
  // expected-error@+2 {{'kiln.div' op dtype mismatch between operands (i8[4], ui8[4])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.div %x, %y : (tensor<4xi8>, tensor<4xui8>) -> tensor<4xi8>
  return
}

// -----

func.func @max_result_shape(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.max' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @min_result_dtype(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.min' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf64>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.min %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

func.func @rem_result_static_for_dynamic(%x: tensor<?xi32>, %y: tensor<?xi32>) {
  // expected-error@+2 {{'kiln.rem' op inferred type(s) 'tensor<?xi32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.rem %x, %y : (tensor<?xi32>, tensor<?xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @add_of_bool(%x: tensor<4xi1>, %y: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.add' op operand #0 must be ranked tensor of a numeric (non-bool) dtype, but got 'tensor<4xi1>'}}
  %0 = kiln.add %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @pow_of_int(%x: tensor<4xi32>, %y: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.pow' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.pow %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @atan2_of_int(%x: tensor<4xi32>, %y: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.atan2' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.atan2 %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @and_of_int(%x: tensor<4xi32>, %y: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.and' op operand #0 must be ranked tensor of bool (i1), but got 'tensor<4xi32>'}}
  %0 = kiln.and %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @or_broadcast_mismatch(%x: tensor<3xi1>, %y: tensor<2xi1>) {
  // expected-error@+2 {{'kiln.or' op cannot broadcast shapes [3] and [2] (dim 0: 3 vs 2)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.or %x, %y : (tensor<3xi1>, tensor<2xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @binary_of_quantized(%x: tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  // expected-error@+1 {{'kiln.add' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.add %x, %x : (tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>, tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) -> tensor<32xi8>
  return
}

// -----

func.func @binary_operand_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.add' op expected 2 operands, but found 1}}
  %0 = "kiln.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Comparison, where, cast
//===----------------------------------------------------------------------===//

// -----

func.func @eq_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error@+2 {{'kiln.eq' op dtype mismatch between operands (f32[4], i32[4])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.eq %x, %y : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @ne_broadcast_mismatch(%x: tensor<4xf32>, %y: tensor<5xf32>) {
  // expected-error@+2 {{'kiln.ne' op cannot broadcast shapes [4] and [5]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.ne %x, %y : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @lt_gives_bool(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.lt' op result #0 must be ranked tensor of bool (i1), but got 'tensor<4xf32>'}}
  %0 = kiln.lt %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @le_result_shape(%x: tensor<4xi8>, %y: tensor<i8>) {
  // expected-error@+2 {{'kiln.le' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<i1>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.le %x, %y : (tensor<4xi8>, tensor<i8>) -> tensor<i1>
  return
}

// -----

func.func @gt_dtype_mismatch(%x: tensor<4xbf16>, %y: tensor<4xf16>) {
  // expected-error@+2 {{'kiln.gt' op dtype mismatch between operands (bf16[4], f16[4])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gt %x, %y : (tensor<4xbf16>, tensor<4xf16>) -> tensor<4xi1>
  return
}

// -----

func.func @ge_of_index(%x: tensor<4xindex>, %y: tensor<4xindex>) {
  // expected-error@+1 {{'kiln.ge' op operand #0 must be ranked tensor of any kiln dtype, but got 'tensor<4xindex>'}}
  %0 = kiln.ge %x, %y : (tensor<4xindex>, tensor<4xindex>) -> tensor<4xi1>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xi32>, %x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.where' op operand #0 must be ranked tensor of bool (i1), but got 'tensor<4xi32>'}}
  %0 = kiln.where %c, %x, %x : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_branch_dtypes(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error@+2 {{'kiln.where' op dtype mismatch between operands (f32[4], f64[4])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @where_broadcast_mismatch(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.where' op cannot broadcast shapes [3] and [4] (dim 0: 3 vs 4)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.where %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_changes_shape(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.cast' op changes the shape from [4] to [2, 2]}}
  %0 = kiln.cast %x : tensor<4xf32> -> tensor<2x2xi32>
  return
}

// -----

func.func @cast_changes_dynamic_dim(%x: tensor<?xf32>) {
  // expected-error@+1 {{'kiln.cast' op changes the shape from [?] to [4]}}
  %0 = kiln.cast %x : tensor<?xf32> -> tensor<4xf32>
  return
}

// -----

func.func @cast_to_non_kiln_dtype(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.cast' op result #0 must be ranked tensor of any kiln dtype, but got 'tensor<4xi4>'}}
  %0 = kiln.cast %x : tensor<4xf32> -> tensor<4xi4>
  return
}

// -----

func.func @log_sigmoid_of_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.log_sigmoid' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16)}}
  %0 = kiln.log_sigmoid %x : tensor<4xi32>
  return
}

// -----

func.func @hardswish_of_int(%x: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.hardswish' op operand #0 must be ranked tensor of a float dtype}}
  %0 = kiln.hardswish %x : tensor<4xi64>
  return
}

// -----

func.func @mish_of_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.mish' op operand #0 must be ranked tensor of a float dtype}}
  %0 = kiln.mish %x : tensor<4xi1>
  return
}

// -----

func.func @leaky_relu_nan_slope(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.leaky_relu' op negative_slope must be finite, got nan}}
  %0 = kiln.leaky_relu %x negative_slope = 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

func.func @elu_infinite_alpha(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.elu' op alpha must be finite, got INF}}
  %0 = kiln.elu %x alpha = 0x7FF0000000000000 : tensor<4xf32>
  return
}

// -----

func.func @softplus_zero_beta(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.softplus' op beta must be finite and > 0, got 0}}
  %0 = kiln.softplus %x beta = 0.0 threshold = 20.0 : tensor<4xf32>
  return
}

// -----

func.func @softplus_nan_threshold(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.softplus' op threshold must not be NaN}}
  %0 = kiln.softplus %x beta = 1.0 threshold = 0x7FF8000000000000 : tensor<4xf32>
  return
}
