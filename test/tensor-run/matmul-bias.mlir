// A matmul with a bias and relu epilogue (one matmul kernel on Cpu).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/a.npy f32 2x3 1 2 3 4 5 6
// RUN: %python %S/Inputs/npy.py write %t/w.npy f32 3x2 1 0 0 1 1 -3
// RUN: %python %S/Inputs/npy.py write %t/b.npy f32 2 0.5 -0.5
// RUN: tensor-run %s --device flex %t/a.npy %t/w.npy %t/b.npy --output-dir %t/flex --print | FileCheck %s
// RUN: tensor-run %s --device cpu %t/a.npy %t/w.npy %t/b.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_0.npy %t/cpu/main_0.npy

// a @ w = [[4, -7], [10, -13]]; + b; relu.
// CHECK: main_0.npy = [4.5, 0, 10.5, 0] (shape [2, 2])
func.func @main(%a: tensor<2x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %0 = kiln.matmul %a, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = kiln.add %0, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %2 = kiln.relu %1 : tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}
