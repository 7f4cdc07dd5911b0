// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of quantize and dequantize (KilnQuantOps.td) and of the
// #kiln.quant encoding that their quantized types carry.

func.func @quantize_changes_shape(%x: tensor<4x64xf32>) {
  // expected-error@+1 {{'kiln.quantize' op changes the shape from [4, 64] to [4, 32]}}
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x32xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  return
}

// -----

func.func @quantize_dynamic_to_static(%x: tensor<?x64xf32>) {
  // expected-error@+1 {{'kiln.quantize' op changes the shape from [?, 64] to [4, 64]}}
  %0 = kiln.quantize %x : tensor<?x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @quantize_int_input(%x: tensor<64xi32>) {
  // expected-error@+1 {{'kiln.quantize' op operand #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<64xi32>'}}
  %0 = kiln.quantize %x : tensor<64xi32> -> tensor<64xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @quantize_without_scheme(%x: tensor<64xf32>) {
  // expected-error@+1 {{'kiln.quantize' op result #0 must be quantized tensor (i8 or i4 with a #kiln.quant encoding), but got 'tensor<64xi8>'}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi8>
  return
}

// -----

func.func @quantize_q4_in_i8(%x: tensor<64xf32>) {
  // expected-error@+1 {{q4 values are stored as i4, not 'i8'}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi8, #kiln.quant<q4, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @quantize_q8_in_i4(%x: tensor<64xf32>) {
  // expected-error@+1 {{q8 values are stored as i8, not 'i4'}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi4, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @quantize_block_does_not_divide(%x: tensor<4x48xf32>) {
  // expected-error@+1 {{last dim 48 is not a multiple of the block size 32}}
  %0 = kiln.quantize %x : tensor<4x48xf32> -> tensor<4x48xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  return
}

// -----

func.func @quantize_block_of_rank0(%x: tensor<f32>) {
  // expected-error@+1 {{per-block quantization needs rank >= 1}}
  %0 = kiln.quantize %x : tensor<f32> -> tensor<i8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  return
}

// -----

func.func @quantize_int_scale(%x: tensor<64xf32>) {
  // expected-error@+1 {{scale dtype must be f64, f32, f16 or bf16, got 'i32'}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi8, #kiln.quant<q8, symmetric, tensor, scale = i32>>
  return
}

// -----

func.func @quantize_zero_block(%x: tensor<64xf32>) {
  // expected-error@+1 {{block size must be positive, got 0}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi8, #kiln.quant<q8, symmetric, block = 0, scale = f32>>
  return
}

// -----

func.func @quantize_asymmetric(%x: tensor<64xf32>) {
  // expected-error@+1 {{only symmetric quantization is supported, got 'asymmetric'}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi8, #kiln.quant<q8, asymmetric, tensor, scale = f32>>
  return
}

// -----

func.func @quantize_q5(%x: tensor<64xf32>) {
  // expected-error@+1 {{expected q8 or q4 quantized values, got 'q5'}}
  %0 = kiln.quantize %x : tensor<64xf32> -> tensor<64xi8, #kiln.quant<q5, symmetric, tensor, scale = f32>>
  return
}

// -----

func.func @quant_encoding_on_float(%x: tensor<64xf32, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  // expected-error@-1 {{q8 values are stored as i8, not 'f32'}}
  return
}

// -----

func.func @dequantize_changes_shape(%q: tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>) {
  // expected-error@+1 {{'kiln.dequantize' op changes the shape from [4, 64] to [256]}}
  %0 = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<256xf32>
  return
}

// -----

func.func @dequantize_plain_input(%q: tensor<64xi8>) {
  // expected-error@+1 {{'kiln.dequantize' op operand #0 must be quantized tensor (i8 or i4 with a #kiln.quant encoding), but got 'tensor<64xi8>'}}
  %0 = kiln.dequantize %q : tensor<64xi8> -> tensor<64xf32>
  return
}

// -----

func.func @dequantize_to_int(%q: tensor<64xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>) {
  // expected-error@+1 {{'kiln.dequantize' op result #0 must be ranked tensor of a float dtype (f64/f32/f16/bf16), but got 'tensor<64xi8>'}}
  %0 = kiln.dequantize %q : tensor<64xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<64xi8>
  return
}
