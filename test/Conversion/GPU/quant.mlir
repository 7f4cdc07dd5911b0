// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// quantize/dequantize: per-block q8 (fused round trip), a per-tensor q4
// argument, and below every scheme from every float dtype.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED

// CHECK-LABEL: // PTX q8_kernel0_
// CHECK: cvt.rni
func.func @q8(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %q = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  %d = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf32>
  return %d : tensor<4x64xf32>
}

// CHECK-LABEL: // PTX dequant_arg_kernel0_
func.func @dequant_arg(%q: tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>) -> tensor<15xbf16> {
  %d = kiln.dequantize %q : tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<15xbf16>
  return %d : tensor<15xbf16>
}

// Every scheme (q8/q4, per block/per tensor) and scale dtype from f32, and
// each other float dtype with its natural scale dtype. Per-tensor schemes
// compute the scale in a serial launch between parallel ones.

// CHECK-LABEL: // PTX quant_f64_kernel0_
func.func @quant_f64(%x: tensor<4x65xf64>) -> (tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>>, tensor<4x65xf64>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>, tensor<4x65xf64>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>>, tensor<4x65xf64>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>, tensor<4x65xf64>) {
  %v0 = kiln.quantize %x : tensor<4x65xf64> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>>
  %v1 = kiln.dequantize %v0 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>> -> tensor<4x65xf64>
  %v2 = kiln.quantize %x : tensor<4x65xf64> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  %v3 = kiln.dequantize %v2 : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>> -> tensor<4x65xf64>
  %v4 = kiln.quantize %x : tensor<4x65xf64> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>>
  %v5 = kiln.dequantize %v4 : tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>> -> tensor<4x65xf64>
  %v6 = kiln.quantize %x : tensor<4x65xf64> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>
  %v7 = kiln.dequantize %v6 : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>> -> tensor<4x65xf64>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>>, tensor<4x65xf64>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>, tensor<4x65xf64>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>>, tensor<4x65xf64>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>, tensor<4x65xf64>
}

// CHECK-LABEL: // PTX quant_f32_kernel0_
func.func @quant_f32(%x: tensor<4x65xf32>) -> (tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>>, tensor<4x65xf32>) {
  %v0 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>>
  %v1 = kiln.dequantize %v0 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>> -> tensor<4x65xf32>
  %v2 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>>
  %v3 = kiln.dequantize %v2 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>> -> tensor<4x65xf32>
  %v4 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>>
  %v5 = kiln.dequantize %v4 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>> -> tensor<4x65xf32>
  %v6 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>
  %v7 = kiln.dequantize %v6 : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>> -> tensor<4x65xf32>
  %v8 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>>
  %v9 = kiln.dequantize %v8 : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>> -> tensor<4x65xf32>
  %v10 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>>
  %v11 = kiln.dequantize %v10 : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>> -> tensor<4x65xf32>
  %v12 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>>
  %v13 = kiln.dequantize %v12 : tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>> -> tensor<4x65xf32>
  %v14 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>>
  %v15 = kiln.dequantize %v14 : tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>> -> tensor<4x65xf32>
  %v16 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>>
  %v17 = kiln.dequantize %v16 : tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>> -> tensor<4x65xf32>
  %v18 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>
  %v19 = kiln.dequantize %v18 : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>> -> tensor<4x65xf32>
  %v20 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
  %v21 = kiln.dequantize %v20 : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<4x65xf32>
  %v22 = kiln.quantize %x : tensor<4x65xf32> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>>
  %v23 = kiln.dequantize %v22 : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>> -> tensor<4x65xf32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f32>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, tensor<4x65xf32>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>>, tensor<4x65xf32>
}

// CHECK-LABEL: // PTX quant_f16_kernel0_
func.func @quant_f16(%x: tensor<4x65xf16>) -> (tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>>, tensor<4x65xf16>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>>, tensor<4x65xf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>>, tensor<4x65xf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, tensor<4x65xf16>) {
  %v0 = kiln.quantize %x : tensor<4x65xf16> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>>
  %v1 = kiln.dequantize %v0 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>> -> tensor<4x65xf16>
  %v2 = kiln.quantize %x : tensor<4x65xf16> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>>
  %v3 = kiln.dequantize %v2 : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>> -> tensor<4x65xf16>
  %v4 = kiln.quantize %x : tensor<4x65xf16> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>>
  %v5 = kiln.dequantize %v4 : tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>> -> tensor<4x65xf16>
  %v6 = kiln.quantize %x : tensor<4x65xf16> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
  %v7 = kiln.dequantize %v6 : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<4x65xf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = f16>>, tensor<4x65xf16>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = f16>>, tensor<4x65xf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = f16>>, tensor<4x65xf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, tensor<4x65xf16>
}

// CHECK-LABEL: // PTX quant_bf16_kernel0_
func.func @quant_bf16(%x: tensor<4x65xbf16>) -> (tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>>, tensor<4x65xbf16>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>>, tensor<4x65xbf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>>, tensor<4x65xbf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>>, tensor<4x65xbf16>) {
  %v0 = kiln.quantize %x : tensor<4x65xbf16> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>>
  %v1 = kiln.dequantize %v0 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>> -> tensor<4x65xbf16>
  %v2 = kiln.quantize %x : tensor<4x65xbf16> -> tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>>
  %v3 = kiln.dequantize %v2 : tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>> -> tensor<4x65xbf16>
  %v4 = kiln.quantize %x : tensor<4x65xbf16> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>>
  %v5 = kiln.dequantize %v4 : tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>> -> tensor<4x65xbf16>
  %v6 = kiln.quantize %x : tensor<4x65xbf16> -> tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>>
  %v7 = kiln.dequantize %v6 : tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>> -> tensor<4x65xbf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : tensor<4x65xi8, #kiln.quant<q8, symmetric, block = 5, scale = bf16>>, tensor<4x65xbf16>, tensor<4x65xi8, #kiln.quant<q8, symmetric, tensor, scale = bf16>>, tensor<4x65xbf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, block = 5, scale = bf16>>, tensor<4x65xbf16>, tensor<4x65xi4, #kiln.quant<q4, symmetric, tensor, scale = bf16>>, tensor<4x65xbf16>
}

