// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// q5 is not a kiln quantization scheme.
// CHECK: {{.*}}quant-q5.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected q8 or q4 quantized values, got 'q5'

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi8, #kiln.quant<q5, symmetric, block = 32, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q5, symmetric, block = 32, scale = f32>>
  return %0 : tensor<4x64xi8, #kiln.quant<q5, symmetric, block = 32, scale = f32>>
}
