// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// q4 values are stored as i4.
// CHECK: {{.*}}quant-q4-i8.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}q4 values are stored as i4, not 'i8'

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi8, #kiln.quant<q4, symmetric, block = 32, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q4, symmetric, block = 32, scale = f32>>
  return %0 : tensor<4x64xi8, #kiln.quant<q4, symmetric, block = 32, scale = f32>>
}
