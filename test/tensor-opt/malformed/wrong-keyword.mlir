// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// concat spells its axis `axis = N`, not `dim = N`.
// CHECK: {{.*}}wrong-keyword.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected 'axis'

func.func @f(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = kiln.concat %a, %a dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
