// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A result type that does not match the inferred one.
// CHECK: {{.*}}wrong-result-type.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x2xf32> {
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
