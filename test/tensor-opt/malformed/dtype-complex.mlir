// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// complex<f32> is not a kiln dtype.
// CHECK: {{.*}}dtype-complex.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}must be ranked tensor of

func.func @f(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = kiln.exp %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
