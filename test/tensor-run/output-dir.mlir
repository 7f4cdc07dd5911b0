// Outputs of every .npy dtype and of rank 0, 1 and 2 are written as NumPy
// writes them (npy.py check enforces the header's form and padding), can be
// read back as inputs, and --output-dir creates missing directories.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2x2 1 -2 3.5 0
// RUN: tensor-run %s %t/x.npy --output-dir %t/a/b/c
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_0.npy | FileCheck %s --check-prefix=F64
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_1.npy | FileCheck %s --check-prefix=F32
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_2.npy | FileCheck %s --check-prefix=F16
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_3.npy | FileCheck %s --check-prefix=I64
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_4.npy | FileCheck %s --check-prefix=I32
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_5.npy | FileCheck %s --check-prefix=I16
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_6.npy | FileCheck %s --check-prefix=I8
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_7.npy | FileCheck %s --check-prefix=U8
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_8.npy | FileCheck %s --check-prefix=BOOL
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_9.npy | FileCheck %s --check-prefix=SCALAR
// RUN: %python %S/Inputs/npy.py check %t/a/b/c/main_10.npy | FileCheck %s --check-prefix=VECTOR
// F64: f64 (2, 2) [1, -2, 3.5, 0]
// F32: f32 (2, 2) [1, -2, 3.5, 0]
// F16: f16 (2, 2) [1, -2, 3.5, 0]
// I64: i64 (2, 2) [1, -2, 3, 0]
// I32: i32 (2, 2) [1, -2, 3, 0]
// I16: i16 (2, 2) [1, -2, 3, 0]
// I8: i8 (2, 2) [1, -2, 3, 0]
// U8: u8 (2, 2) [1, 254, 3, 0]
// BOOL: bool (2, 2) [true, true, true, false]
// SCALAR: f32 () [2.5]
// VECTOR: f32 (2,) [4.5, -2]

// Each output fed back in as an input: the round trip keeps every value.
// RUN: tensor-run %s --function identity %t/a/b/c/main_0.npy %t/a/b/c/main_1.npy %t/a/b/c/main_2.npy %t/a/b/c/main_3.npy %t/a/b/c/main_4.npy %t/a/b/c/main_5.npy %t/a/b/c/main_6.npy %t/a/b/c/main_7.npy %t/a/b/c/main_8.npy %t/a/b/c/main_9.npy %t/a/b/c/main_10.npy --output-dir %t/again
// RUN: %python %S/Inputs/npy.py compare %t/a/b/c/main_0.npy %t/again/identity_0.npy
// RUN: %python %S/Inputs/npy.py compare %t/a/b/c/main_2.npy %t/again/identity_2.npy
// RUN: %python %S/Inputs/npy.py compare %t/a/b/c/main_7.npy %t/again/identity_7.npy
// RUN: %python %S/Inputs/npy.py compare %t/a/b/c/main_8.npy %t/again/identity_8.npy
// RUN: %python %S/Inputs/npy.py compare %t/a/b/c/main_9.npy %t/again/identity_9.npy
// RUN: %python %S/Inputs/npy.py compare %t/a/b/c/main_10.npy %t/again/identity_10.npy
// A result computed from an output of an earlier run.
// RUN: tensor-run %s --function twice --input %arg0=%t/a/b/c/main_1.npy --output-dir %t/again --print | FileCheck %s --check-prefix=TWICE
// TWICE: twice_0.npy = [2, -4, 7, 0] (shape [2, 2])
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf64>, tensor<2x2xf32>, tensor<2x2xf16>, tensor<2x2xi64>, tensor<2x2xi32>, tensor<2x2xi16>, tensor<2x2xi8>, tensor<2x2xui8>, tensor<2x2xi1>, tensor<f32>, tensor<2xf32>) {
  %0 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xf64>
  %1 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xf16>
  %2 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xi64>
  %3 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xi32>
  %4 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xi16>
  %5 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xi8>
  %6 = kiln.cast %5 : tensor<2x2xi8> -> tensor<2x2xui8>
  %7 = kiln.cast %x : tensor<2x2xf32> -> tensor<2x2xi1>
  %8 = kiln.sum %x [0, 1] : tensor<2x2xf32> -> tensor<f32>
  %9 = kiln.sum %x [0] : tensor<2x2xf32> -> tensor<2xf32>
  return %0, %x, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x2xf64>, tensor<2x2xf32>, tensor<2x2xf16>, tensor<2x2xi64>, tensor<2x2xi32>, tensor<2x2xi16>, tensor<2x2xi8>, tensor<2x2xui8>, tensor<2x2xi1>, tensor<f32>, tensor<2xf32>
}

func.func @identity(%a: tensor<2x2xf64>, %b: tensor<2x2xf32>, %c: tensor<2x2xf16>, %d: tensor<2x2xi64>, %e: tensor<2x2xi32>, %f: tensor<2x2xi16>, %g: tensor<2x2xi8>, %h: tensor<2x2xui8>, %i: tensor<2x2xi1>, %j: tensor<f32>, %k: tensor<2xf32>) -> (tensor<2x2xf64>, tensor<2x2xf32>, tensor<2x2xf16>, tensor<2x2xi64>, tensor<2x2xi32>, tensor<2x2xi16>, tensor<2x2xi8>, tensor<2x2xui8>, tensor<2x2xi1>, tensor<f32>, tensor<2xf32>) {
  return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k : tensor<2x2xf64>, tensor<2x2xf32>, tensor<2x2xf16>, tensor<2x2xi64>, tensor<2x2xi32>, tensor<2x2xi16>, tensor<2x2xi8>, tensor<2x2xui8>, tensor<2x2xi1>, tensor<f32>, tensor<2xf32>
}

func.func @twice(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = kiln.add %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
