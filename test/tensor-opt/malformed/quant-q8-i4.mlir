// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// q8 values are stored as i8.
// CHECK: {{.*}}quant-q8-i4.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}q8 values are stored as i8, not 'i4'

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi4, #kiln.quant<q8, symmetric, block = 32, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi4, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  return %0 : tensor<4x64xi4, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
}
