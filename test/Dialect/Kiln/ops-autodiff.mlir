// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnAutodiffOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @detach(
func.func @detach(%x: tensor<4xf32>, %y: tensor<?x2xi64>, %z: tensor<3xi1>) {
  // CHECK: kiln.detach %arg0 : tensor<4xf32>
  %0 = kiln.detach %x : tensor<4xf32>
  // CHECK: kiln.detach %arg1 : tensor<?x2xi64>
  %1 = kiln.detach %y : tensor<?x2xi64>
  // CHECK: kiln.detach %arg2 : tensor<3xi1>
  %2 = kiln.detach %z : tensor<3xi1>
  return
}
// CHECK-LABEL: func.func @grad(
func.func @grad(%loss: tensor<f32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>, %l: tensor<f64>, %v: tensor<?xbf16>) {
  // CHECK: kiln.grad %arg0 wrt %arg1, %arg2 : tensor<f32>, (tensor<4x3xf32>, tensor<3xf32>)
  %0:2 = kiln.grad %loss wrt %w, %b : tensor<f32>, (tensor<4x3xf32>, tensor<3xf32>)
  // CHECK: kiln.grad %arg3 wrt %arg4 : tensor<f64>, (tensor<?xbf16>)
  %1 = kiln.grad %l wrt %v : tensor<f64>, (tensor<?xbf16>)
  return
}
// CHECK-LABEL: func.func @conv2d_backward(
func.func @conv2d_backward(%g: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<1x3x8x8xf32>, %h: tensor<2x4x3x3xf16>, %v: tensor<4x1x3x3xf16>, %y: tensor<2x4x8x8xf16>) {
  // CHECK: kiln.conv2d_backward_input %arg0, %arg1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: kiln.conv2d_backward_weight %arg0, %arg2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  %1 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  // CHECK: kiln.conv2d_backward_input %arg3, %arg4 stride [2, 2] padding [0, 0] dilation [1, 1] groups 4 : (tensor<2x4x3x3xf16>, tensor<4x1x3x3xf16>) -> tensor<2x4x8x8xf16>
  %2 = kiln.conv2d_backward_input %h, %v stride [2, 2] padding [0, 0] dilation [1, 1] groups 4 : (tensor<2x4x3x3xf16>, tensor<4x1x3x3xf16>) -> tensor<2x4x8x8xf16>
  // CHECK: kiln.conv2d_backward_weight %arg3, %arg5 stride [2, 2] padding [0, 0] dilation [1, 1] groups 4 : (tensor<2x4x3x3xf16>, tensor<2x4x8x8xf16>) -> tensor<4x1x3x3xf16>
  %3 = kiln.conv2d_backward_weight %h, %y stride [2, 2] padding [0, 0] dilation [1, 1] groups 4 : (tensor<2x4x3x3xf16>, tensor<2x4x8x8xf16>) -> tensor<4x1x3x3xf16>
  return
}
// CHECK-LABEL: func.func @pool_backward(
func.func @pool_backward(%g: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>, %h: tensor<1x3x5x3xf32>) {
  // CHECK: kiln.max_pool2d_backward %arg0, %arg1 kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %0 = kiln.max_pool2d_backward %g, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: kiln.avg_pool2d_backward %arg0, %arg1 kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %1 = kiln.avg_pool2d_backward %g, %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: kiln.avg_pool2d_backward %arg2, %arg1 kernel [2, 4] stride [2, 4] padding [1, 2] count_include_pad : (tensor<1x3x5x3xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %2 = kiln.avg_pool2d_backward %h, %x kernel [2, 4] stride [2, 4] padding [1, 2] count_include_pad : (tensor<1x3x5x3xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}
