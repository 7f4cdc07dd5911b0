// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// Reduction axes given as a string property in the generic form.
// CHECK: {{.*}}axes-string-generic.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}Invalid attribute `axes` in property conversion

func.func @f(%a: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = "kiln.sum"(%a) <{axes = "1"}> : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
