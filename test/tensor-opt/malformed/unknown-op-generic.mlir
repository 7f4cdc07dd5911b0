// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The generic form of an unknown kiln op.
// CHECK: {{.*}}unknown-op-generic.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}unregistered operation 'kiln.frobnicate'

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "kiln.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
