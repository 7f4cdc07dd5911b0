// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// Kiln tensors are ranked.
// CHECK: {{.*}}dtype-unranked.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}invalid kind of type specified: expected builtin.tensor

func.func @f(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = kiln.exp %a : tensor<*xf32>
  return %0 : tensor<*xf32>
}
