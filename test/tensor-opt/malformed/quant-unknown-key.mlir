// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// An unknown key inside #kiln.quant.
// CHECK: {{.*}}quant-unknown-key.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected 'tensor' or 'block = N'

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi8, #kiln.quant<q8, symmetric, group = 32, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, group = 32, scale = f32>>
  return %0 : tensor<4x64xi8, #kiln.quant<q8, symmetric, group = 32, scale = f32>>
}
