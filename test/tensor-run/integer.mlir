// Integer arithmetic: i32 with a broadcast, i64 max, and i8 wrapping.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/a.npy i32 2x2 1 -2 3 -4
// RUN: %python %S/Inputs/npy.py write %t/b.npy i32 2 10 20
// RUN: %python %S/Inputs/npy.py write %t/c.npy i64 3 -5 9000000000 7
// RUN: %python %S/Inputs/npy.py write %t/d.npy i8 3 100 -100 5
// RUN: tensor-run %s --device flex %t/a.npy %t/b.npy %t/c.npy %t/d.npy --output-dir %t/flex --print | FileCheck %s
// RUN: tensor-run %s --device cpu %t/a.npy %t/b.npy %t/c.npy %t/d.npy --output-dir %t/cpu --print | FileCheck %s
// RUN: %python %S/Inputs/npy.py check %t/cpu/main_2.npy | FileCheck %s --check-prefix=I8
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_0.npy %t/cpu/main_0.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_1.npy %t/cpu/main_1.npy
// RUN: %python %S/Inputs/npy.py compare %t/flex/main_2.npy %t/cpu/main_2.npy

// CHECK: main_0.npy = [11, -36, 39, -64] (shape [2, 2])
// CHECK-NEXT: main_1.npy = [7, 9000000000, 7] (shape [3])
// CHECK-NEXT: main_2.npy = [-56, 56, 10] (shape [3])
// I8: i8 (3,) [-56, 56, 10]
func.func @main(%a: tensor<2x2xi32>, %b: tensor<2xi32>, %c: tensor<3xi64>, %d: tensor<3xi8>) -> (tensor<2x2xi32>, tensor<3xi64>, tensor<3xi8>) {
  %0 = kiln.add %a, %b : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  %1 = kiln.mul %0, %a : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %k = kiln.constant dense<7> : tensor<i64>
  %2 = kiln.max %c, %k : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %3 = kiln.add %d, %d : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %1, %2, %3 : tensor<2x2xi32>, tensor<3xi64>, tensor<3xi8>
}
