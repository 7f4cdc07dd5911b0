// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A use of a value that is never defined.
// CHECK: {{.*}}undefined-value.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}use of undeclared SSA value name

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
