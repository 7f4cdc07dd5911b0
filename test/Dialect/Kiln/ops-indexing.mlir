// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnIndexingOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @gather(
func.func @gather(%x: tensor<2x5xf32>, %i: tensor<2x3xi64>, %y: tensor<?x4xi8>, %j: tensor<?x2xi32>) {
  // CHECK: kiln.gather %arg0[%arg1] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  // CHECK: kiln.gather %arg2[%arg3] axis = 1 : (tensor<?x4xi8>, tensor<?x2xi32>) -> tensor<?x2xi8>
  %1 = kiln.gather %y[%j] axis = 1 : (tensor<?x4xi8>, tensor<?x2xi32>) -> tensor<?x2xi8>
  return
}
// CHECK-LABEL: func.func @scatter_add(
func.func @scatter_add(%u: tensor<3x2xf32>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>, %v: tensor<?xi32>, %y: tensor<8xi32>, %j: tensor<?xi32>) {
  // CHECK: kiln.scatter_add %arg0 into %arg1[%arg2] axis = 0 : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  // CHECK: kiln.scatter_add %arg3 into %arg4[%arg5] axis = 0 : (tensor<?xi32>, tensor<8xi32>, tensor<?xi32>) -> tensor<8xi32>
  %1 = kiln.scatter_add %v into %y[%j] axis = 0 : (tensor<?xi32>, tensor<8xi32>, tensor<?xi32>) -> tensor<8xi32>
  return
}
// CHECK-LABEL: func.func @index_select(
func.func @index_select(%x: tensor<10x4xf32>, %i: tensor<3xi64>, %y: tensor<?x4xi1>, %j: tensor<?xi32>) {
  // CHECK: kiln.index_select %arg0[%arg1] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %0 = kiln.index_select %x[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  // CHECK: kiln.index_select %arg2[%arg3] axis = 1 : (tensor<?x4xi1>, tensor<?xi32>) -> tensor<?x?xi1>
  %1 = kiln.index_select %y[%j] axis = 1 : (tensor<?x4xi1>, tensor<?xi32>) -> tensor<?x?xi1>
  return
}
// CHECK-LABEL: func.func @mask_fill(
func.func @mask_fill(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>, %n: tensor<3xi1>, %y: tensor<4xi32>, %p: tensor<i1>) {
  // CHECK: kiln.mask_fill %arg0, %arg1 value -1.000000e+09 : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  %0 = kiln.mask_fill %x, %m value -1.0e+09 : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  // CHECK: kiln.mask_fill %arg0, %arg2 value 0.000000e+00 : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xf32>
  %1 = kiln.mask_fill %x, %n value 0.0 : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xf32>
  // CHECK: kiln.mask_fill %arg3, %arg4 value 7.000000e+00 : (tensor<4xi32>, tensor<i1>) -> tensor<4xi32>
  %2 = kiln.mask_fill %y, %p value 7.0 : (tensor<4xi32>, tensor<i1>) -> tensor<4xi32>
  return
}
// CHECK-LABEL: func.func @one_hot(
func.func @one_hot(%i: tensor<4xi64>, %j: tensor<?x2xi32>, %k: tensor<i64>) {
  // CHECK: kiln.one_hot %arg0 : tensor<4xi64> -> tensor<4x10xf32>
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<4x10xf32>
  // CHECK: kiln.one_hot %arg1 : tensor<?x2xi32> -> tensor<?x2x3xi1>
  %1 = kiln.one_hot %j : tensor<?x2xi32> -> tensor<?x2x3xi1>
  // CHECK: kiln.one_hot %arg2 : tensor<i64> -> tensor<5xi64>
  %2 = kiln.one_hot %k : tensor<i64> -> tensor<5xi64>
  return
}
// CHECK-LABEL: func.func @embedding(
func.func @embedding(%w: tensor<100x16xf32>, %i: tensor<4x8xi64>, %v: tensor<?x8xbf16>, %j: tensor<?xi32>, %k: tensor<i64>) {
  // CHECK: kiln.embedding %arg0[%arg1] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<4x8x16xf32>
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<4x8x16xf32>
  // CHECK: kiln.embedding %arg2[%arg3] : (tensor<?x8xbf16>, tensor<?xi32>) -> tensor<?x8xbf16>
  %1 = kiln.embedding %v[%j] : (tensor<?x8xbf16>, tensor<?xi32>) -> tensor<?x8xbf16>
  // CHECK: kiln.embedding %arg0[%arg4] : (tensor<100x16xf32>, tensor<i64>) -> tensor<16xf32>
  %2 = kiln.embedding %w[%k] : (tensor<100x16xf32>, tensor<i64>) -> tensor<16xf32>
  return
}
