// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The file ends inside a function body, after a complete op.
// CHECK: {{.*}}truncated-mid-region.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected operation name in quotes

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.exp %a : tensor<4xf32>
