// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of kiln.matmul (KilnLinalgOps.td).

func.func @matmul_rank1(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+2 {{'kiln.matmul' op needs operands of rank >= 2, got [3] and [3, 4]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_rank0(%a: tensor<2x3xf32>, %b: tensor<f32>) {
  // expected-error@+2 {{'kiln.matmul' op needs operands of rank >= 2, got [2, 3] and []}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+2 {{'kiln.matmul' op contraction dims differ: [2, 3] x [4, 5] (3 vs 4)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error@+2 {{'kiln.matmul' op batch dims: cannot broadcast shapes [2] and [5] (dim 0: 2 vs 5)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return
}

// -----

func.func @matmul_dtype_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4xbf16>) {
  // expected-error@+2 {{'kiln.matmul' op dtype mismatch between operands (f32[2, 3], bf16[3, 4])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+2 {{'kiln.matmul' op inferred type(s) 'tensor<?x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_of_bool(%a: tensor<2x2xi1>) {
  // expected-error@+1 {{'kiln.matmul' op operand #0 must be ranked tensor of a numeric (non-bool) dtype, but got 'tensor<2x2xi1>'}}
  %0 = kiln.matmul %a, %a : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return
}

// -----

// A quantized weight is dequantized first (the fuser puts the two together).
func.func @matmul_of_quantized(%a: tensor<2x32xf32>, %q: tensor<32x4xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  // expected-error@+1 {{'kiln.matmul' op operand #1 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.matmul %a, %q : (tensor<2x32xf32>, tensor<32x4xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) -> tensor<2x4xf32>
  return
}
