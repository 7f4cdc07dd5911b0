// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Shape ops, each followed by arithmetic so that a kernel is left to run.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED

// CHECK-LABEL: // PTX shape_kernel0_
// CHECK: .visible .entry shape_kernel0_
func.func @shape(%a: tensor<2x3xf32>, %c: tensor<6xi1>, %d: tensor<f16>, %e: tensor<3xf32>, %s: tensor<4x6xf32>, %v: tensor<2xf32>, %w: tensor<5xf32>, %one: tensor<1x3x1xf32>, %g: tensor<f64>) -> (tensor<3x2xf32>, tensor<1x2x3xi1>, tensor<1x1xf16>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x5xf32>, tensor<5xf32>, tensor<3xf32>, tensor<1x1xf64>) {
  %0 = kiln.reshape %a [3, -1] : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = kiln.exp %0 : tensor<3x2xf32>
  %1 = kiln.reshape %c [1, 2, 3] : tensor<6xi1> -> tensor<1x2x3xi1>
  %n = kiln.not %1 : tensor<1x2x3xi1>
  %2 = kiln.reshape %d [1, 1] : tensor<f16> -> tensor<1x1xf16>
  %h = kiln.neg %2 : tensor<1x1xf16>
  %3 = kiln.permute %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %p = kiln.neg %3 : tensor<3x2xf32>
  %4 = kiln.expand %e [2, 3] : tensor<3xf32> -> tensor<2x3xf32>
  %x = kiln.neg %4 : tensor<2x3xf32>
  %5 = kiln.slice %s [0, 1] [4, 6] [2, 1] : tensor<4x6xf32> -> tensor<2x5xf32>
  %y = kiln.neg %5 : tensor<2x5xf32>
  %6 = kiln.slice_assign %v into %w [0] [2] [1] : (tensor<2xf32>, tensor<5xf32>) -> tensor<5xf32>
  %z = kiln.neg %6 : tensor<5xf32>
  %7 = kiln.squeeze %one [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  %q = kiln.neg %7 : tensor<3xf32>
  %8 = kiln.unsqueeze %g [0, 1] : tensor<f64> -> tensor<1x1xf64>
  %u = kiln.neg %8 : tensor<1x1xf64>
  return %r, %n, %h, %p, %x, %y, %z, %q, %u : tensor<3x2xf32>, tensor<1x2x3xi1>, tensor<1x1xf16>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x5xf32>, tensor<5xf32>, tensor<3xf32>, tensor<1x1xf64>
}

// CHECK-LABEL: // PTX more_kernel0_
// CHECK: .visible .entry more_kernel0_
func.func @more(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %t: tensor<3x4xf32>, %k: tensor<6x8xbf16>, %i: tensor<16xi8>, %m: tensor<2x2xi1>, %n: tensor<4x4xi32>) -> (tensor<3x3xf32>, tensor<2x6xf32>, tensor<2x4xf32>, tensor<1x4xf32>, tensor<6x2xbf16>, tensor<6x6xbf16>, tensor<2x3xf32>, tensor<16xi8>, tensor<4x3xf32>, tensor<6x4xi1>, tensor<2x6xf32>, tensor<6x4xi32>) {
  %0 = kiln.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %1 = kiln.concat %a, %a axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %2:2 = kiln.split %t [2, 1] axis = 0 : tensor<3x4xf32> -> tensor<2x4xf32>, tensor<1x4xf32>
  %3:2 = kiln.split %k [2, 6] axis = 1 : tensor<6x8xbf16> -> tensor<6x2xbf16>, tensor<6x6xbf16>
  %4 = kiln.flip %a [0, 1] : tensor<2x3xf32>
  %5 = kiln.flip %i [0] : tensor<16xi8>
  %6 = kiln.repeat %a [2, 1] : tensor<2x3xf32> -> tensor<4x3xf32>
  %7 = kiln.repeat %m [3, 2] : tensor<2x2xi1> -> tensor<6x4xi1>
  %8 = kiln.pad %a low [0, 1] high [0, 2] value 0.0 : tensor<2x3xf32> -> tensor<2x6xf32>
  %9 = kiln.pad %n low [1, 0] high [1, 0] value -1.0 : tensor<4x4xi32> -> tensor<6x4xi32>
  %e0 = kiln.exp %0 : tensor<3x3xf32>
  %e1 = kiln.exp %1 : tensor<2x6xf32>
  %e2 = kiln.exp %2#0 : tensor<2x4xf32>
  %e3 = kiln.exp %2#1 : tensor<1x4xf32>
  %e4 = kiln.exp %3#0 : tensor<6x2xbf16>
  %e5 = kiln.exp %3#1 : tensor<6x6xbf16>
  %e6 = kiln.exp %4 : tensor<2x3xf32>
  %e8 = kiln.exp %6 : tensor<4x3xf32>
  %e9 = kiln.exp %8 : tensor<2x6xf32>
  return %e0, %e1, %e2, %e3, %e4, %e5, %e6, %5, %e8, %7, %e9, %9 : tensor<3x3xf32>, tensor<2x6xf32>, tensor<2x4xf32>, tensor<1x4xf32>, tensor<6x2xbf16>, tensor<6x6xbf16>, tensor<2x3xf32>, tensor<16xi8>, tensor<4x3xf32>, tensor<6x4xi1>, tensor<2x6xf32>, tensor<6x4xi32>
}
