// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// An axis far out of range in the generic form.
// CHECK: {{.*}}axis-huge.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}out of range

func.func @f(%a: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = "kiln.softmax"(%a) <{axis = 9223372036854775807 : i64}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
