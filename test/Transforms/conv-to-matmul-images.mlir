// RUN: tensor-opt %s --kiln-conv-to-matmul -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-conv-to-matmul --cse --kiln-fuse -split-input-file | FileCheck %s --check-prefix=FUSE

// Images with fewer than 64 output pixels each (here 2 images of 4 x 4)
// take their columns as one matrix, [C * KH * KW, N * OH * OW]: one
// product of 32 columns, its [O, N * P] result viewed back as
// [N, O, OH, OW] through a permute. The fuser puts the unfold in the
// matmul's kernel; the permute is a kernel of its own.
// CHECK-LABEL: func.func @few_pixels(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[A:.*]] = kiln.reshape %[[W]] [4, 27]
// CHECK: %[[C:.*]] = kiln.unfold %[[X]] kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x32xf32>
// CHECK: %[[M:.*]] = kiln.matmul %[[A]], %[[C]] : (tensor<4x27xf32>, tensor<27x32xf32>) -> tensor<4x32xf32>
// CHECK: %[[S:.*]] = kiln.add %[[M]], %{{.*}} : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
// CHECK: %[[V:.*]] = kiln.reshape %[[S]] [4, 2, 16]
// CHECK: %[[P:.*]] = kiln.permute %[[V]] [1, 0, 2] : tensor<4x2x16xf32> -> tensor<2x4x16xf32>
// CHECK: %[[Y:.*]] = kiln.reshape %[[P]] [2, 4, 4, 4]
// CHECK: return %[[Y]]
// FUSE-LABEL: func.func private @few_pixels_kernel0_matmul(
// FUSE: kiln.unfold {{.*}} images_in_columns
// FUSE: kiln.matmul
// FUSE: kiln.add
// FUSE-LABEL: func.func @few_pixels(
// FUSE-NOT: kiln.unfold
// FUSE: call @few_pixels_kernel0_matmul
func.func @few_pixels(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x4x4xf32> {
  %y = kiln.conv2d %x, %w, %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// -----

// A 1 x 1 window of few pixels unfolds too: the input viewed as
// [N, C, H * W] would need a permute to put the images along the columns.
// CHECK-LABEL: func.func @few_pixels_pointwise(
// CHECK: kiln.unfold %{{.*}} kernel [1, 1] stride [1, 1] padding [0, 0] dilation [1, 1] images_in_columns : tensor<3x5x2x2xf32> -> tensor<5x12xf32>
func.func @few_pixels_pointwise(%x: tensor<3x5x2x2xf32>, %w: tensor<6x5x1x1xf32>) -> tensor<3x6x2x2xf32> {
  %y = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<3x5x2x2xf32>, tensor<6x5x1x1xf32>) -> tensor<3x6x2x2xf32>
  return %y : tensor<3x6x2x2xf32>
}

// -----

// One image, or 64 pixels and more per image: the columns stay per image.
// CHECK-LABEL: func.func @per_image(
// CHECK-NOT: images_in_columns
// CHECK: kiln.unfold %{{.*}} : tensor<1x3x8x8xf32> -> tensor<1x27x16xf32>
// CHECK-NOT: images_in_columns
// CHECK: kiln.unfold %{{.*}} : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
// CHECK-NOT: kiln.permute
func.func @per_image(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %z: tensor<2x3x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<2x4x8x8xf32>) {
  %y = kiln.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %v = kiln.conv2d %z, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %y, %v : tensor<1x4x4x4xf32>, tensor<2x4x8x8xf32>
}
