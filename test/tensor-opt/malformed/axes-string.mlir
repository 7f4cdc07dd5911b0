// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// Reduction axes written as a string.
// CHECK: {{.*}}axes-string.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected '['

func.func @f(%a: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = kiln.sum %a "1" : tensor<4x5xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
