// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnNNOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @conv2d(
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %y: tensor<?x4x9x9xf16>, %v: tensor<8x2x2x2xf16>) {
  // CHECK: kiln.conv2d %arg0, %arg1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: kiln.conv2d %arg0, %arg1, %arg2 stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %1 = kiln.conv2d %x, %w, %b stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  // CHECK: kiln.conv2d %arg3, %arg4 stride [1, 2] padding [0, 1] dilation [2, 1] groups 2 : (tensor<?x4x9x9xf16>, tensor<8x2x2x2xf16>) -> tensor<?x8x7x5xf16>
  %2 = kiln.conv2d %y, %v stride [1, 2] padding [0, 1] dilation [2, 1] groups 2 : (tensor<?x4x9x9xf16>, tensor<8x2x2x2xf16>) -> tensor<?x8x7x5xf16>
  return
}
// CHECK-LABEL: func.func @conv1d(
func.func @conv1d(%x: tensor<2x4x10xf32>, %w: tensor<6x2x3xf32>, %b: tensor<6xf32>, %y: tensor<1x1x?xbf16>, %v: tensor<1x1x2xbf16>) {
  // CHECK: kiln.conv1d %arg0, %arg1 stride [1] padding [1] dilation [1] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>) -> tensor<2x6x10xf32>
  %0 = kiln.conv1d %x, %w stride [1] padding [1] dilation [1] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>) -> tensor<2x6x10xf32>
  // CHECK: kiln.conv1d %arg0, %arg1, %arg2 stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  %1 = kiln.conv1d %x, %w, %b stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  // CHECK: kiln.conv1d %arg3, %arg4 stride [1] padding [0] dilation [1] groups 1 : (tensor<1x1x?xbf16>, tensor<1x1x2xbf16>) -> tensor<1x1x?xbf16>
  %2 = kiln.conv1d %y, %v stride [1] padding [0] dilation [1] groups 1 : (tensor<1x1x?xbf16>, tensor<1x1x2xbf16>) -> tensor<1x1x?xbf16>
  return
}
// CHECK-LABEL: func.func @unfold(
func.func @unfold(%x: tensor<2x3x8x8xf32>, %y: tensor<?x2x9x?xf16>) {
  // CHECK: kiln.unfold %arg0 kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
  // CHECK: kiln.unfold %arg1 kernel [2, 1] stride [2, 1] padding [0, 1] dilation [3, 1] : tensor<?x2x9x?xf16> -> tensor<?x4x?xf16>
  %1 = kiln.unfold %y kernel [2, 1] stride [2, 1] padding [0, 1] dilation [3, 1] : tensor<?x2x9x?xf16> -> tensor<?x4x?xf16>
  // CHECK: kiln.unfold %arg0 kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x32xf32>
  %2 = kiln.unfold %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x32xf32>
  // CHECK: kiln.unfold %arg1 kernel [2, 1] stride [2, 1] padding [0, 1] dilation [3, 1] images_in_columns : tensor<?x2x9x?xf16> -> tensor<4x?xf16>
  %3 = kiln.unfold %y kernel [2, 1] stride [2, 1] padding [0, 1] dilation [3, 1] images_in_columns : tensor<?x2x9x?xf16> -> tensor<4x?xf16>
  return
}

// CHECK-LABEL: func.func @pool(
func.func @pool(%x: tensor<1x3x8x8xf32>, %y: tensor<?x2x5x?xf64>) {
  // CHECK: kiln.max_pool2d %arg0 kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %0 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  // CHECK: kiln.max_pool2d %arg1 kernel [3, 3] stride [1, 1] padding [1, 1] : tensor<?x2x5x?xf64> -> tensor<?x2x5x?xf64>
  %1 = kiln.max_pool2d %y kernel [3, 3] stride [1, 1] padding [1, 1] : tensor<?x2x5x?xf64> -> tensor<?x2x5x?xf64>
  // CHECK: kiln.avg_pool2d %arg0 kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %2 = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  // CHECK: kiln.avg_pool2d %arg0 kernel [2, 4] stride [2, 4] padding [1, 2] count_include_pad : tensor<1x3x8x8xf32> -> tensor<1x3x5x3xf32>
  %3 = kiln.avg_pool2d %x kernel [2, 4] stride [2, 4] padding [1, 2] count_include_pad : tensor<1x3x8x8xf32> -> tensor<1x3x5x3xf32>
  return
}
// CHECK-LABEL: func.func @layer_norm(
func.func @layer_norm(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %y: tensor<?x?xbf16>, %h: tensor<?xbf16>) {
  // CHECK: kiln.layer_norm %arg0 weight %arg1 bias %arg2 eps 1.000000e-05 : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %0 = kiln.layer_norm %x weight %g bias %b eps 1.0e-05 : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: kiln.layer_norm %arg0 eps 1.000000e-05 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = kiln.layer_norm %x eps 1.0e-05 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: kiln.layer_norm %arg0 weight %arg1 eps 9.9999999999999995E-7 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %2 = kiln.layer_norm %x weight %g eps 1.0e-06 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: kiln.layer_norm %arg3 bias %arg4 eps 0.000000e+00 : (tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  %3 = kiln.layer_norm %y bias %h eps 0.0 : (tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  return
}
// CHECK-LABEL: func.func @rms_norm(
func.func @rms_norm(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %y: tensor<?x?xbf16>) {
  // CHECK: kiln.rms_norm %arg0 weight %arg1 eps 9.9999999999999995E-7 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %0 = kiln.rms_norm %x weight %g eps 1.0e-06 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: kiln.rms_norm %arg2 eps 1.000000e-05 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %1 = kiln.rms_norm %y eps 1.0e-05 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return
}
// CHECK-LABEL: func.func @rope(
func.func @rope(%x: tensor<2x4x8x16xf32>, %y: tensor<?x?x6xbf16>, %o: tensor<i64>) {
  // CHECK: kiln.rope %arg0 theta 1.000000e+04 : tensor<2x4x8x16xf32>
  %0 = kiln.rope %x theta 1.0e+04 : tensor<2x4x8x16xf32>
  // CHECK: kiln.rope %arg1 offset %arg2 : tensor<i64> theta 5.000000e+05 interleaved : tensor<?x?x6xbf16>
  %1 = kiln.rope %y offset %o : tensor<i64> theta 5.0e+05 interleaved : tensor<?x?x6xbf16>
  return
}
// CHECK-LABEL: func.func @dropout(
func.func @dropout(%x: tensor<8xf32>, %y: tensor<?x4xf16>, %o: tensor<i64>) {
  // CHECK: kiln.dropout %arg0 p = 1.000000e-01 seed = 3 : tensor<8xf32>
  %0 = kiln.dropout %x p = 1.0e-01 seed = 3 : tensor<8xf32>
  // CHECK: kiln.dropout %arg1 p = 0.000000e+00 seed = 0 : tensor<?x4xf16>
  %1 = kiln.dropout %y p = 0.0 seed = 0 : tensor<?x4xf16>
  // CHECK: kiln.dropout %arg1 p = 5.000000e-01 seed = 2 offset %arg2 : tensor<i64> : tensor<?x4xf16>
  %2 = kiln.dropout %y p = 0.5 seed = 2 offset %o : tensor<i64> : tensor<?x4xf16>
  return
}
// CHECK-LABEL: func.func @cross_entropy(
func.func @cross_entropy(%l: tensor<4x10xf32>, %t: tensor<4xi64>, %m: tensor<?x3xf64>, %u: tensor<?xi32>, %r: tensor<2x5x3xbf16>, %s: tensor<2x3xi32>) {
  // CHECK: kiln.cross_entropy %arg0, %arg1 : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  // CHECK: kiln.cross_entropy %arg2, %arg3 : (tensor<?x3xf64>, tensor<?xi32>) -> tensor<f64>
  %1 = kiln.cross_entropy %m, %u : (tensor<?x3xf64>, tensor<?xi32>) -> tensor<f64>
  // CHECK: kiln.cross_entropy %arg0, %arg1 ignore_index = 0 label_smoothing = 1.000000e-01 reduction = none : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
  %2 = kiln.cross_entropy %l, %t ignore_index = 0 label_smoothing = 0.1 reduction = none : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
  // CHECK: kiln.cross_entropy %arg4, %arg5 reduction = sum : (tensor<2x5x3xbf16>, tensor<2x3xi32>) -> tensor<bf16>
  %3 = kiln.cross_entropy %r, %s reduction = sum : (tensor<2x5x3xbf16>, tensor<2x3xi32>) -> tensor<bf16>
  return
}
// CHECK-LABEL: func.func @norms(
func.func @norms(%x: tensor<2x3x4x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %y: tensor<?x4x5xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>) {
  // CHECK: kiln.batch_norm %arg0, %arg1, %arg2 weight %arg1 bias %arg2 eps 1.000000e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %0 = kiln.batch_norm %x, %m, %v weight %m bias %v eps 1.0e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: kiln.batch_norm %arg0, %arg1, %arg2 eps 1.000000e-03 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %1 = kiln.batch_norm %x, %m, %v eps 1.0e-03 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: kiln.group_norm %arg3 bias %arg5 groups 2 eps 1.000000e-05 : (tensor<?x4x5xf16>, tensor<4xf16>) -> tensor<?x4x5xf16>
  %2 = kiln.group_norm %y bias %b groups 2 eps 1.0e-05 : (tensor<?x4x5xf16>, tensor<4xf16>) -> tensor<?x4x5xf16>
  // CHECK: kiln.group_norm %arg3 weight %arg4 bias %arg5 groups 4 eps 0.000000e+00 : (tensor<?x4x5xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<?x4x5xf16>
  %3 = kiln.group_norm %y weight %g bias %b groups 4 eps 0.0 : (tensor<?x4x5xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<?x4x5xf16>
  return
}
// CHECK-LABEL: func.func @adaptive_pools(
func.func @adaptive_pools(%x: tensor<?x3x7x5xf32>) {
  // CHECK: kiln.adaptive_avg_pool2d %arg0 size [3, 2] : tensor<?x3x7x5xf32> -> tensor<?x3x3x2xf32>
  %0 = kiln.adaptive_avg_pool2d %x size [3, 2] : tensor<?x3x7x5xf32> -> tensor<?x3x3x2xf32>
  // CHECK: kiln.adaptive_max_pool2d %arg0 size [9, 1] : tensor<?x3x7x5xf32> -> tensor<?x3x9x1xf32>
  %1 = kiln.adaptive_max_pool2d %x size [9, 1] : tensor<?x3x7x5xf32> -> tensor<?x3x9x1xf32>
  return
}
// CHECK-LABEL: func.func @conv_transpose(
func.func @conv_transpose(%x: tensor<?x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>, %x1: tensor<2x4x7xf16>, %w1: tensor<4x1x3xf16>) {
  // CHECK: kiln.conv_transpose2d %arg0, %arg1 stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x10x10xf32>
  %0 = kiln.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x10x10xf32>
  // CHECK: kiln.conv_transpose2d %arg0, %arg1, %arg2 stride [2, 1] padding [0, 1] output_padding [0, 0] dilation [1, 2] groups 2 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<?x6x11x7xf32>
  %1 = kiln.conv_transpose2d %x, %w, %b stride [2, 1] padding [0, 1] output_padding [0, 0] dilation [1, 2] groups 2 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<?x6x11x7xf32>
  // CHECK: kiln.conv_transpose1d %arg3, %arg4 stride [2] padding [0] output_padding [1] dilation [1] groups 4 : (tensor<2x4x7xf16>, tensor<4x1x3xf16>) -> tensor<2x4x16xf16>
  %2 = kiln.conv_transpose1d %x1, %w1 stride [2] padding [0] output_padding [1] dilation [1] groups 4 : (tensor<2x4x7xf16>, tensor<4x1x3xf16>) -> tensor<2x4x16xf16>
  return
}
// CHECK-LABEL: func.func @pools(
func.func @pools(%x: tensor<?x3x9x9xf32>, %y: tensor<2x3x9xf16>) {
  // CHECK: kiln.max_pool %arg0 kernel [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] ceil_mode : tensor<?x3x9x9xf32> -> tensor<?x3x4x4xf32>
  %0 = kiln.max_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] ceil_mode : tensor<?x3x9x9xf32> -> tensor<?x3x4x4xf32>
  // CHECK: kiln.max_pool_indices %arg0 kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode : tensor<?x3x9x9xf32> -> tensor<?x3x5x5xi64>
  %1 = kiln.max_pool_indices %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode : tensor<?x3x9x9xf32> -> tensor<?x3x5x5xi64>
  // CHECK: kiln.avg_pool %arg1 kernel [3] stride [2] padding [1] count_include_pad ceil_mode : tensor<2x3x9xf16> -> tensor<2x3x5xf16>
  %2 = kiln.avg_pool %y kernel [3] stride [2] padding [1] count_include_pad ceil_mode : tensor<2x3x9xf16> -> tensor<2x3x5xf16>
  // CHECK: kiln.avg_pool %arg1 kernel [2] stride [2] padding [0] : tensor<2x3x9xf16> -> tensor<2x3x4xf16>
  %3 = kiln.avg_pool %y kernel [2] stride [2] padding [0] : tensor<2x3x9xf16> -> tensor<2x3x4xf16>
  return
}
// CHECK-LABEL: func.func @interpolate(
func.func @interpolate(%x: tensor<?x3x4x5xf32>, %y: tensor<2x3x7xf16>) {
  // CHECK: kiln.interpolate %arg0 size [8, 10] mode linear align_corners : tensor<?x3x4x5xf32> -> tensor<?x3x8x10xf32>
  %0 = kiln.interpolate %x size [8, 10] mode linear align_corners : tensor<?x3x4x5xf32> -> tensor<?x3x8x10xf32>
  // CHECK: kiln.interpolate %arg0 size [6, 7] mode nearest scales [1.500000e+00, 1.500000e+00] : tensor<?x3x4x5xf32> -> tensor<?x3x6x7xf32>
  %1 = kiln.interpolate %x size [6, 7] mode nearest scales [1.5, 1.5] : tensor<?x3x4x5xf32> -> tensor<?x3x6x7xf32>
  // CHECK: kiln.interpolate %arg1 size [3] mode linear : tensor<2x3x7xf16> -> tensor<2x3x3xf16>
  %2 = kiln.interpolate %y size [3] mode linear : tensor<2x3x7xf16> -> tensor<2x3x3xf16>
  return
}
