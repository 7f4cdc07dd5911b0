// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A dense literal with the wrong number of elements.
// CHECK: {{.*}}dense-count.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}inferred shape of elements literal

func.func @f() -> tensor<3xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<3xf32>
  return %0 : tensor<3xf32>
}
