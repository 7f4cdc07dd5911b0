// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// index is not a kiln dtype.
// CHECK: {{.*}}dtype-index.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}must be ranked tensor of

func.func @f(%a: tensor<4xindex>) -> tensor<4xindex> {
  %0 = kiln.add %a, %a : (tensor<4xindex>, tensor<4xindex>) -> tensor<4xindex>
  return %0 : tensor<4xindex>
}
