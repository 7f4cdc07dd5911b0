// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The file ends in the middle of the axes of a reduction.
// CHECK: {{.*}}truncated-mid-attribute.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected integer value

func.func @f(%a: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = kiln.sum %a [1, 