// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// gelu knows `none` and `tanh` approximations only.
// CHECK: {{.*}}wrong-enum.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.gelu %a approximate = fast : tensor<4xf32>
  return %0 : tensor<4xf32>
}
