// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// Scales are floats.
// CHECK: {{.*}}quant-scale-int.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}scale dtype must be f64, f32, f16 or bf16, got 'i32'

func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = i32>> {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = i32>>
  return %0 : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = i32>>
}
