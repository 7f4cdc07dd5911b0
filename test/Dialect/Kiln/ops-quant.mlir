// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnQuantOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @quantize(
func.func @quantize(%x: tensor<4x64xf32>, %y: tensor<16xf16>, %z: tensor<?x32xbf16>, %w: tensor<2x?xf64>) {
  // CHECK: kiln.quantize %arg0 : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  // CHECK: kiln.quantize %arg1 : tensor<16xf16> -> tensor<16xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
  %1 = kiln.quantize %y : tensor<16xf16> -> tensor<16xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
  // CHECK: kiln.quantize %arg2 : tensor<?x32xbf16> -> tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>>
  %2 = kiln.quantize %z : tensor<?x32xbf16> -> tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>>
  // CHECK: kiln.quantize %arg3 : tensor<2x?xf64> -> tensor<2x?xi8, #kiln.quant<q8, symmetric, block = 8, scale = f64>>
  %3 = kiln.quantize %w : tensor<2x?xf64> -> tensor<2x?xi8, #kiln.quant<q8, symmetric, block = 8, scale = f64>>
  return
}
// CHECK-LABEL: func.func @dequantize(
func.func @dequantize(%q: tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>, %r: tensor<16xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>, %s: tensor<i8, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  // CHECK: kiln.dequantize %arg0 : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf32>
  %0 = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf32>
  // CHECK: kiln.dequantize %arg0 : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf16>
  %1 = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf16>
  // CHECK: kiln.dequantize %arg1 : tensor<16xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<16xbf16>
  %2 = kiln.dequantize %r : tensor<16xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<16xbf16>
  // CHECK: kiln.dequantize %arg2 : tensor<i8, #kiln.quant<q8, symmetric, tensor, scale = f32>> -> tensor<f64>
  %3 = kiln.dequantize %s : tensor<i8, #kiln.quant<q8, symmetric, tensor, scale = f32>> -> tensor<f64>
  return
}
