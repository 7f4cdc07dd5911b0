// An elementwise chain with a row broadcast and a rank-0 operand, on Flex
// and on the Cpu JIT: the same printed values, the same files.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2x3 1 2 3 4 5 6
// RUN: %python %S/Inputs/npy.py write %t/b.npy f32 3 10 20 30
// RUN: %python %S/Inputs/npy.py write %t/s.npy f32 scalar 2
// RUN: tensor-run %s --device flex %t/x.npy %t/b.npy %t/s.npy --output-dir %t/flex --print | FileCheck %s
// RUN: tensor-run %s --device cpu %t/x.npy %t/b.npy %t/s.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_0.npy %t/cpu/main_0.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_1.npy %t/cpu/main_1.npy

// CHECK: main_0.npy = [22, 44, 66, 28, 50, 72] (shape [2, 3])
// CHECK-NEXT: main_1.npy = [-1, 0, 1, 2, 3, 4] (shape [2, 3])
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.mul %0, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = kiln.sub %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>
}
