// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A reshape with two -1 dims.
// CHECK: {{.*}}reshape-two-infer.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}has more than one -1

func.func @f(%a: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %0 = kiln.reshape %a [-1, -1] : tensor<2x3xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
