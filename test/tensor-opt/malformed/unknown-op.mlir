// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// kiln.frobnicate is not an op of the kiln dialect.
// CHECK: {{.*}}unknown-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}custom op 'kiln.frobnicate' is unknown

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.frobnicate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
