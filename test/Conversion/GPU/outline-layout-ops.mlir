// RUN: tensor-opt %s --kiln-outline-layout-ops | FileCheck %s

// Layout ops that move data become generic kernels of their own; a reshape
// stays (a new shape over the same storage), and so do ops inside kernels.

// CHECK-LABEL: func.func private @k(
// CHECK-NEXT: kiln.permute
// CHECK-LABEL: func.func private @main_layout0(
// CHECK-SAME: kiln.kernel = #kiln.kernel_kind<generic>
// CHECK-NEXT: kiln.permute
// CHECK-LABEL: func.func private @main_layout1(
// CHECK-NEXT: kiln.slice
// CHECK-LABEL: func.func private @main_layout2(
// CHECK-NEXT: kiln.flip
// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[P:.*]] = call @main_layout0(%arg0)
// CHECK-NEXT: %[[S:.*]] = call @main_layout1(%[[P]])
// CHECK-NEXT: %[[F:.*]] = call @main_layout2(%[[S]])
// CHECK-NEXT: kiln.reshape %[[F]]
// CHECK-NOT: kiln.permute
func.func private @k(%x: tensor<2x3xf32>) -> tensor<3x2xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<generic>} {
  %0 = kiln.permute %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
func.func @main(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %0 = kiln.permute %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = kiln.slice %0 [0, 0] [2, 2] [1, 1] : tensor<3x2xf32> -> tensor<2x2xf32>
  %2 = kiln.flip %1 [0] : tensor<2x2xf32>
  %3 = kiln.reshape %2 [4] : tensor<2x2xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
