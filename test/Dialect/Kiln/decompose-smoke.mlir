// RUN: tensor-opt %s --kiln-decompose | FileCheck %s

// CHECK-LABEL: func @silu
// CHECK: %[[S:.*]] = kiln.sigmoid %arg0
// CHECK: kiln.mul %arg0, %[[S]]
// CHECK-NOT: kiln.silu
func.func @silu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.silu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
