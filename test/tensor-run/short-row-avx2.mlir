// A layer_norm feeding a log_softmax of 4 elements: one row kernel whose
// loops LLVM unrolls fully, over operands that do not vary from unit to
// unit. Compiled for AVX2 (KILN_CPU_ISA=avx2) with an empty disk cache,
// it once never finished (docs/cpu-codegen.md); KILN_COMPILE_TIMEOUT makes
// a hang fail here and print the graph. Checked against Flex and against
// values computed by hand.
// REQUIRES: avx2
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 4 0.5 -1 2 0.25
// RUN: %python %S/Inputs/npy.py write %t/w.npy f32 4 1 2 0.5 1
// RUN: %python %S/Inputs/npy.py write %t/b.npy f32 4 0 0.1 0.2 -0.3
// RUN: tensor-run %s --device flex %t/x.npy %t/w.npy %t/b.npy --output-dir %t/flex --print | FileCheck %s
// RUN: env KILN_CPU_ISA=avx2 KILN_COMPILE_TIMEOUT=60 KILN_CACHE_DIR=%t/cache tensor-run %s --device cpu %t/x.npy %t/w.npy %t/b.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py compare --tol 1e-5 %t/flex/main_0.npy %t/cpu/main_0.npy

// Mean 0.4375 and variance 1.13671875 give layer_norm values
// [0.05862, -2.59660, 0.93277, -0.47587]; log_softmax subtracts 1.45811.
// CHECK: main_0.npy = [-1.3994{{[0-9]}}, -4.0546{{[0-9]}}, -0.52533{{[0-9]}}, -1.9339{{[0-9]}}] (shape [4])
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.layer_norm %x weight %w bias %b eps 1.000000e-05 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln.log_softmax %0 axis = 0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
