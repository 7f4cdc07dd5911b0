// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnCreationOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @constants(
func.func @constants() {
  // CHECK: kiln.constant dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf64>
  %0 = kiln.constant dense<[1.0, 2.5]> : tensor<2xf64>
  // CHECK: kiln.constant dense<1.500000e+00> : tensor<2x3xf32>
  %1 = kiln.constant dense<1.5> : tensor<2x3xf32>
  // CHECK: kiln.constant dense<{{\[\[}}1.000000e+00], [2.000000e+00]]> : tensor<2x1xf16>
  %2 = kiln.constant dense<[[1.0], [2.0]]> : tensor<2x1xf16>
  // CHECK: kiln.constant dense<-2.000000e+00> : tensor<bf16>
  %3 = kiln.constant dense<-2.0> : tensor<bf16>
  // CHECK: kiln.constant dense<[1, -2, 3]> : tensor<3xi64>
  %4 = kiln.constant dense<[1, -2, 3]> : tensor<3xi64>
  // CHECK: kiln.constant dense<7> : tensor<4xi32>
  %5 = kiln.constant dense<7> : tensor<4xi32>
  // CHECK: kiln.constant dense<[-32768, 32767]> : tensor<2xi16>
  %6 = kiln.constant dense<[-32768, 32767]> : tensor<2xi16>
  // CHECK: kiln.constant dense<[-128, 127]> : tensor<2xi8>
  %7 = kiln.constant dense<[-128, 127]> : tensor<2xi8>
  // CHECK: kiln.constant dense<[0, 255]> : tensor<2xui8>
  %8 = kiln.constant dense<[0, 255]> : tensor<2xui8>
  // CHECK: kiln.constant dense<[true, false]> : tensor<2xi1>
  %9 = kiln.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: kiln.constant dense<> : tensor<0xf32>
  %10 = kiln.constant dense<> : tensor<0xf32>
  return
}
// CHECK-LABEL: func.func @fulls(
func.func @fulls(%n: index, %m: index) {
  // CHECK: kiln.full 5.000000e-01 : tensor<3xf32>
  %0 = kiln.full 5.000000e-01 : tensor<3xf32>
  // CHECK: kiln.full 0.000000e+00[%arg0] : tensor<?x4xf64>
  %1 = kiln.full 0.0 [%n] : tensor<?x4xf64>
  // CHECK: kiln.full 2.000000e+00[%arg0, %arg1] : tensor<?x?xbf16>
  %2 = kiln.full 2.0 [%n, %m] : tensor<?x?xbf16>
  // CHECK: kiln.full -3.000000e+00 : tensor<2x2xi32>
  %3 = kiln.full -3.0 : tensor<2x2xi32>
  // CHECK: kiln.full 1.000000e+00 : tensor<i1>
  %4 = kiln.full 1.0 : tensor<i1>
  // CHECK: kiln.full 2.550000e+02 : tensor<4xui8>
  %5 = kiln.full 255.0 : tensor<4xui8>
  return
}
// CHECK-LABEL: func.func @aranges(
func.func @aranges() {
  // CHECK: kiln.arange 0.000000e+00, 1.000000e+00 : tensor<5xi64>
  %0 = kiln.arange 0.0, 1.0 : tensor<5xi64>
  // CHECK: kiln.arange 1.000000e+00, 5.000000e-01 : tensor<4xf32>
  %1 = kiln.arange 1.0, 0.5 : tensor<4xf32>
  // CHECK: kiln.arange 1.000000e+01, -2.000000e+00 : tensor<3xi32>
  %2 = kiln.arange 10.0, -2.0 : tensor<3xi32>
  // CHECK: kiln.arange 0.000000e+00, 1.000000e+00 : tensor<8xf16>
  %3 = kiln.arange 0.0, 1.0 : tensor<8xf16>
  // CHECK: kiln.arange 0.000000e+00, 2.000000e+00 : tensor<3xui8>
  %4 = kiln.arange 0.0, 2.0 : tensor<3xui8>
  return
}
// CHECK-LABEL: func.func @eyes(
func.func @eyes() {
  // CHECK: kiln.eye : tensor<3x4xf32>
  %0 = kiln.eye : tensor<3x4xf32>
  // CHECK: kiln.eye : tensor<2x2xi1>
  %1 = kiln.eye : tensor<2x2xi1>
  // CHECK: kiln.eye : tensor<3x3xi64>
  %2 = kiln.eye : tensor<3x3xi64>
  return
}
// CHECK-LABEL: func.func @randoms(
func.func @randoms(%n: index, %o: tensor<i64>) {
  // CHECK: kiln.rand seed = 7, 0.000000e+00, 1.000000e+00 : tensor<3x4xf32>
  %0 = kiln.rand seed = 7, 0.0, 1.0 : tensor<3x4xf32>
  // CHECK: kiln.rand seed = 0, -1.000000e+00, 1.000000e+00[%arg0] : tensor<?x2xf16>
  %1 = kiln.rand seed = 0, -1.0, 1.0 [%n] : tensor<?x2xf16>
  // CHECK: kiln.randn seed = 7, 0.000000e+00, 1.000000e+00 : tensor<3x4xbf16>
  %2 = kiln.randn seed = 7, 0.0, 1.0 : tensor<3x4xbf16>
  // CHECK: kiln.randn seed = -5, 2.000000e+00, 0.000000e+00[%arg0] : tensor<2x?xf64>
  %3 = kiln.randn seed = -5, 2.0, 0.0 [%n] : tensor<2x?xf64>
  // CHECK: kiln.rand seed = 7 offset %arg1 : tensor<i64>, 0.000000e+00, 1.000000e+00[%arg0] : tensor<?x2xf32>
  %4 = kiln.rand seed = 7 offset %o : tensor<i64>, 0.0, 1.0 [%n] : tensor<?x2xf32>
  // CHECK: kiln.randn seed = 1 offset %arg1 : tensor<i64>, 0.000000e+00, 1.000000e+00 : tensor<5xf32>
  %5 = kiln.randn seed = 1 offset %o : tensor<i64>, 0.0, 1.0 : tensor<5xf32>
  return
}
