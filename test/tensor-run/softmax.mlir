// Softmax (one row kernel on the Cpu backend) against hand-computed values.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2x4 0 1 2 3 1 1 1 1
// RUN: tensor-run %s --device flex %t/x.npy --output-dir %t/flex --print | FileCheck %s
// RUN: tensor-run %s --device cpu %t/x.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py compare --tol 1e-6 %t/flex/main_0.npy %t/cpu/main_0.npy

// exp(0..3) / 31.1929; a constant row is uniform.
// CHECK: main_0.npy = [0.032058{{[0-9]}}, 0.087144{{[0-9]}}, 0.23688{{[0-9]}}, 0.64391{{[0-9]}}, 0.25, 0.25, 0.25, 0.25] (shape [2, 4])
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = kiln.softmax %x axis = 1 : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
