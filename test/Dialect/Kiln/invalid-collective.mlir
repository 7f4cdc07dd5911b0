// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the collectives (KilnCollectiveOps.td).

func.func @mean_of_integers(%x: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.all_reduce' op takes the mean of a float tensor, not of 'tensor<4xi64>' (sum integers, then divide)}}
  %0 = kiln.all_reduce mean %x : tensor<4xi64>
  return
}

// -----

func.func @f16_is_not_reduced(%x: tensor<4xf16>) {
  // expected-error@+1 {{'kiln.all_reduce' op operand #0 must be ranked tensor of f64, f32, i64 or i32}}
  %0 = kiln.all_reduce sum %x : tensor<4xf16>
  return
}

// -----

func.func @start_mean_of_integers(%x: tensor<4xi32>) {
  // expected-error@+1 {{'kiln.all_reduce_start' op takes the mean of a float tensor}}
  %t = kiln.all_reduce_start mean %x : tensor<4xi32>
  %0 = kiln.all_reduce_wait %t : tensor<4xi32>
  return
}

// -----

func.func @token_read_by_other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'kiln.all_reduce_start' op token is read by kiln.exp; only kiln.all_reduce_wait may read it}}
  %t = kiln.all_reduce_start sum %x : tensor<4xf32>
  %0 = kiln.exp %t : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @token_waited_twice(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.all_reduce_start' op token has 2 waits; an all-reduce is waited for once}}
  %t = kiln.all_reduce_start sum %x : tensor<4xf32>
  %0 = kiln.all_reduce_wait %t : tensor<4xf32>
  %1 = kiln.all_reduce_wait %t : tensor<4xf32>
  return
}

// -----

func.func @wait_without_start(%x: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.all_reduce_wait' op waits for a value that no kiln.all_reduce_start made}}
  %0 = kiln.all_reduce_wait %x : tensor<4xf32>
  return
}
