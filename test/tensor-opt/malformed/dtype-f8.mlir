// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// An 8-bit float is not a kiln dtype.
// CHECK: {{.*}}dtype-f8.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}must be ranked tensor of

func.func @f(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %0 = kiln.neg %a : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}
