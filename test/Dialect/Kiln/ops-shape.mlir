// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnShapeOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @reshape(
func.func @reshape(%a: tensor<2x3xf32>, %b: tensor<?x4xi64>, %c: tensor<6xi1>, %d: tensor<f16>) {
  // CHECK: kiln.reshape %arg0 [3, -1] : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = kiln.reshape %a [3, -1] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: kiln.reshape %arg0 [6] : tensor<2x3xf32> -> tensor<6xf32>
  %1 = kiln.reshape %a [6] : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: kiln.reshape %arg1 [-1, 2, 2] : tensor<?x4xi64> -> tensor<?x2x2xi64>
  %2 = kiln.reshape %b [-1, 2, 2] : tensor<?x4xi64> -> tensor<?x2x2xi64>
  // CHECK: kiln.reshape %arg2 [1, 2, 3] : tensor<6xi1> -> tensor<1x2x3xi1>
  %3 = kiln.reshape %c [1, 2, 3] : tensor<6xi1> -> tensor<1x2x3xi1>
  // CHECK: kiln.reshape %arg3 [1, 1] : tensor<f16> -> tensor<1x1xf16>
  %4 = kiln.reshape %d [1, 1] : tensor<f16> -> tensor<1x1xf16>
  return
}
// CHECK-LABEL: func.func @permute(
func.func @permute(%a: tensor<2x3xf32>, %b: tensor<?x3x4xui8>, %c: tensor<5xbf16>) {
  // CHECK: kiln.permute %arg0 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = kiln.permute %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: kiln.permute %arg1 [2, 0, 1] : tensor<?x3x4xui8> -> tensor<4x?x3xui8>
  %1 = kiln.permute %b [2, 0, 1] : tensor<?x3x4xui8> -> tensor<4x?x3xui8>
  // CHECK: kiln.permute %arg2 [0] : tensor<5xbf16> -> tensor<5xbf16>
  %2 = kiln.permute %c [0] : tensor<5xbf16> -> tensor<5xbf16>
  return
}
// CHECK-LABEL: func.func @expand(
func.func @expand(%a: tensor<3xf32>, %b: tensor<?x1xi8>, %c: tensor<i1>, %d: tensor<1x4xf64>) {
  // CHECK: kiln.expand %arg0 [2, 3] : tensor<3xf32> -> tensor<2x3xf32>
  %0 = kiln.expand %a [2, 3] : tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: kiln.expand %arg1 [-1, 5] : tensor<?x1xi8> -> tensor<?x5xi8>
  %1 = kiln.expand %b [-1, 5] : tensor<?x1xi8> -> tensor<?x5xi8>
  // CHECK: kiln.expand %arg2 [2, 2] : tensor<i1> -> tensor<2x2xi1>
  %2 = kiln.expand %c [2, 2] : tensor<i1> -> tensor<2x2xi1>
  // CHECK: kiln.expand %arg3 [7, 3, -1] : tensor<1x4xf64> -> tensor<7x3x4xf64>
  %3 = kiln.expand %d [7, 3, -1] : tensor<1x4xf64> -> tensor<7x3x4xf64>
  return
}
// CHECK-LABEL: func.func @slice(
func.func @slice(%a: tensor<4x6xf32>, %b: tensor<?x8xi32>, %c: tensor<10xi1>) {
  // CHECK: kiln.slice %arg0 [0, 1] [4, 6] [2, 1] : tensor<4x6xf32> -> tensor<2x5xf32>
  %0 = kiln.slice %a [0, 1] [4, 6] [2, 1] : tensor<4x6xf32> -> tensor<2x5xf32>
  // CHECK: kiln.slice %arg1 [0, 2] [3, 100] [1, 3] : tensor<?x8xi32> -> tensor<?x2xi32>
  %1 = kiln.slice %b [0, 2] [3, 100] [1, 3] : tensor<?x8xi32> -> tensor<?x2xi32>
  // CHECK: kiln.slice %arg2 [3] [3] [1] : tensor<10xi1> -> tensor<0xi1>
  %2 = kiln.slice %c [3] [3] [1] : tensor<10xi1> -> tensor<0xi1>
  return
}
// CHECK-LABEL: func.func @slice_assign(
func.func @slice_assign(%v: tensor<2xf32>, %d: tensor<5xf32>, %w: tensor<2x2xf16>, %e: tensor<?x4xf16>) {
  // CHECK: kiln.slice_assign %arg0 into %arg1 [0] [2] [1] : (tensor<2xf32>, tensor<5xf32>) -> tensor<5xf32>
  %0 = kiln.slice_assign %v into %d [0] [2] [1] : (tensor<2xf32>, tensor<5xf32>) -> tensor<5xf32>
  // CHECK: kiln.slice_assign %arg2 into %arg3 [0, 0] [4, 4] [2, 2] : (tensor<2x2xf16>, tensor<?x4xf16>) -> tensor<?x4xf16>
  %1 = kiln.slice_assign %w into %e [0, 0] [4, 4] [2, 2] : (tensor<2x2xf16>, tensor<?x4xf16>) -> tensor<?x4xf16>
  return
}
// CHECK-LABEL: func.func @concat(
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %c: tensor<?x3xf32>, %d: tensor<4xi64>) {
  // CHECK: kiln.concat %arg0, %arg1 axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %0 = kiln.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  // CHECK: kiln.concat %arg0, %arg1, %arg2 axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = kiln.concat %a, %b, %c axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK: kiln.concat %arg3 axis = 0 : (tensor<4xi64>) -> tensor<4xi64>
  %2 = kiln.concat %d axis = 0 : (tensor<4xi64>) -> tensor<4xi64>
  // CHECK: kiln.concat %arg0, %arg0 axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %3 = kiln.concat %a, %a axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}
// CHECK-LABEL: func.func @split(
func.func @split(%a: tensor<3x4xf32>, %b: tensor<?x6xbf16>) {
  // CHECK: kiln.split %arg0 [2, 1] axis = 0 : tensor<3x4xf32> -> tensor<2x4xf32>, tensor<1x4xf32>
  %0:2 = kiln.split %a [2, 1] axis = 0 : tensor<3x4xf32> -> tensor<2x4xf32>, tensor<1x4xf32>
  // CHECK: kiln.split %arg1 [1, 2, 3] axis = 1 : tensor<?x6xbf16> -> tensor<?x1xbf16>, tensor<?x2xbf16>, tensor<?x3xbf16>
  %1:3 = kiln.split %b [1, 2, 3] axis = 1 : tensor<?x6xbf16> -> tensor<?x1xbf16>, tensor<?x2xbf16>, tensor<?x3xbf16>
  // CHECK: kiln.split %arg0 [4] axis = 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  %2 = kiln.split %a [4] axis = 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  return
}
// CHECK-LABEL: func.func @squeeze(
func.func @squeeze(%a: tensor<1x3x1xf32>, %b: tensor<?x1xi16>, %c: tensor<1xi1>) {
  // CHECK: kiln.squeeze %arg0 [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  %0 = kiln.squeeze %a [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  // CHECK: kiln.squeeze %arg1 [1] : tensor<?x1xi16> -> tensor<?xi16>
  %1 = kiln.squeeze %b [1] : tensor<?x1xi16> -> tensor<?xi16>
  // CHECK: kiln.squeeze %arg2 [0] : tensor<1xi1> -> tensor<i1>
  %2 = kiln.squeeze %c [0] : tensor<1xi1> -> tensor<i1>
  // CHECK: kiln.squeeze %arg0 [] : tensor<1x3x1xf32> -> tensor<1x3x1xf32>
  %3 = kiln.squeeze %a [] : tensor<1x3x1xf32> -> tensor<1x3x1xf32>
  return
}
// CHECK-LABEL: func.func @unsqueeze(
func.func @unsqueeze(%a: tensor<3xf32>, %b: tensor<?x2xui8>, %c: tensor<f64>) {
  // CHECK: kiln.unsqueeze %arg0 [0] : tensor<3xf32> -> tensor<1x3xf32>
  %0 = kiln.unsqueeze %a [0] : tensor<3xf32> -> tensor<1x3xf32>
  // CHECK: kiln.unsqueeze %arg1 [0, 3] : tensor<?x2xui8> -> tensor<1x?x2x1xui8>
  %1 = kiln.unsqueeze %b [0, 3] : tensor<?x2xui8> -> tensor<1x?x2x1xui8>
  // CHECK: kiln.unsqueeze %arg2 [0, 1] : tensor<f64> -> tensor<1x1xf64>
  %2 = kiln.unsqueeze %c [0, 1] : tensor<f64> -> tensor<1x1xf64>
  return
}
// CHECK-LABEL: func.func @flip(
func.func @flip(%a: tensor<2x3xf32>, %b: tensor<?xi8>) {
  // CHECK: kiln.flip %arg0 [0, 1] : tensor<2x3xf32>
  %0 = kiln.flip %a [0, 1] : tensor<2x3xf32>
  // CHECK: kiln.flip %arg1 [0] : tensor<?xi8>
  %1 = kiln.flip %b [0] : tensor<?xi8>
  // CHECK: kiln.flip %arg0 [] : tensor<2x3xf32>
  %2 = kiln.flip %a [] : tensor<2x3xf32>
  return
}
// CHECK-LABEL: func.func @repeat(
func.func @repeat(%a: tensor<2x3xf32>, %b: tensor<?x2xi1>) {
  // CHECK: kiln.repeat %arg0 [2, 1] : tensor<2x3xf32> -> tensor<4x3xf32>
  %0 = kiln.repeat %a [2, 1] : tensor<2x3xf32> -> tensor<4x3xf32>
  // CHECK: kiln.repeat %arg1 [3, 2] : tensor<?x2xi1> -> tensor<?x4xi1>
  %1 = kiln.repeat %b [3, 2] : tensor<?x2xi1> -> tensor<?x4xi1>
  return
}
// CHECK-LABEL: func.func @pad(
func.func @pad(%a: tensor<2x3xf32>, %b: tensor<?x4xi32>, %c: tensor<3xf16>) {
  // CHECK: kiln.pad %arg0 low [0, 1] high [0, 2] value 0.000000e+00 : tensor<2x3xf32> -> tensor<2x6xf32>
  %0 = kiln.pad %a low [0, 1] high [0, 2] value 0.0 : tensor<2x3xf32> -> tensor<2x6xf32>
  // CHECK: kiln.pad %arg1 low [1, 0] high [1, 0] value -1.000000e+00 : tensor<?x4xi32> -> tensor<?x4xi32>
  %1 = kiln.pad %b low [1, 0] high [1, 0] value -1.0 : tensor<?x4xi32> -> tensor<?x4xi32>
  // CHECK: kiln.pad %arg2 low [2] high [0] value 0xFFF0000000000000 : tensor<3xf16> -> tensor<5xf16>
  %2 = kiln.pad %c low [2] high [0] value 0xFFF0000000000000 : tensor<3xf16> -> tensor<5xf16>
  return
}
