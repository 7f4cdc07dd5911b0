// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A string with an invalid escape.
// CHECK: {{.*}}bad-escape.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}unknown escape in string literal

func.func @f() attributes {name = "bad \q escape"} {
  return
}
