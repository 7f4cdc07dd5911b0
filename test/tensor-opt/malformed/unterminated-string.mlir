// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A string attribute that never ends.
// CHECK: {{.*}}unterminated-string.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected '"' in string literal

func.func @f() attributes {name = "never closed} {
  return
}
