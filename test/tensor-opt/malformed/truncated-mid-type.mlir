// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The file ends in the middle of a tensor type.
// CHECK: {{.*}}truncated-mid-type.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected non-function type

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.exp %a : tensor<4x