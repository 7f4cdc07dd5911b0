// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Convolutions and pooling (generic path), their backward ops, and the
// composites (layer_norm, dropout, cross_entropy) after --kiln-decompose.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED
// CHECK-NOT: __nv_

// CHECK-LABEL: // PTX conv_kernel0_
// CHECK: .visible .entry conv_kernel0_
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %y: tensor<2x4x9x9xf16>, %v: tensor<8x2x2x2xf16>, %x1: tensor<2x4x10xf32>, %w1: tensor<6x2x3xf32>, %b1: tensor<6xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x3x3xf32>, tensor<2x8x7x5xf16>, tensor<2x6x3xf32>) {
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = kiln.conv2d %x, %w, %b stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %2 = kiln.conv2d %y, %v stride [1, 2] padding [0, 1] dilation [2, 1] groups 2 : (tensor<2x4x9x9xf16>, tensor<8x2x2x2xf16>) -> tensor<2x8x7x5xf16>
  %3 = kiln.conv1d %x1, %w1, %b1 stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  return %0, %1, %2, %3 : tensor<1x4x8x8xf32>, tensor<1x4x3x3xf32>, tensor<2x8x7x5xf16>, tensor<2x6x3xf32>
}

// CHECK-LABEL: // PTX pool_kernel0_
func.func @pool(%x: tensor<1x3x8x8xf32>, %y: tensor<2x2x5x5xf64>) -> (tensor<1x3x4x4xf32>, tensor<2x2x5x5xf64>, tensor<1x3x4x4xf32>, tensor<1x3x5x3xf32>) {
  %0 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %1 = kiln.max_pool2d %y kernel [3, 3] stride [1, 1] padding [1, 1] : tensor<2x2x5x5xf64> -> tensor<2x2x5x5xf64>
  %2 = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %3 = kiln.avg_pool2d %x kernel [2, 4] stride [2, 4] padding [1, 2] count_include_pad : tensor<1x3x8x8xf32> -> tensor<1x3x5x3xf32>
  return %0, %1, %2, %3 : tensor<1x3x4x4xf32>, tensor<2x2x5x5xf64>, tensor<1x3x4x4xf32>, tensor<1x3x5x3xf32>
}

// The columns of a convolution's windows (the Cpu backend's lowering of
// convolutions; a graph may name them too), per image and with the images
// along the columns.
// CHECK-LABEL: // PTX unfold_kernel0_
// CHECK: .visible .entry unfold_kernel0_
// CHECK-LABEL: // PTX unfold_kernel2_
// CHECK: .visible .entry unfold_kernel2_
func.func @unfold(%x: tensor<2x3x8x8xf32>, %y: tensor<1x2x7x9xf16>) -> (tensor<2x27x16xf32>, tensor<1x8x42xf16>, tensor<27x32xf32>) {
  %0 = kiln.unfold %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x16xf32>
  %1 = kiln.unfold %y kernel [2, 2] stride [1, 1] padding [0, 0] dilation [1, 2] : tensor<1x2x7x9xf16> -> tensor<1x8x42xf16>
  %2 = kiln.unfold %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x32xf32>
  return %0, %1, %2 : tensor<2x27x16xf32>, tensor<1x8x42xf16>, tensor<27x32xf32>
}

// CHECK-LABEL: // PTX backward_kernel0_
func.func @backward(%g: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<1x3x8x8xf32>, %pg: tensor<1x3x4x4xf32>) -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %1 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  %2 = kiln.max_pool2d_backward %pg, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %3 = kiln.avg_pool2d_backward %pg, %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0, %1, %2, %3 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// CHECK-LABEL: // PTX composites_kernel0_
// CHECK: shfl.sync.bfly
// CHECK: sqrt.rn.f32
func.func @composites(%x: tensor<8x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>, %l: tensor<8xi64>) -> (tensor<8x256xf32>, tensor<8x256xf32>, tensor<f32>) {
  %0 = kiln.layer_norm %x weight %g bias %b eps 1.0e-05 : (tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  %1 = kiln.dropout %x p = 1.0e-01 seed = 3 : tensor<8x256xf32>
  %2 = kiln.cross_entropy %x, %l : (tensor<8x256xf32>, tensor<8xi64>) -> tensor<f32>
  return %0, %1, %2 : tensor<8x256xf32>, tensor<8x256xf32>, tensor<f32>
}

// The CNN composites: batch and group norm, and adaptive pooling of every
// kind (global, uniform windows, and uneven windows through matmuls or
// index_select), in f32 and f16.

// CHECK-LABEL: // PTX cnn_composites_kernel0_
func.func @cnn_composites(%x: tensor<2x4x5x7xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<2x4x6x6xf16>, %g: tensor<4xf16>) -> (tensor<2x4x5x7xf32>, tensor<2x4x6x6xf16>, tensor<2x4x1x1xf32>, tensor<2x4x3x3xf32>, tensor<2x4x3x2xf32>, tensor<2x4x3x3xf16>, tensor<2x4x4x4xf16>) {
  %0 = kiln.batch_norm %x, %m, %v weight %m bias %v eps 1.0e-05 : (tensor<2x4x5x7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x7xf32>
  %1 = kiln.group_norm %h weight %g bias %g groups 2 eps 1.0e-05 : (tensor<2x4x6x6xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x4x6x6xf16>
  %2 = kiln.adaptive_avg_pool2d %x size [1, 1] : tensor<2x4x5x7xf32> -> tensor<2x4x1x1xf32>
  %3 = kiln.adaptive_avg_pool2d %x size [3, 3] : tensor<2x4x5x7xf32> -> tensor<2x4x3x3xf32>
  %4 = kiln.adaptive_max_pool2d %x size [3, 2] : tensor<2x4x5x7xf32> -> tensor<2x4x3x2xf32>
  %5 = kiln.adaptive_max_pool2d %h size [3, 3] : tensor<2x4x6x6xf16> -> tensor<2x4x3x3xf16>
  %6 = kiln.adaptive_avg_pool2d %h size [4, 4] : tensor<2x4x6x6xf16> -> tensor<2x4x4x4xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x4x5x7xf32>, tensor<2x4x6x6xf16>, tensor<2x4x1x1xf32>, tensor<2x4x3x3xf32>, tensor<2x4x3x2xf32>, tensor<2x4x3x3xf16>, tensor<2x4x4x4xf16>
}

// Transposed convolutions (strided, with output padding, groups, dilation;
// 1-D) in f32 and f16.

// CHECK-LABEL: // PTX conv_transpose_kernel0_
func.func @conv_transpose(%x: tensor<2x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>, %x1: tensor<2x4x7xf16>, %w1: tensor<4x1x3xf16>) -> (tensor<2x3x10x10xf32>, tensor<2x6x11x7xf32>, tensor<2x4x16xf16>) {
  %0 = kiln.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x10x10xf32>
  %1 = kiln.conv_transpose2d %x, %w, %b stride [2, 1] padding [0, 1] output_padding [0, 0] dilation [1, 2] groups 2 : (tensor<2x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<2x6x11x7xf32>
  %2 = kiln.conv_transpose1d %x1, %w1 stride [2] padding [0] output_padding [1] dilation [1] groups 4 : (tensor<2x4x7xf16>, tensor<4x1x3xf16>) -> tensor<2x4x16xf16>
  return %0, %1, %2 : tensor<2x3x10x10xf32>, tensor<2x6x11x7xf32>, tensor<2x4x16xf16>
}

// Pooling with dilation, ceil mode and indices, 1-D and 2-D.

// CHECK-LABEL: // PTX pool_options_kernel0_
func.func @pool_options(%x: tensor<2x3x9x9xf32>, %y: tensor<2x3x9xf16>) -> (tensor<2x3x4x4xf32>, tensor<2x3x5x5xi64>, tensor<2x3x5xf16>, tensor<2x3x4xf16>) {
  %0 = kiln.max_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [2, 2] ceil_mode : tensor<2x3x9x9xf32> -> tensor<2x3x4x4xf32>
  %1 = kiln.max_pool_indices %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xi64>
  %2 = kiln.avg_pool %y kernel [3] stride [2] padding [1] ceil_mode : tensor<2x3x9xf16> -> tensor<2x3x5xf16>
  %3 = kiln.max_pool %y kernel [2] stride [2] padding [0] dilation [1] : tensor<2x3x9xf16> -> tensor<2x3x4xf16>
  return %0, %1, %2, %3 : tensor<2x3x4x4xf32>, tensor<2x3x5x5xi64>, tensor<2x3x5xf16>, tensor<2x3x4xf16>
}

// Resizing: nearest and bilinear, with and without aligned corners.

// CHECK-LABEL: // PTX interpolate_kernel0_
func.func @interpolate(%x: tensor<2x3x5x6xf32>, %y: tensor<2x3x7xf16>) -> (tensor<2x3x10x12xf32>, tensor<2x3x8x9xf32>, tensor<2x3x3xf16>) {
  %0 = kiln.interpolate %x size [10, 12] mode nearest : tensor<2x3x5x6xf32> -> tensor<2x3x10x12xf32>
  %1 = kiln.interpolate %x size [8, 9] mode linear align_corners : tensor<2x3x5x6xf32> -> tensor<2x3x8x9xf32>
  %2 = kiln.interpolate %y size [3] mode linear : tensor<2x3x7xf16> -> tensor<2x3x3xf16>
  return %0, %1, %2 : tensor<2x3x10x12xf32>, tensor<2x3x8x9xf32>, tensor<2x3x3xf16>
}

// Convolutions, pooling, their backward ops and the nn composites in f64,
// f16 and bf16.

// CHECK-LABEL: // PTX nn_f64_kernel0_
func.func @nn_f64(%x: tensor<1x3x8x8xf64>, %w: tensor<4x3x3x3xf64>, %b: tensor<4xf64>, %x1: tensor<2x4x10xf64>, %w1: tensor<6x2x3xf64>, %g: tensor<1x4x8x8xf64>, %pg: tensor<1x3x4x4xf64>, %r: tensor<8x256xf64>, %gamma: tensor<256xf64>, %beta: tensor<256xf64>, %l: tensor<8xi32>) -> (tensor<1x4x8x8xf64>, tensor<2x6x3xf64>, tensor<1x3x4x4xf64>, tensor<1x3x4x4xf64>, tensor<1x3x8x8xf64>, tensor<4x3x3x3xf64>, tensor<1x3x8x8xf64>, tensor<1x3x8x8xf64>, tensor<8x256xf64>, tensor<8x256xf64>, tensor<f64>) {
  %v0 = kiln.conv2d %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf64>, tensor<4x3x3x3xf64>, tensor<4xf64>) -> tensor<1x4x8x8xf64>
  %v1 = kiln.conv1d %x1, %w1 stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xf64>, tensor<6x2x3xf64>) -> tensor<2x6x3xf64>
  %v2 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf64> -> tensor<1x3x4x4xf64>
  %v3 = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xf64> -> tensor<1x3x4x4xf64>
  %v4 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf64>, tensor<4x3x3x3xf64>) -> tensor<1x3x8x8xf64>
  %v5 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf64>, tensor<1x3x8x8xf64>) -> tensor<4x3x3x3xf64>
  %v6 = kiln.max_pool2d_backward %pg, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf64>, tensor<1x3x8x8xf64>) -> tensor<1x3x8x8xf64>
  %v7 = kiln.avg_pool2d_backward %pg, %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xf64>, tensor<1x3x8x8xf64>) -> tensor<1x3x8x8xf64>
  %v8 = kiln.layer_norm %r weight %gamma bias %beta eps 1.0e-05 : (tensor<8x256xf64>, tensor<256xf64>, tensor<256xf64>) -> tensor<8x256xf64>
  %v9 = kiln.dropout %r p = 1.0e-01 seed = 3 : tensor<8x256xf64>
  %v10 = kiln.cross_entropy %r, %l : (tensor<8x256xf64>, tensor<8xi32>) -> tensor<f64>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<1x4x8x8xf64>, tensor<2x6x3xf64>, tensor<1x3x4x4xf64>, tensor<1x3x4x4xf64>, tensor<1x3x8x8xf64>, tensor<4x3x3x3xf64>, tensor<1x3x8x8xf64>, tensor<1x3x8x8xf64>, tensor<8x256xf64>, tensor<8x256xf64>, tensor<f64>
}

// CHECK-LABEL: // PTX nn_f16_kernel0_
func.func @nn_f16(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>, %b: tensor<4xf16>, %x1: tensor<2x4x10xf16>, %w1: tensor<6x2x3xf16>, %g: tensor<1x4x8x8xf16>, %pg: tensor<1x3x4x4xf16>, %r: tensor<8x256xf16>, %gamma: tensor<256xf16>, %beta: tensor<256xf16>, %l: tensor<8xi32>) -> (tensor<1x4x8x8xf16>, tensor<2x6x3xf16>, tensor<1x3x4x4xf16>, tensor<1x3x4x4xf16>, tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>, tensor<1x3x8x8xf16>, tensor<1x3x8x8xf16>, tensor<8x256xf16>, tensor<8x256xf16>, tensor<f16>) {
  %v0 = kiln.conv2d %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>) -> tensor<1x4x8x8xf16>
  %v1 = kiln.conv1d %x1, %w1 stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xf16>, tensor<6x2x3xf16>) -> tensor<2x6x3xf16>
  %v2 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf16> -> tensor<1x3x4x4xf16>
  %v3 = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xf16> -> tensor<1x3x4x4xf16>
  %v4 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x3x8x8xf16>
  %v5 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf16>, tensor<1x3x8x8xf16>) -> tensor<4x3x3x3xf16>
  %v6 = kiln.max_pool2d_backward %pg, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf16>, tensor<1x3x8x8xf16>) -> tensor<1x3x8x8xf16>
  %v7 = kiln.avg_pool2d_backward %pg, %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xf16>, tensor<1x3x8x8xf16>) -> tensor<1x3x8x8xf16>
  %v8 = kiln.layer_norm %r weight %gamma bias %beta eps 1.0e-05 : (tensor<8x256xf16>, tensor<256xf16>, tensor<256xf16>) -> tensor<8x256xf16>
  %v9 = kiln.dropout %r p = 1.0e-01 seed = 3 : tensor<8x256xf16>
  %v10 = kiln.cross_entropy %r, %l : (tensor<8x256xf16>, tensor<8xi32>) -> tensor<f16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<1x4x8x8xf16>, tensor<2x6x3xf16>, tensor<1x3x4x4xf16>, tensor<1x3x4x4xf16>, tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>, tensor<1x3x8x8xf16>, tensor<1x3x8x8xf16>, tensor<8x256xf16>, tensor<8x256xf16>, tensor<f16>
}

// CHECK-LABEL: // PTX nn_bf16_kernel0_
func.func @nn_bf16(%x: tensor<1x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %b: tensor<4xbf16>, %x1: tensor<2x4x10xbf16>, %w1: tensor<6x2x3xbf16>, %g: tensor<1x4x8x8xbf16>, %pg: tensor<1x3x4x4xbf16>, %r: tensor<8x256xbf16>, %gamma: tensor<256xbf16>, %beta: tensor<256xbf16>, %l: tensor<8xi32>) -> (tensor<1x4x8x8xbf16>, tensor<2x6x3xbf16>, tensor<1x3x4x4xbf16>, tensor<1x3x4x4xbf16>, tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16>, tensor<1x3x8x8xbf16>, tensor<1x3x8x8xbf16>, tensor<8x256xbf16>, tensor<8x256xbf16>, tensor<bf16>) {
  %v0 = kiln.conv2d %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16>, tensor<4xbf16>) -> tensor<1x4x8x8xbf16>
  %v1 = kiln.conv1d %x1, %w1 stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xbf16>, tensor<6x2x3xbf16>) -> tensor<2x6x3xbf16>
  %v2 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xbf16> -> tensor<1x3x4x4xbf16>
  %v3 = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xbf16> -> tensor<1x3x4x4xbf16>
  %v4 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<1x3x8x8xbf16>
  %v5 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xbf16>, tensor<1x3x8x8xbf16>) -> tensor<4x3x3x3xbf16>
  %v6 = kiln.max_pool2d_backward %pg, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xbf16>, tensor<1x3x8x8xbf16>) -> tensor<1x3x8x8xbf16>
  %v7 = kiln.avg_pool2d_backward %pg, %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xbf16>, tensor<1x3x8x8xbf16>) -> tensor<1x3x8x8xbf16>
  %v8 = kiln.layer_norm %r weight %gamma bias %beta eps 1.0e-05 : (tensor<8x256xbf16>, tensor<256xbf16>, tensor<256xbf16>) -> tensor<8x256xbf16>
  %v9 = kiln.dropout %r p = 1.0e-01 seed = 3 : tensor<8x256xbf16>
  %v10 = kiln.cross_entropy %r, %l : (tensor<8x256xbf16>, tensor<8xi32>) -> tensor<bf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<1x4x8x8xbf16>, tensor<2x6x3xbf16>, tensor<1x3x4x4xbf16>, tensor<1x3x4x4xbf16>, tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16>, tensor<1x3x8x8xbf16>, tensor<1x3x8x8xbf16>, tensor<8x256xbf16>, tensor<8x256xbf16>, tensor<bf16>
}


// Llama's blocks and the activations (composites), and dropout with a
// run-time offset.
// CHECK-LABEL: // PTX llm_blocks_kernel0_
func.func @llm_blocks(%r: tensor<8x256xf32>, %gamma: tensor<256xf32>, %h: tensor<8x256xbf16>, %hg: tensor<256xbf16>, %o: tensor<i64>) -> (tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xf32>, tensor<8x256xbf16>) {
  %0 = kiln.rms_norm %r weight %gamma eps 1.0e-06 : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  %1 = kiln.rms_norm %h weight %hg eps 1.0e-06 : (tensor<8x256xbf16>, tensor<256xbf16>) -> tensor<8x256xbf16>
  %2 = kiln.softplus %r beta = 2.0 threshold = 20.0 : tensor<8x256xf32>
  %3 = kiln.leaky_relu %h negative_slope = 0.1 : tensor<8x256xbf16>
  %4 = kiln.elu %r alpha = 1.0 : tensor<8x256xf32>
  %5 = kiln.hardswish %h : tensor<8x256xbf16>
  %6 = kiln.log_sigmoid %r : tensor<8x256xf32>
  %7 = kiln.mish %h : tensor<8x256xbf16>
  %8 = kiln.dropout %r p = 1.0e-01 seed = 3 offset %o : tensor<i64> : tensor<8x256xf32>
  %9 = kiln.rope %r offset %o : tensor<i64> theta 1.0e+04 : tensor<8x256xf32>
  %10 = kiln.rope %h theta 5.0e+05 interleaved : tensor<8x256xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xbf16>, tensor<8x256xf32>, tensor<8x256xf32>, tensor<8x256xbf16>
}
