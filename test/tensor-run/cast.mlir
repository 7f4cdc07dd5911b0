// Casts between float, integer, bool and unsigned bytes; the bool and u8
// results are written with NumPy's '|b1' and '|u1'.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 4 1.5 -2.75 3.9 0
// RUN: %python %S/Inputs/npy.py write %t/u.npy u8 4 0 7 200 255
// RUN: tensor-run %s --device flex %t/x.npy %t/u.npy --output-dir %t/flex --print | FileCheck %s
// RUN: tensor-run %s --device cpu %t/x.npy %t/u.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py check %t/cpu/main_1.npy | FileCheck %s --check-prefix=BOOL
// RUN: %python %S/Inputs/npy.py check %t/cpu/main_3.npy | FileCheck %s --check-prefix=U8
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_0.npy %t/cpu/main_0.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_1.npy %t/cpu/main_1.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_2.npy %t/cpu/main_2.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_3.npy %t/cpu/main_3.npy

// Float to integer truncates toward zero.
// CHECK: main_0.npy = [1, -2, 3, 0] (shape [4])
// CHECK-NEXT: main_1.npy = [true, true, true, false] (shape [4])
// CHECK-NEXT: main_2.npy = [0, 7, 200, 255] (shape [4])
// CHECK-NEXT: main_3.npy = [1, 254, 3, 0] (shape [4])
// BOOL: bool (4,) [true, true, true, false]
// U8: u8 (4,) [1, 254, 3, 0]
func.func @main(%x: tensor<4xf32>, %u: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4xf64>, tensor<4xui8>) {
  %0 = kiln.cast %x : tensor<4xf32> -> tensor<4xi32>
  %1 = kiln.cast %x : tensor<4xf32> -> tensor<4xi1>
  %2 = kiln.cast %u : tensor<4xui8> -> tensor<4xf64>
  %3 = kiln.cast %0 : tensor<4xi32> -> tensor<4xui8>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi1>, tensor<4xf64>, tensor<4xui8>
}
