// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the creation ops (KilnCreationOps.td).

func.func @constant_type_mismatch() {
  // expected-error@+1 {{'kiln.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "kiln.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_not_a_tensor() {
  // expected-error@+1 {{'kiln.constant' op result #0 must be ranked tensor of any kiln dtype, but got 'vector<2xf32>'}}
  %0 = kiln.constant dense<1.0> : vector<2xf32>
  return
}

// -----

func.func @constant_not_dense() {
  // expected-error@+1 {{'kiln.constant' op value must be a dense elements attribute}}
  %0 = kiln.constant sparse<[[0]], [1.0]> : tensor<4xf32>
  return
}

// -----

func.func @constant_non_kiln_dtype() {
  // expected-error@+1 {{'kiln.constant' op result #0 must be ranked tensor of any kiln dtype, but got 'tensor<2xi4>'}}
  %0 = kiln.constant dense<1> : tensor<2xi4>
  return
}

// -----

func.func @full_too_few_dynamic_sizes() {
  // expected-error@+1 {{'kiln.full' op result type 'tensor<?x4xf32>' has 1 dynamic dims but 0 sizes were given}}
  %0 = kiln.full 0.0 : tensor<?x4xf32>
  return
}

// -----

func.func @full_too_many_dynamic_sizes(%n: index) {
  // expected-error@+1 {{'kiln.full' op result type 'tensor<3xf32>' has 0 dynamic dims but 2 sizes were given}}
  %0 = kiln.full 0.0 [%n, %n] : tensor<3xf32>
  return
}

// -----

// expected-note@+1 {{prior use here}}
func.func @full_dynamic_size_not_index(%n: i64) {
  // expected-error@+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i64'}}
  %0 = kiln.full 0.0 [%n] : tensor<?xf32>
  return
}

// -----

func.func @full_fraction_for_int() {
  // expected-error@+1 {{'kiln.full' op fill value 5.000000e-01 is not an integer, but the dtype is 'i32'}}
  %0 = kiln.full 0.5 : tensor<3xi32>
  return
}

// -----

func.func @full_nan_for_int() {
  // expected-error@+1 {{'kiln.full' op fill value nan is not an integer, but the dtype is 'i64'}}
  %0 = kiln.full 0x7FF8000000000000 : tensor<3xi64>
  return
}

// -----

func.func @full_out_of_range() {
  // expected-error@+1 {{'kiln.full' op fill value 3.000000e+02 is out of range for 'i8'}}
  %0 = kiln.full 300.0 : tensor<3xi8>
  return
}

// -----

func.func @full_negative_unsigned() {
  // expected-error@+1 {{'kiln.full' op fill value -1.000000e+00 is out of range for 'ui8'}}
  %0 = kiln.full -1.0 : tensor<3xui8>
  return
}

// -----

func.func @full_infinite_for_int() {
  // expected-error@+1 {{'kiln.full' op fill value INF is out of range for 'i64'}}
  %0 = kiln.full 0x7FF0000000000000 : tensor<3xi64>
  return
}

// -----

func.func @full_not_a_bool() {
  // expected-error@+1 {{'kiln.full' op fill value 2.000000e+00 is not a bool (0 or 1)}}
  %0 = kiln.full 2.0 : tensor<3xi1>
  return
}

// -----

func.func @full_quantized() {
  // expected-error@+1 {{'kiln.full' op result #0 must be ranked tensor of any kiln dtype}}
  %0 = kiln.full 1.0 : tensor<32xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @arange_step_zero() {
  // expected-error@+1 {{'kiln.arange' op step must not be zero}}
  %0 = kiln.arange 0.0, 0.0 : tensor<4xf32>
  return
}

// -----

func.func @arange_not_1d() {
  // expected-error@+1 {{'kiln.arange' op result must be a static 1-D tensor, got 'tensor<2x2xf32>'}}
  %0 = kiln.arange 0.0, 1.0 : tensor<2x2xf32>
  return
}

// -----

func.func @arange_dynamic() {
  // expected-error@+1 {{'kiln.arange' op result must be a static 1-D tensor, got 'tensor<?xi64>'}}
  %0 = kiln.arange 0.0, 1.0 : tensor<?xi64>
  return
}

// -----

func.func @arange_fractional_start_for_int() {
  // expected-error@+1 {{'kiln.arange' op start 5.000000e-01 is not an integer, but the dtype is 'i64'}}
  %0 = kiln.arange 0.5, 1.0 : tensor<4xi64>
  return
}

// -----

func.func @arange_fractional_step_for_int() {
  // expected-error@+1 {{'kiln.arange' op step 2.500000e-01 is not an integer, but the dtype is 'i32'}}
  %0 = kiln.arange 0.0, 0.25 : tensor<4xi32>
  return
}

// -----

func.func @arange_leaves_unsigned_range() {
  // expected-error@+1 {{'kiln.arange' op last value -2.000000e+00 is out of range for 'ui8'}}
  %0 = kiln.arange 4.0, -2.0 : tensor<4xui8>
  return
}

// -----

func.func @arange_of_bool() {
  // expected-error@+1 {{'kiln.arange' op result #0 must be ranked tensor of a numeric (non-bool) dtype, but got 'tensor<2xi1>'}}
  %0 = kiln.arange 0.0, 1.0 : tensor<2xi1>
  return
}

// -----

func.func @eye_not_2d() {
  // expected-error@+1 {{'kiln.eye' op result must be a static 2-D tensor, got 'tensor<3xf32>'}}
  %0 = kiln.eye : tensor<3xf32>
  return
}

// -----

func.func @eye_dynamic() {
  // expected-error@+1 {{'kiln.eye' op result must be a static 2-D tensor, got 'tensor<?x3xf32>'}}
  %0 = kiln.eye : tensor<?x3xf32>
  return
}

// -----

func.func @rand_low_not_below_high() {
  // expected-error@+1 {{'kiln.rand' op needs low < high, got [1.000000e+00, 1.000000e+00)}}
  %0 = kiln.rand seed = 1, 1.0, 1.0 : tensor<4xf32>
  return
}

// -----

func.func @rand_low_above_high() {
  // expected-error@+1 {{'kiln.rand' op needs low < high, got [2.000000e+00, -1.000000e+00)}}
  %0 = kiln.rand seed = 1, 2.0, -1.0 : tensor<4xf32>
  return
}

// -----

func.func @rand_dynamic_sizes() {
  // expected-error@+1 {{'kiln.rand' op result type 'tensor<?xf32>' has 1 dynamic dims but 0 sizes were given}}
  %0 = kiln.rand seed = 1, 0.0, 1.0 : tensor<?xf32>
  return
}

// -----

func.func @rand_of_int() {
  // expected-error@+1 {{'kiln.rand' op result #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<4xi32>'}}
  %0 = kiln.rand seed = 1, 0.0, 1.0 : tensor<4xi32>
  return
}

// -----

func.func @randn_negative_std() {
  // expected-error@+1 {{'kiln.randn' op standard deviation must be >= 0, got -1.000000e+00}}
  %0 = kiln.randn seed = 1, 0.0, -1.0 : tensor<4xf32>
  return
}

// -----

func.func @randn_nan_std() {
  // expected-error@+1 {{'kiln.randn' op standard deviation must be >= 0, got nan}}
  %0 = kiln.randn seed = 1, 0.0, 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

func.func @randn_dynamic_sizes(%n: index) {
  // expected-error@+1 {{'kiln.randn' op result type 'tensor<4xbf16>' has 0 dynamic dims but 1 sizes were given}}
  %0 = kiln.randn seed = 1, 0.0, 1.0 [%n] : tensor<4xbf16>
  return
}

// -----

func.func @randn_of_bool() {
  // expected-error@+1 {{'kiln.randn' op result #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<4xi1>'}}
  %0 = kiln.randn seed = 1, 0.0, 1.0 : tensor<4xi1>
  return
}
