// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The file ends inside a dense literal.
// CHECK: {{.*}}truncated-mid-dense.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected ']'

func.func @f() -> tensor<2xf32> {
  %0 = kiln.constant dense<[1.0, 2.