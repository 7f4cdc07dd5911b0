// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A block of 0 elements.
// CHECK: {{.*}}quant-block-zero.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}block size must be positive, got 0

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 0, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 0, scale = f32>>
  return %0 : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 0, scale = f32>>
}
