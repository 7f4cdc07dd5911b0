// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the layout and shape ops (KilnShapeOps.td).

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x [4, 2] : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_inferred_dim_does_not_divide(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.reshape' op cannot reshape [2, 3] (6 elements) to [4, -1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x [4, -1] : tensor<2x3xf32> -> tensor<4x?xf32>
  return
}

// -----

func.func @reshape_two_inferred_dims(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.reshape' op target shape [-1, -1] has more than one -1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x [-1, -1] : tensor<2x3xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_negative_dim(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.reshape' op target shape [-2, -3] has a negative dim}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x [-2, -3] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_overflow(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.reshape' op result #0: shape [4294967296, 4294967296] has more elements than a 64-bit count holds}}
  %0 = kiln.reshape %x [4294967296, 4294967296] : tensor<2x3xf32> -> tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @reshape_result_dtype(%x: tensor<6xf32>) {
  // expected-error@+2 {{'kiln.reshape' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf16>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x [2, 3] : tensor<6xf32> -> tensor<2x3xf16>
  return
}

// -----

func.func @permute_wrong_length(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.permute' op permutation [0] does not match rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.permute %x [0] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @permute_repeated(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.permute' op permutation [1, 1] is invalid: axis 1 appears twice in [1, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.permute %x [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @permute_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.permute' op permutation [0, 2] is invalid: axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.permute %x [0, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @expand_to_lower_rank(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.expand' op cannot expand [2, 3] to the lower-rank [3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.expand %x [3] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @expand_non_unit_dim(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.expand' op cannot expand [2, 3] to [4, 3] (dim 0: 2 is neither 1 nor 4)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.expand %x [4, 3] : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @expand_past_a_64_bit_count(%x: tensor<f32>) {
  // expected-error@+1 {{'kiln.expand' op result #0: shape [1099511627776, 1099511627776] has more elements than a 64-bit count holds}}
  %0 = kiln.expand %x [1099511627776, 1099511627776] : tensor<f32> -> tensor<1099511627776x1099511627776xf32>
  return
}

// -----

func.func @expand_past_a_64_bit_size(%x: tensor<f64>) {
  // expected-error@+1 {{'kiln.expand' op result #0: shape [2305843009213693952] of 8-byte elements is more bytes than a 64-bit size holds}}
  %0 = kiln.expand %x [2305843009213693952] : tensor<f64> -> tensor<2305843009213693952xf64>
  return
}

// -----

// Shapes whose element count passes 2^63 (once folded to a splat, then
// mis-counted as 0 elements) are rejected wherever they appear.
func.func @constant_past_a_64_bit_count() {
  // expected-error@+1 {{'kiln.constant' op result #0: shape [4611686018427387904, 2] has more elements than a 64-bit count holds}}
  %b = kiln.constant dense<1.0> : tensor<4611686018427387904x2xf32>
  return
}

// -----

func.func @mean_past_a_64_bit_count(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error@+1 {{'kiln.mean' op operand #0: shape [4611686018427387904, 4] has more elements than a 64-bit count holds}}
  %0 = kiln.mean %x [0, 1] : tensor<4611686018427387904x4xf32> -> tensor<f32>
  return
}

// -----

func.func @expand_unknown_leading_dim(%x: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.expand' op new leading dim 0 of [-1, 3] must be given}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.expand %x [-1, 3] : tensor<3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @expand_negative_dim(%x: tensor<1xf32>) {
  // expected-error@+2 {{'kiln.expand' op target shape [-5] has a negative dim}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.expand %x [-5] : tensor<1xf32> -> tensor<1xf32>
  return
}

// -----

func.func @slice_entry_counts(%x: tensor<4x6xf32>) {
  // expected-error@+2 {{'kiln.slice' op starts, ends and steps need one entry per dim (rank 2), got 1, 2 and 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [0] [4, 6] [1, 1] : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @slice_step_zero(%x: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.slice' op step 0 of dim 0 must be >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [0] [4] [0] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_negative_step(%x: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.slice' op step -1 of dim 0 must be >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [3] [0] [-1] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_end_before_start(%x: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.slice' op slice [3, 1) of dim 0 is invalid}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [3] [1] [1] : tensor<4xf32> -> tensor<0xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<?xf32>) {
  // expected-error@+2 {{'kiln.slice' op slice [-1, 2) of dim 0 is invalid}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [-1] [2] [1] : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

func.func @slice_start_past_end(%x: tensor<4xf32>) {
  // expected-error@+2 {{'kiln.slice' op slice start 5 is past dim 0 of size 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [5] [9] [1] : tensor<4xf32> -> tensor<0xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<10xf32>) {
  // expected-error@+2 {{'kiln.slice' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice %x [1] [9223372036854775807] [3] : tensor<10xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_assign_value_shape(%v: tensor<3xf32>, %d: tensor<5xf32>) {
  // expected-error@+2 {{'kiln.slice_assign' op value of shape [3] does not fit slice [2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice_assign %v into %d [0] [2] [1] : (tensor<3xf32>, tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_assign_value_rank(%v: tensor<2x1xf32>, %d: tensor<5xf32>) {
  // expected-error@+2 {{'kiln.slice_assign' op value of shape [2, 1] does not fit slice [2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice_assign %v into %d [0] [2] [1] : (tensor<2x1xf32>, tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_assign_dtype(%v: tensor<2xf16>, %d: tensor<5xf32>) {
  // expected-error@+2 {{'kiln.slice_assign' op dtype mismatch between operands (f16[2], f32[5])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice_assign %v into %d [0] [2] [1] : (tensor<2xf16>, tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_assign_bounds(%v: tensor<2xf32>, %d: tensor<5xf32>) {
  // expected-error@+2 {{'kiln.slice_assign' op step 0 of dim 0 must be >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.slice_assign %v into %d [0] [2] [0] : (tensor<2xf32>, tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.concat' op input 1 of shape [3] has a different rank from [2, 3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+2 {{'kiln.concat' op input 1 of shape [2, 4] does not match [2, 3] outside axis 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.concat' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %a axis = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_dtype(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error@+2 {{'kiln.concat' op dtype mismatch between operands (f32[2], i32[2])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b axis = 0 : (tensor<2xf32>, tensor<2xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @concat_nothing() {
  // expected-error@+1 {{'kiln.concat' op failed to infer returned types}}
  %0 = "kiln.concat"() <{axis = 0 : i64}> : () -> tensor<0xf32>
  return
}

// -----

func.func @split_sizes_sum(%x: tensor<3x4xf32>) {
  // expected-error@+2 {{'kiln.split' op piece sizes [2, 2] add up to 4, not dim 0 of [3, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x [2, 2] axis = 0 : tensor<3x4xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @split_negative_size(%x: tensor<3x4xf32>) {
  // expected-error@+2 {{'kiln.split' op piece sizes [4, -1] must be >= 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x [4, -1] axis = 0 : tensor<3x4xf32> -> tensor<4x4xf32>, tensor<1x4xf32>
  return
}

// -----

func.func @split_overflow(%x: tensor<?xf32>) {
  // expected-error@+2 {{'kiln.split' op piece sizes [9223372036854775807, 1] are too large}}
  // expected-error@+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x [9223372036854775807, 1] axis = 0 : tensor<?xf32> -> tensor<?xf32>, tensor<1xf32>
  return
}

// -----

func.func @split_no_pieces(%x: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.split' op needs at least one piece}}
  // expected-error@+1 {{failed to infer returned types}}
  "kiln.split"(%x) <{axis = 0 : i64, sizes = array<i64>}> : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @split_axis(%x: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.split' op axis 1 is out of range for rank 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.split %x [3] axis = 1 : tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @split_result_count(%x: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.split' op inferred type(s) 'tensor<1xf32>', 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.split %x [1, 2] axis = 0 : tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @squeeze_non_unit_dim(%x: tensor<1x3xf32>) {
  // expected-error@+2 {{'kiln.squeeze' op cannot squeeze dim 1 of [1, 3]: its size is not 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x [1] : tensor<1x3xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_dynamic_dim(%x: tensor<?x3xf32>) {
  // expected-error@+2 {{'kiln.squeeze' op cannot squeeze dim 0 of [?, 3]: its size is not 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x [0] : tensor<?x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @squeeze_axis(%x: tensor<1x3xf32>) {
  // expected-error@+2 {{'kiln.squeeze' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x [2] : tensor<1x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @unsqueeze_axis(%x: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.unsqueeze' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unsqueeze %x [2] : tensor<3xf32> -> tensor<3x1xf32>
  return
}

// -----

func.func @unsqueeze_repeated_axis(%x: tensor<3xf32>) {
  // expected-error@+2 {{'kiln.unsqueeze' op axis 0 appears twice in [0, 0]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.unsqueeze %x [0, 0] : tensor<3xf32> -> tensor<1x1x3xf32>
  return
}

// -----

func.func @flip_axis(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.flip' op axis 2 is out of range for rank 2}}
  %0 = kiln.flip %x [2] : tensor<2x3xf32>
  return
}

// -----

func.func @flip_repeated_axis(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.flip' op axis 0 appears twice in [0, 0]}}
  %0 = kiln.flip %x [0, 0] : tensor<2x3xf32>
  return
}

// -----

func.func @repeat_count(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.repeat' op repeats [2] need one entry per dim of [2, 3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.repeat %x [2] : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @repeat_zero(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.repeat' op repeats [0, 1] must be >= 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.repeat %x [0, 1] : tensor<2x3xf32> -> tensor<0x3xf32>
  return
}

// -----

func.func @repeat_overflow(%x: tensor<2xf32>) {
  // expected-error@+2 {{'kiln.repeat' op repeating [2] by [9223372036854775807] is too large}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.repeat %x [9223372036854775807] : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.pad' op low padding needs 2 entries, got 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pad %x low [1] high [0, 0] value 0.0 : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error@+2 {{'kiln.pad' op high padding entries must be >= 0, got [0, -1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pad %x low [0, 0] high [0, -1] value 0.0 : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<2xf32>) {
  // expected-error@+2 {{'kiln.pad' op padding [2] by [9223372036854775807] and [0] is too large}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.pad %x low [9223372036854775807] high [0] value 0.0 : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @pad_value_not_int(%x: tensor<2xi32>) {
  // expected-error@+1 {{'kiln.pad' op padding value 5.000000e-01 is not an integer, but the dtype is 'i32'}}
  %0 = kiln.pad %x low [1] high [1] value 0.5 : tensor<2xi32> -> tensor<4xi32>
  return
}

// -----

func.func @pad_value_not_bool(%x: tensor<2xi1>) {
  // expected-error@+1 {{'kiln.pad' op padding value -1.000000e+00 is not a bool (0 or 1)}}
  %0 = kiln.pad %x low [1] high [1] value -1.0 : tensor<2xi1> -> tensor<4xi1>
  return
}

// -----

func.func @shape_op_of_quantized(%x: tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  // expected-error@+1 {{'kiln.reshape' op operand #0 must be ranked tensor of any kiln dtype}}
  %0 = kiln.reshape %x [2, 16] : tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>> -> tensor<2x16xi8>
  return
}
