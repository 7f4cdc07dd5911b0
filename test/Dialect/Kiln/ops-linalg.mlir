// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnLinalgOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @matmul(
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<8x2x3xf64>, %d: tensor<3x4xf64>, %e: tensor<?x?xf16>, %f: tensor<5x1x2x3xbf16>, %g: tensor<4x3x2xbf16>, %h: tensor<2x3xi32>, %i: tensor<3x2xi32>, %j: tensor<?x2x3xi8>, %k: tensor<1x3x?xi8>) {
  // CHECK: kiln.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: kiln.matmul %arg2, %arg3 : (tensor<8x2x3xf64>, tensor<3x4xf64>) -> tensor<8x2x4xf64>
  %1 = kiln.matmul %c, %d : (tensor<8x2x3xf64>, tensor<3x4xf64>) -> tensor<8x2x4xf64>
  // CHECK: kiln.matmul %arg4, %arg4 : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  %2 = kiln.matmul %e, %e : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  // CHECK: kiln.matmul %arg5, %arg6 : (tensor<5x1x2x3xbf16>, tensor<4x3x2xbf16>) -> tensor<5x4x2x2xbf16>
  %3 = kiln.matmul %f, %g : (tensor<5x1x2x3xbf16>, tensor<4x3x2xbf16>) -> tensor<5x4x2x2xbf16>
  // CHECK: kiln.matmul %arg7, %arg8 : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  %4 = kiln.matmul %h, %i : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  // CHECK: kiln.matmul %arg9, %arg10 : (tensor<?x2x3xi8>, tensor<1x3x?xi8>) -> tensor<?x2x?xi8>
  %5 = kiln.matmul %j, %k : (tensor<?x2x3xi8>, tensor<1x3x?xi8>) -> tensor<?x2x?xi8>
  return
}
