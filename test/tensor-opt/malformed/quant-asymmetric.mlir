// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// Only symmetric quantization is supported.
// CHECK: {{.*}}quant-asymmetric.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}only symmetric quantization is supported, got 'asymmetric'

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi8, #kiln.quant<q8, asymmetric, block = 32, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, asymmetric, block = 32, scale = f32>>
  return %0 : tensor<4x64xi8, #kiln.quant<q8, asymmetric, block = 32, scale = f32>>
}
