// RUN: tensor-opt %s --kiln-split-reductions | FileCheck %s

// Reductions over scattered axes that end with a trailing block reduce that
// block first (keepdim), then the rest; a view gives back the result's
// shape when keepdim is off.

// CHECK-LABEL: func.func @batch_norm_sums(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x4x5x5xf32>
// CHECK: %[[R:.*]] = kiln.sum %[[X]] [2, 3] keepdim : tensor<8x4x5x5xf32> -> tensor<8x4x1x1xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[R]] [0] keepdim : tensor<8x4x1x1xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT: %[[R2:.*]] = kiln.sum %[[X]] [2, 3] keepdim
// CHECK-NEXT: %[[S2:.*]] = kiln.sum %[[R2]] [0] keepdim
// CHECK-NEXT: %[[V:.*]] = kiln.reshape %[[S2]] [4] : tensor<1x4x1x1xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[S]], %[[V]]
func.func @batch_norm_sums(%x: tensor<8x4x5x5xf32>) -> (tensor<1x4x1x1xf32>, tensor<4xf32>) {
  %0 = kiln.sum %x [0, 2, 3] keepdim : tensor<8x4x5x5xf32> -> tensor<1x4x1x1xf32>
  %1 = kiln.sum %x [0, 2, 3] : tensor<8x4x5x5xf32> -> tensor<4xf32>
  return %0, %1 : tensor<1x4x1x1xf32>, tensor<4xf32>
}

// The extrema and products too, with a dynamic batch; the trailing block
// may be one dim.

// CHECK-LABEL: func.func @extrema(
// CHECK: %[[M:.*]] = kiln.reduce_max %arg0 [2, 3] keepdim : tensor<?x4x5x6xf64> -> tensor<?x4x1x1xf64>
// CHECK-NEXT: %[[M2:.*]] = kiln.reduce_max %[[M]] [0] keepdim : tensor<?x4x1x1xf64> -> tensor<1x4x1x1xf64>
// CHECK-NEXT: kiln.reshape %[[M2]] [4]
// CHECK: %[[P:.*]] = kiln.prod %arg1 [3] keepdim : tensor<8x4x5x5xf32> -> tensor<8x4x5x1xf32>
// CHECK-NEXT: %[[P2:.*]] = kiln.prod %[[P]] [1] keepdim : tensor<8x4x5x1xf32> -> tensor<8x1x5x1xf32>
// CHECK-NEXT: kiln.reshape %[[P2]] [8, 5] : tensor<8x1x5x1xf32> -> tensor<8x5xf32>
// CHECK: kiln.reduce_min %arg1 [2, 3] keepdim
// CHECK-NEXT: kiln.reduce_min {{.*}} [0] keepdim
func.func @extrema(%y: tensor<?x4x5x6xf64>, %x: tensor<8x4x5x5xf32>) -> (tensor<4xf64>, tensor<8x5xf32>, tensor<1x4x1x1xf32>) {
  %0 = kiln.reduce_max %y [0, 2, 3] : tensor<?x4x5x6xf64> -> tensor<4xf64>
  %1 = kiln.prod %x [1, 3] : tensor<8x4x5x5xf32> -> tensor<8x5xf32>
  %2 = kiln.reduce_min %x [0, 2, 3] keepdim : tensor<8x4x5x5xf32> -> tensor<1x4x1x1xf32>
  return %0, %1, %2 : tensor<4xf64>, tensor<8x5xf32>, tensor<1x4x1x1xf32>
}

// Left alone: one block of axes (trailing or not), a scattered set that
// does not reach the last dim, and f16 (whose partials would round).

// CHECK-LABEL: func.func @unchanged(
// CHECK-NEXT: kiln.sum %arg0 [2, 3] keepdim
// CHECK-NEXT: kiln.sum %arg0 [0, 1]
// CHECK-NEXT: kiln.sum %arg0 [0, 2]
// CHECK-NEXT: kiln.sum %arg1 [0, 2, 3] keepdim
// CHECK-NEXT: return
func.func @unchanged(%x: tensor<8x4x5x5xf32>, %h: tensor<8x4x5x5xf16>) -> (tensor<8x4x1x1xf32>, tensor<5x5xf32>, tensor<4x5xf32>, tensor<1x4x1x1xf16>) {
  %0 = kiln.sum %x [2, 3] keepdim : tensor<8x4x5x5xf32> -> tensor<8x4x1x1xf32>
  %1 = kiln.sum %x [0, 1] : tensor<8x4x5x5xf32> -> tensor<5x5xf32>
  %2 = kiln.sum %x [0, 2] : tensor<8x4x5x5xf32> -> tensor<4x5xf32>
  %3 = kiln.sum %h [0, 2, 3] keepdim : tensor<8x4x5x5xf16> -> tensor<1x4x1x1xf16>
  return %0, %1, %2, %3 : tensor<8x4x1x1xf32>, tensor<5x5xf32>, tensor<4x5xf32>, tensor<1x4x1x1xf16>
}
