// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnReductionOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @reduce_numeric(
func.func @reduce_numeric(%a: tensor<2x3xf32>, %b: tensor<?x4x5xf64>, %c: tensor<3x?xi64>, %d: tensor<4xi8>, %e: tensor<2x2xui8>, %f: tensor<2x3xf16>, %g: tensor<5xbf16>, %h: tensor<2x2xi16>, %i: tensor<2x2xi32>) {
  // CHECK: kiln.sum %arg0 [1] : tensor<2x3xf32> -> tensor<2xf32>
  %0 = kiln.sum %a [1] : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK: kiln.sum %arg0 [0, 1] keepdim : tensor<2x3xf32> -> tensor<1x1xf32>
  %1 = kiln.sum %a [0, 1] keepdim : tensor<2x3xf32> -> tensor<1x1xf32>
  // CHECK: kiln.sum %arg1 [0, 2] : tensor<?x4x5xf64> -> tensor<4xf64>
  %2 = kiln.sum %b [0, 2] : tensor<?x4x5xf64> -> tensor<4xf64>
  // CHECK: kiln.sum %arg2 [1] keepdim : tensor<3x?xi64> -> tensor<3x1xi64>
  %3 = kiln.sum %c [1] keepdim : tensor<3x?xi64> -> tensor<3x1xi64>
  // CHECK: kiln.prod %arg3 [0] : tensor<4xi8> -> tensor<i8>
  %4 = kiln.prod %d [0] : tensor<4xi8> -> tensor<i8>
  // CHECK: kiln.prod %arg5 [1, 0] keepdim : tensor<2x3xf16> -> tensor<1x1xf16>
  %5 = kiln.prod %f [1, 0] keepdim : tensor<2x3xf16> -> tensor<1x1xf16>
  // CHECK: kiln.reduce_max %arg4 [0] : tensor<2x2xui8> -> tensor<2xui8>
  %6 = kiln.reduce_max %e [0] : tensor<2x2xui8> -> tensor<2xui8>
  // CHECK: kiln.reduce_max %arg1 [1] keepdim : tensor<?x4x5xf64> -> tensor<?x1x5xf64>
  %7 = kiln.reduce_max %b [1] keepdim : tensor<?x4x5xf64> -> tensor<?x1x5xf64>
  // CHECK: kiln.reduce_min %arg6 [0] : tensor<5xbf16> -> tensor<bf16>
  %8 = kiln.reduce_min %g [0] : tensor<5xbf16> -> tensor<bf16>
  // CHECK: kiln.reduce_min %arg7 [1] : tensor<2x2xi16> -> tensor<2xi16>
  %9 = kiln.reduce_min %h [1] : tensor<2x2xi16> -> tensor<2xi16>
  // CHECK: kiln.sum %arg8 [0] : tensor<2x2xi32> -> tensor<2xi32>
  %10 = kiln.sum %i [0] : tensor<2x2xi32> -> tensor<2xi32>
  return
}
// CHECK-LABEL: func.func @reduce_float(
func.func @reduce_float(%a: tensor<2x3xf32>, %b: tensor<?x4xf64>, %c: tensor<8xbf16>, %d: tensor<2x2xf16>) {
  // CHECK: kiln.mean %arg0 [1] : tensor<2x3xf32> -> tensor<2xf32>
  %0 = kiln.mean %a [1] : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK: kiln.mean %arg1 [0] keepdim : tensor<?x4xf64> -> tensor<1x4xf64>
  %1 = kiln.mean %b [0] keepdim : tensor<?x4xf64> -> tensor<1x4xf64>
  // CHECK: kiln.logsumexp %arg2 [0] : tensor<8xbf16> -> tensor<bf16>
  %2 = kiln.logsumexp %c [0] : tensor<8xbf16> -> tensor<bf16>
  // CHECK: kiln.logsumexp %arg3 [0, 1] keepdim : tensor<2x2xf16> -> tensor<1x1xf16>
  %3 = kiln.logsumexp %d [0, 1] keepdim : tensor<2x2xf16> -> tensor<1x1xf16>
  return
}
// CHECK-LABEL: func.func @reduce_bool(
func.func @reduce_bool(%p: tensor<4x?xi1>, %q: tensor<3xi1>) {
  // CHECK: kiln.any %arg0 [1] : tensor<4x?xi1> -> tensor<4xi1>
  %0 = kiln.any %p [1] : tensor<4x?xi1> -> tensor<4xi1>
  // CHECK: kiln.all %arg1 [0] keepdim : tensor<3xi1> -> tensor<1xi1>
  %1 = kiln.all %q [0] keepdim : tensor<3xi1> -> tensor<1xi1>
  // CHECK: kiln.all %arg0 [0, 1] : tensor<4x?xi1> -> tensor<i1>
  %2 = kiln.all %p [0, 1] : tensor<4x?xi1> -> tensor<i1>
  return
}
// CHECK-LABEL: func.func @arg_reduce(
func.func @arg_reduce(%a: tensor<2x3xf32>, %b: tensor<?x5xi32>, %c: tensor<4xui8>, %d: tensor<3x3xbf16>) {
  // CHECK: kiln.argmax %arg0 axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  %0 = kiln.argmax %a axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  // CHECK: kiln.argmax %arg1 axis = 0 keepdim : tensor<?x5xi32> -> tensor<1x5xi64>
  %1 = kiln.argmax %b axis = 0 keepdim : tensor<?x5xi32> -> tensor<1x5xi64>
  // CHECK: kiln.argmin %arg2 axis = 0 : tensor<4xui8> -> tensor<i64>
  %2 = kiln.argmin %c axis = 0 : tensor<4xui8> -> tensor<i64>
  // CHECK: kiln.argmin %arg3 axis = 1 keepdim : tensor<3x3xbf16> -> tensor<3x1xi64>
  %3 = kiln.argmin %d axis = 1 keepdim : tensor<3x3xbf16> -> tensor<3x1xi64>
  return
}
// CHECK-LABEL: func.func @argsort(
func.func @argsort(%a: tensor<2x3xf32>, %b: tensor<?x5xi32>) {
  // CHECK: kiln.argsort %arg0 axis = 1 : tensor<2x3xf32> -> tensor<2x3xi64>
  %0 = kiln.argsort %a axis = 1 : tensor<2x3xf32> -> tensor<2x3xi64>
  // CHECK: kiln.argsort %arg1 axis = 0 descending : tensor<?x5xi32> -> tensor<?x5xi64>
  %1 = kiln.argsort %b axis = 0 descending : tensor<?x5xi32> -> tensor<?x5xi64>
  return
}
// CHECK-LABEL: func.func @axis_ops(
func.func @axis_ops(%a: tensor<2x3xf32>, %b: tensor<?x5xi64>, %c: tensor<4xi8>, %d: tensor<4x?xf16>, %e: tensor<3xbf16>, %f: tensor<2x2xf64>) {
  // CHECK: kiln.cumsum %arg0 axis = 1 : tensor<2x3xf32>
  %0 = kiln.cumsum %a axis = 1 : tensor<2x3xf32>
  // CHECK: kiln.cumsum %arg1 axis = 0 : tensor<?x5xi64>
  %1 = kiln.cumsum %b axis = 0 : tensor<?x5xi64>
  // CHECK: kiln.cumsum %arg2 axis = 0 : tensor<4xi8>
  %2 = kiln.cumsum %c axis = 0 : tensor<4xi8>
  // CHECK: kiln.softmax %arg3 axis = 1 : tensor<4x?xf16>
  %3 = kiln.softmax %d axis = 1 : tensor<4x?xf16>
  // CHECK: kiln.softmax %arg5 axis = 0 : tensor<2x2xf64>
  %4 = kiln.softmax %f axis = 0 : tensor<2x2xf64>
  // CHECK: kiln.log_softmax %arg4 axis = 0 : tensor<3xbf16>
  %5 = kiln.log_softmax %e axis = 0 : tensor<3xbf16>
  // CHECK: kiln.log_softmax %arg0 axis = 1 : tensor<2x3xf32>
  %6 = kiln.log_softmax %a axis = 1 : tensor<2x3xf32>
  return
}
