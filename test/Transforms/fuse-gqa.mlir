// RUN: tensor-opt %s --kiln-decompose --kiln-fuse | FileCheck %s \
// RUN:   --implicit-check-not=kiln.expand --implicit-check-not=kiln.tile \
// RUN:   --implicit-check-not=kiln.concat --implicit-check-not=kiln.broadcast_to \
// RUN:   --implicit-check-not=kiln.index_select --implicit-check-not=kiln.copy

// Grouped-query attention as scaledDotProductAttention records it (4 query
// heads over 2 key/value heads, causal): the two queries of a group are
// one [G * T, D] matrix per key/value head, so K and V are read in place
// by the matmuls, through a permute view at most, and never expanded,
// tiled, gathered or copied to 4 heads.

// CHECK-LABEL: func.func @gqa(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x3x8xf32>, %[[K:[^:]+]]: tensor<1x2x3x8xf32>, %[[V:[^:]+]]: tensor<1x2x3x8xf32>
// CHECK: %[[KT:.*]] = kiln.permute %[[K]] [0, 1, 3, 2] : tensor<1x2x3x8xf32> -> tensor<1x2x8x3xf32>
// CHECK-NOT: %[[K]]{{[,) ]}}
// CHECK: call @gqa_kernel{{[0-9]+}}_matmul(%{{.*}}, %[[KT]])
// CHECK-NOT: %[[K]]{{[,) ]}}
// CHECK-NOT: %[[V]]{{[,) ]}}
// CHECK: call @gqa_kernel{{[0-9]+}}_matmul(%{{.*}}, %[[V]])
// CHECK-NOT: %[[K]]{{[,) ]}}
// CHECK-NOT: %[[V]]{{[,) ]}}
// CHECK: return
func.func @gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x4x3x8xf32> {
  %scale = kiln.constant dense<0.353553385> : tensor<f32>
  %0 = kiln.reshape %q [1, 2, 6, 8] : tensor<1x4x3x8xf32> -> tensor<1x2x6x8xf32>
  %1 = kiln.permute %k [0, 1, 3, 2] : tensor<1x2x3x8xf32> -> tensor<1x2x8x3xf32>
  %2 = kiln.matmul %0, %1 : (tensor<1x2x6x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x6x3xf32>
  %3 = kiln.mul %2, %scale : (tensor<1x2x6x3xf32>, tensor<f32>) -> tensor<1x2x6x3xf32>
  %4 = kiln.reshape %3 [1, 2, 2, 3, 3] : tensor<1x2x6x3xf32> -> tensor<1x2x2x3x3xf32>
  %5 = kiln.arange 0.000000e+00, 1.000000e+00 : tensor<3xi64>
  %6 = kiln.reshape %5 [1, 3] : tensor<3xi64> -> tensor<1x3xi64>
  %7 = kiln.arange 0.000000e+00, 1.000000e+00 : tensor<3xi64>
  %8 = kiln.reshape %7 [3, 1] : tensor<3xi64> -> tensor<3x1xi64>
  %9 = kiln.gt %6, %8 : (tensor<1x3xi64>, tensor<3x1xi64>) -> tensor<3x3xi1>
  %10 = kiln.mask_fill %4, %9 value 0xFFF0000000000000 : (tensor<1x2x2x3x3xf32>, tensor<3x3xi1>) -> tensor<1x2x2x3x3xf32>
  %11 = kiln.softmax %10 axis = 4 : tensor<1x2x2x3x3xf32>
  %12 = kiln.reshape %11 [1, 2, 6, 3] : tensor<1x2x2x3x3xf32> -> tensor<1x2x6x3xf32>
  %13 = kiln.matmul %12, %v : (tensor<1x2x6x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x6x8xf32>
  %14 = kiln.reshape %13 [1, 4, 3, 8] : tensor<1x2x6x8xf32> -> tensor<1x4x3x8xf32>
  return %14 : tensor<1x4x3x8xf32>
}
