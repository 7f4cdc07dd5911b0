// RUN: tensor-opt %s --kiln-decompose="keep=kiln.silu,kiln.log_softmax" | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose | FileCheck %s --check-prefix=ALL

// `keep` leaves the composites a backend runs as they are (Flex's silu
// kernel) and decomposes the others.

// CHECK-LABEL: func.func @kept(
// CHECK-NEXT: kiln.silu
// CHECK-NEXT: kiln.log_softmax
// CHECK-NOT: kiln.softmax
// CHECK: kiln.reduce_max
// ALL-LABEL: func.func @kept(
// ALL-NOT: kiln.silu
// ALL-NOT: kiln.log_softmax
// ALL: kiln.sigmoid
func.func @kept(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = kiln.silu %x : tensor<2x4xf32>
  %1 = kiln.log_softmax %x axis = 1 : tensor<2x4xf32>
  %2 = kiln.softmax %x axis = 1 : tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
