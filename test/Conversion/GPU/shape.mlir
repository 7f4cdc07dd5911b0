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

// Every shape op in every dtype. tensor-opt leaves layout ops (reshape,
// permute, slice, squeeze, unsqueeze, flip) in the graph as views; the
// comparison after each reads them in place.

// CHECK-LABEL: // PTX shape_f64_kernel0_
func.func @shape_f64(%x: tensor<4x6xf64>, %o1: tensor<24xf64>, %o3: tensor<6x4xf64>, %e: tensor<6xf64>, %o5: tensor<4x6xf64>, %o7: tensor<2x5xf64>, %v: tensor<2xf64>, %o9: tensor<6xf64>, %o11: tensor<8x6xf64>, %o13: tensor<3x6xf64>, %one: tensor<1x6x1xf64>, %o15: tensor<6xf64>, %o17: tensor<1x6xf64>, %o19: tensor<4x6xf64>, %o21: tensor<8x6xf64>, %o23: tensor<5x8xf64>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xf64> -> tensor<24xf64>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xf64>, tensor<24xf64>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xf64> -> tensor<6x4xf64>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xf64>, tensor<6x4xf64>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xf64> -> tensor<4x6xf64>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xf64>, tensor<4x6xf64>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xf64> -> tensor<2x5xf64>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xf64>, tensor<2x5xf64>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xf64>, tensor<6xf64>) -> tensor<6xf64>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xf64>, tensor<8x6xf64>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xf64> -> tensor<1x6xf64>, tensor<3x6xf64>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xf64>, tensor<3x6xf64>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xf64> -> tensor<6xf64>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xf64> -> tensor<1x6xf64>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xf64>, tensor<1x6xf64>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xf64>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xf64>, tensor<4x6xf64>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xf64> -> tensor<8x6xf64>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xf64>, tensor<8x6xf64>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xf64> -> tensor<5x8xf64>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xf64>, tensor<5x8xf64>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_f32_kernel0_
func.func @shape_f32(%x: tensor<4x6xf32>, %o1: tensor<24xf32>, %o3: tensor<6x4xf32>, %e: tensor<6xf32>, %o5: tensor<4x6xf32>, %o7: tensor<2x5xf32>, %v: tensor<2xf32>, %o9: tensor<6xf32>, %o11: tensor<8x6xf32>, %o13: tensor<3x6xf32>, %one: tensor<1x6x1xf32>, %o15: tensor<6xf32>, %o17: tensor<1x6xf32>, %o19: tensor<4x6xf32>, %o21: tensor<8x6xf32>, %o23: tensor<5x8xf32>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xf32> -> tensor<24xf32>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xf32>, tensor<24xf32>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xf32> -> tensor<4x6xf32>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xf32> -> tensor<2x5xf32>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xf32>, tensor<6xf32>) -> tensor<6xf32>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xf32> -> tensor<1x6xf32>, tensor<3x6xf32>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xf32> -> tensor<6xf32>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xf32> -> tensor<1x6xf32>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xf32>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xf32> -> tensor<8x6xf32>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xf32> -> tensor<5x8xf32>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_f16_kernel0_
func.func @shape_f16(%x: tensor<4x6xf16>, %o1: tensor<24xf16>, %o3: tensor<6x4xf16>, %e: tensor<6xf16>, %o5: tensor<4x6xf16>, %o7: tensor<2x5xf16>, %v: tensor<2xf16>, %o9: tensor<6xf16>, %o11: tensor<8x6xf16>, %o13: tensor<3x6xf16>, %one: tensor<1x6x1xf16>, %o15: tensor<6xf16>, %o17: tensor<1x6xf16>, %o19: tensor<4x6xf16>, %o21: tensor<8x6xf16>, %o23: tensor<5x8xf16>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xf16> -> tensor<24xf16>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xf16>, tensor<24xf16>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xf16> -> tensor<6x4xf16>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xf16>, tensor<6x4xf16>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xf16> -> tensor<4x6xf16>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xf16>, tensor<4x6xf16>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xf16> -> tensor<2x5xf16>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xf16>, tensor<2x5xf16>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xf16>, tensor<6xf16>) -> tensor<6xf16>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xf16>, tensor<6xf16>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xf16>, tensor<4x6xf16>) -> tensor<8x6xf16>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xf16>, tensor<8x6xf16>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xf16> -> tensor<1x6xf16>, tensor<3x6xf16>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xf16>, tensor<3x6xf16>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xf16> -> tensor<6xf16>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xf16>, tensor<6xf16>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xf16> -> tensor<1x6xf16>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xf16>, tensor<1x6xf16>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xf16>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xf16>, tensor<4x6xf16>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xf16> -> tensor<8x6xf16>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xf16>, tensor<8x6xf16>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xf16> -> tensor<5x8xf16>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xf16>, tensor<5x8xf16>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_bf16_kernel0_
func.func @shape_bf16(%x: tensor<4x6xbf16>, %o1: tensor<24xbf16>, %o3: tensor<6x4xbf16>, %e: tensor<6xbf16>, %o5: tensor<4x6xbf16>, %o7: tensor<2x5xbf16>, %v: tensor<2xbf16>, %o9: tensor<6xbf16>, %o11: tensor<8x6xbf16>, %o13: tensor<3x6xbf16>, %one: tensor<1x6x1xbf16>, %o15: tensor<6xbf16>, %o17: tensor<1x6xbf16>, %o19: tensor<4x6xbf16>, %o21: tensor<8x6xbf16>, %o23: tensor<5x8xbf16>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xbf16> -> tensor<24xbf16>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xbf16>, tensor<24xbf16>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xbf16> -> tensor<6x4xbf16>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xbf16>, tensor<6x4xbf16>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xbf16> -> tensor<4x6xbf16>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xbf16>, tensor<4x6xbf16>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xbf16> -> tensor<2x5xbf16>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xbf16>, tensor<2x5xbf16>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xbf16>, tensor<6xbf16>) -> tensor<6xbf16>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xbf16>, tensor<6xbf16>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xbf16>, tensor<4x6xbf16>) -> tensor<8x6xbf16>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xbf16>, tensor<8x6xbf16>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xbf16> -> tensor<1x6xbf16>, tensor<3x6xbf16>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xbf16>, tensor<3x6xbf16>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xbf16> -> tensor<6xbf16>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xbf16>, tensor<6xbf16>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xbf16> -> tensor<1x6xbf16>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xbf16>, tensor<1x6xbf16>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xbf16>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xbf16>, tensor<4x6xbf16>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xbf16> -> tensor<8x6xbf16>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xbf16>, tensor<8x6xbf16>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xbf16> -> tensor<5x8xbf16>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xbf16>, tensor<5x8xbf16>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_i64_kernel0_
func.func @shape_i64(%x: tensor<4x6xi64>, %o1: tensor<24xi64>, %o3: tensor<6x4xi64>, %e: tensor<6xi64>, %o5: tensor<4x6xi64>, %o7: tensor<2x5xi64>, %v: tensor<2xi64>, %o9: tensor<6xi64>, %o11: tensor<8x6xi64>, %o13: tensor<3x6xi64>, %one: tensor<1x6x1xi64>, %o15: tensor<6xi64>, %o17: tensor<1x6xi64>, %o19: tensor<4x6xi64>, %o21: tensor<8x6xi64>, %o23: tensor<5x8xi64>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xi64> -> tensor<24xi64>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xi64>, tensor<24xi64>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xi64> -> tensor<6x4xi64>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xi64>, tensor<6x4xi64>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xi64> -> tensor<4x6xi64>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xi64>, tensor<4x6xi64>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xi64> -> tensor<2x5xi64>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xi64>, tensor<2x5xi64>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xi64>, tensor<6xi64>) -> tensor<6xi64>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xi64>, tensor<4x6xi64>) -> tensor<8x6xi64>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xi64>, tensor<8x6xi64>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xi64> -> tensor<1x6xi64>, tensor<3x6xi64>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xi64>, tensor<3x6xi64>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xi64> -> tensor<6xi64>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xi64> -> tensor<1x6xi64>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xi64>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xi64>, tensor<4x6xi64>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xi64> -> tensor<8x6xi64>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xi64>, tensor<8x6xi64>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xi64> -> tensor<5x8xi64>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xi64>, tensor<5x8xi64>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_i32_kernel0_
func.func @shape_i32(%x: tensor<4x6xi32>, %o1: tensor<24xi32>, %o3: tensor<6x4xi32>, %e: tensor<6xi32>, %o5: tensor<4x6xi32>, %o7: tensor<2x5xi32>, %v: tensor<2xi32>, %o9: tensor<6xi32>, %o11: tensor<8x6xi32>, %o13: tensor<3x6xi32>, %one: tensor<1x6x1xi32>, %o15: tensor<6xi32>, %o17: tensor<1x6xi32>, %o19: tensor<4x6xi32>, %o21: tensor<8x6xi32>, %o23: tensor<5x8xi32>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xi32> -> tensor<24xi32>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xi32>, tensor<24xi32>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xi32> -> tensor<6x4xi32>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xi32>, tensor<6x4xi32>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xi32> -> tensor<4x6xi32>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xi32> -> tensor<2x5xi32>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xi32>, tensor<2x5xi32>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xi32>, tensor<6xi32>) -> tensor<6xi32>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<8x6xi32>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xi32>, tensor<8x6xi32>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xi32> -> tensor<1x6xi32>, tensor<3x6xi32>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xi32> -> tensor<6xi32>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xi32> -> tensor<1x6xi32>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xi32>, tensor<1x6xi32>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xi32>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xi32> -> tensor<8x6xi32>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xi32>, tensor<8x6xi32>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xi32> -> tensor<5x8xi32>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xi32>, tensor<5x8xi32>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_i16_kernel0_
func.func @shape_i16(%x: tensor<4x6xi16>, %o1: tensor<24xi16>, %o3: tensor<6x4xi16>, %e: tensor<6xi16>, %o5: tensor<4x6xi16>, %o7: tensor<2x5xi16>, %v: tensor<2xi16>, %o9: tensor<6xi16>, %o11: tensor<8x6xi16>, %o13: tensor<3x6xi16>, %one: tensor<1x6x1xi16>, %o15: tensor<6xi16>, %o17: tensor<1x6xi16>, %o19: tensor<4x6xi16>, %o21: tensor<8x6xi16>, %o23: tensor<5x8xi16>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xi16> -> tensor<24xi16>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xi16>, tensor<24xi16>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xi16> -> tensor<6x4xi16>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xi16>, tensor<6x4xi16>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xi16> -> tensor<4x6xi16>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xi16>, tensor<4x6xi16>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xi16> -> tensor<2x5xi16>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xi16>, tensor<2x5xi16>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xi16>, tensor<6xi16>) -> tensor<6xi16>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xi16>, tensor<4x6xi16>) -> tensor<8x6xi16>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xi16>, tensor<8x6xi16>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xi16> -> tensor<1x6xi16>, tensor<3x6xi16>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xi16>, tensor<3x6xi16>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xi16> -> tensor<6xi16>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xi16> -> tensor<1x6xi16>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xi16>, tensor<1x6xi16>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xi16>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xi16>, tensor<4x6xi16>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xi16> -> tensor<8x6xi16>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xi16>, tensor<8x6xi16>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xi16> -> tensor<5x8xi16>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xi16>, tensor<5x8xi16>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_i8_kernel0_
func.func @shape_i8(%x: tensor<4x6xi8>, %o1: tensor<24xi8>, %o3: tensor<6x4xi8>, %e: tensor<6xi8>, %o5: tensor<4x6xi8>, %o7: tensor<2x5xi8>, %v: tensor<2xi8>, %o9: tensor<6xi8>, %o11: tensor<8x6xi8>, %o13: tensor<3x6xi8>, %one: tensor<1x6x1xi8>, %o15: tensor<6xi8>, %o17: tensor<1x6xi8>, %o19: tensor<4x6xi8>, %o21: tensor<8x6xi8>, %o23: tensor<5x8xi8>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xi8> -> tensor<24xi8>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xi8>, tensor<24xi8>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xi8> -> tensor<6x4xi8>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xi8>, tensor<6x4xi8>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xi8> -> tensor<4x6xi8>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xi8> -> tensor<2x5xi8>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xi8>, tensor<2x5xi8>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xi8>, tensor<6xi8>) -> tensor<6xi8>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<8x6xi8>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xi8>, tensor<8x6xi8>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xi8> -> tensor<1x6xi8>, tensor<3x6xi8>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xi8>, tensor<3x6xi8>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xi8> -> tensor<6xi8>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xi8> -> tensor<1x6xi8>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xi8>, tensor<1x6xi8>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xi8>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xi8> -> tensor<8x6xi8>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xi8>, tensor<8x6xi8>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xi8> -> tensor<5x8xi8>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xi8>, tensor<5x8xi8>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_ui8_kernel0_
func.func @shape_ui8(%x: tensor<4x6xui8>, %o1: tensor<24xui8>, %o3: tensor<6x4xui8>, %e: tensor<6xui8>, %o5: tensor<4x6xui8>, %o7: tensor<2x5xui8>, %v: tensor<2xui8>, %o9: tensor<6xui8>, %o11: tensor<8x6xui8>, %o13: tensor<3x6xui8>, %one: tensor<1x6x1xui8>, %o15: tensor<6xui8>, %o17: tensor<1x6xui8>, %o19: tensor<4x6xui8>, %o21: tensor<8x6xui8>, %o23: tensor<5x8xui8>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xui8> -> tensor<24xui8>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xui8>, tensor<24xui8>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xui8> -> tensor<6x4xui8>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xui8>, tensor<6x4xui8>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xui8> -> tensor<4x6xui8>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xui8>, tensor<4x6xui8>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xui8> -> tensor<2x5xui8>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xui8>, tensor<2x5xui8>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xui8>, tensor<6xui8>) -> tensor<6xui8>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xui8>, tensor<4x6xui8>) -> tensor<8x6xui8>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xui8>, tensor<8x6xui8>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xui8> -> tensor<1x6xui8>, tensor<3x6xui8>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xui8>, tensor<3x6xui8>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xui8> -> tensor<6xui8>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xui8> -> tensor<1x6xui8>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xui8>, tensor<1x6xui8>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xui8>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xui8>, tensor<4x6xui8>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xui8> -> tensor<8x6xui8>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xui8>, tensor<8x6xui8>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xui8> -> tensor<5x8xui8>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xui8>, tensor<5x8xui8>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

// CHECK-LABEL: // PTX shape_i1_kernel0_
func.func @shape_i1(%x: tensor<4x6xi1>, %o1: tensor<24xi1>, %o3: tensor<6x4xi1>, %e: tensor<6xi1>, %o5: tensor<4x6xi1>, %o7: tensor<2x5xi1>, %v: tensor<2xi1>, %o9: tensor<6xi1>, %o11: tensor<8x6xi1>, %o13: tensor<3x6xi1>, %one: tensor<1x6x1xi1>, %o15: tensor<6xi1>, %o17: tensor<1x6xi1>, %o19: tensor<4x6xi1>, %o21: tensor<8x6xi1>, %o23: tensor<5x8xi1>) -> (tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>) {
  %v0 = kiln.reshape %x [24] : tensor<4x6xi1> -> tensor<24xi1>
  %v1 = kiln.ne %v0, %o1 : (tensor<24xi1>, tensor<24xi1>) -> tensor<24xi1>
  %v2 = kiln.permute %x [1, 0] : tensor<4x6xi1> -> tensor<6x4xi1>
  %v3 = kiln.ne %v2, %o3 : (tensor<6x4xi1>, tensor<6x4xi1>) -> tensor<6x4xi1>
  %v4 = kiln.expand %e [4, 6] : tensor<6xi1> -> tensor<4x6xi1>
  %v5 = kiln.ne %v4, %o5 : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
  %v6 = kiln.slice %x [0, 1] [4, 6] [2, 1] : tensor<4x6xi1> -> tensor<2x5xi1>
  %v7 = kiln.ne %v6, %o7 : (tensor<2x5xi1>, tensor<2x5xi1>) -> tensor<2x5xi1>
  %v8 = kiln.slice_assign %v into %e [0] [4] [2] : (tensor<2xi1>, tensor<6xi1>) -> tensor<6xi1>
  %v9 = kiln.ne %v8, %o9 : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
  %v10 = kiln.concat %x, %x axis = 0 : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<8x6xi1>
  %v11 = kiln.ne %v10, %o11 : (tensor<8x6xi1>, tensor<8x6xi1>) -> tensor<8x6xi1>
  %v12:2 = kiln.split %x [1, 3] axis = 0 : tensor<4x6xi1> -> tensor<1x6xi1>, tensor<3x6xi1>
  %v13 = kiln.ne %v12#1, %o13 : (tensor<3x6xi1>, tensor<3x6xi1>) -> tensor<3x6xi1>
  %v14 = kiln.squeeze %one [0, 2] : tensor<1x6x1xi1> -> tensor<6xi1>
  %v15 = kiln.ne %v14, %o15 : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
  %v16 = kiln.unsqueeze %e [0] : tensor<6xi1> -> tensor<1x6xi1>
  %v17 = kiln.ne %v16, %o17 : (tensor<1x6xi1>, tensor<1x6xi1>) -> tensor<1x6xi1>
  %v18 = kiln.flip %x [0, 1] : tensor<4x6xi1>
  %v19 = kiln.ne %v18, %o19 : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
  %v20 = kiln.repeat %x [2, 1] : tensor<4x6xi1> -> tensor<8x6xi1>
  %v21 = kiln.ne %v20, %o21 : (tensor<8x6xi1>, tensor<8x6xi1>) -> tensor<8x6xi1>
  %v22 = kiln.pad %x low [1, 0] high [0, 2] value 1.0 : tensor<4x6xi1> -> tensor<5x8xi1>
  %v23 = kiln.ne %v22, %o23 : (tensor<5x8xi1>, tensor<5x8xi1>) -> tensor<5x8xi1>
  return %v1, %v3, %v5, %v7, %v9, %v11, %v13, %v15, %v17, %v19, %v21, %v23 : tensor<24xi1>, tensor<6x4xi1>, tensor<4x6xi1>, tensor<2x5xi1>, tensor<6xi1>, tensor<8x6xi1>, tensor<3x6xi1>, tensor<6xi1>, tensor<1x6xi1>, tensor<4x6xi1>, tensor<8x6xi1>, tensor<5x8xi1>
}

