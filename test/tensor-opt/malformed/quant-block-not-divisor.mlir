// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The last dim (60) is not a multiple of the block (32).
// CHECK: {{.*}}quant-block-not-divisor.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}last dim 60 is not a multiple of the block size 32

func.func @f(%x: tensor<4x60xf32>) -> tensor<4x60xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> {
  %0 = kiln.quantize %x : tensor<4x60xf32> -> tensor<4x60xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  return %0 : tensor<4x60xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
}
