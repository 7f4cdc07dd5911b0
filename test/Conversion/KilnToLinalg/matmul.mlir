// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Named linalg.matmul / batch_matmul where the shapes allow, a broadcasting
// contraction generic otherwise; f16 accumulates in f32.

// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BLHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BRHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[BOUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[Z]] : tensor<2x4xf32>)
// CHECK: return %[[R]]
// CHECK-NOT: kiln.
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @batch(
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%{{.*}} : tensor<5x2x4xf32>)
// CHECK-NOT: kiln.
func.func @batch(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = kiln.matmul %a, %b : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// [8, 1, 2, 3] x [5, 3, 4]: the lhs batch dim 1 reads index 0, the rhs has
// no leading batch dim.
// CHECK-LABEL: func.func @broadcast(
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<8x5x2x4xf32>)
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: arith.addf %{{.*}}, %[[P]]
// CHECK-NOT: kiln.
func.func @broadcast(%a: tensor<8x1x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32> {
  %0 = kiln.matmul %a, %b : (tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32>
  return %0 : tensor<8x5x2x4xf32>
}

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
// CHECK: tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: linalg.matmul
// CHECK-NOT: kiln.
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @half(
// CHECK: %[[ACC:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf16>, tensor<3x4xf16>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: kiln.
func.func @half(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = kiln.matmul %a, %b : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// CHECK-LABEL: func.func @integer(
// CHECK-SAME: %[[A:.*]]: tensor<?x2x3xi32>
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x2x3xi32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x2x4xi32>
// CHECK: linalg.generic {indexing_maps = [#[[BLHS]], #[[BRHS]], #[[BOUT]]]
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK-NOT: kiln.
func.func @integer(%a: tensor<?x2x3xi32>, %b: tensor<3x4xi32>) -> tensor<?x2x4xi32> {
  %0 = kiln.matmul %a, %b : (tensor<?x2x3xi32>, tensor<3x4xi32>) -> tensor<?x2x4xi32>
  return %0 : tensor<?x2x4xi32>
}

// LLVM: llvm.func @matmul(
// LLVM: llvm.func @integer(
