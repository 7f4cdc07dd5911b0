// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A slice with a negative step.
// CHECK: {{.*}}negative-step.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}step -1 of dim 0 must be >= 1

func.func @f(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = kiln.slice %a [0] [8] [-1] : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
