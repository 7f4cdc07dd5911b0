// Reductions over the last axis, the first axis and all axes (a rank-0
// result, written as a .npy with shape ()).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2x3 1 -2 3 4 5 -6
// RUN: tensor-run %s --device flex %t/x.npy --output-dir %t/flex --print | FileCheck %s
// RUN: tensor-run %s --device cpu %t/x.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py check %t/cpu/main_2.npy | FileCheck %s --check-prefix=FILE
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_0.npy %t/cpu/main_0.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_1.npy %t/cpu/main_1.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_2.npy %t/cpu/main_2.npy

// CHECK: main_0.npy = [2, 3] (shape [2])
// CHECK-NEXT: main_1.npy = [4, 5, 3] (shape [3])
// CHECK-NEXT: main_2.npy = [5] (shape [])
// FILE: f32 () [5]
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<f32>) {
  %0 = kiln.sum %x [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = kiln.reduce_max %x [0] : tensor<2x3xf32> -> tensor<3xf32>
  %2 = kiln.sum %x [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2xf32>, tensor<3xf32>, tensor<f32>
}
