// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// i3 is not a kiln dtype.
// CHECK: {{.*}}dtype-i3.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}must be ranked tensor of

func.func @f(%a: tensor<4xi3>) -> tensor<4xi3> {
  %0 = kiln.abs %a : tensor<4xi3>
  return %0 : tensor<4xi3>
}
