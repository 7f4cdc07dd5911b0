// A function that parses but does not verify: the verifier's diagnostic
// with file:line:col, then tensor-run's error, and exit status 1. Only the
// function that runs has to verify.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2
// RUN: %python %S/Inputs/npy.py write %t/y.npy f32 3
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/x.npy %t/y.npy --output-dir %t 2>&1 | FileCheck %s
// RUN: tensor-run %s --function ok %t/x.npy --output-dir %t --print | FileCheck %s --check-prefix=OK
// CHECK: invalid-function.mlir:[[@LINE+5]]:{{[0-9]+}}: error: 'kiln.add' op
// CHECK: tensor-run: error: @main in {{.*}}invalid-function.mlir does not verify (see the diagnostic above)
// CHECK-NOT: error
// OK: ok_0.npy = [0, 2] (shape [2])
func.func @main(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {
  %0 = kiln.add %x, %y : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @ok(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
