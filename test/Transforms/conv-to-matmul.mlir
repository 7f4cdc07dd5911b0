// RUN: tensor-opt %s --kiln-conv-to-matmul="images-in-columns-below=0" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-conv-to-matmul="images-in-columns-below=0" --cse --kiln-fuse="transposed-operands=true" -split-input-file | FileCheck %s --check-prefix=FUSE

// A convolution of one group is its weight as [O, C * KH * KW] times the
// columns of its windows, plus the bias per row; the fuser puts the
// unfold inside the matmul's kernel, with the bias as its epilogue.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[A:.*]] = kiln.reshape %[[W]] [4, 27] : tensor<4x3x3x3xf32> -> tensor<4x27xf32>
// CHECK: %[[C:.*]] = kiln.unfold %[[X]] kernel [3, 3] stride [2, 1] padding [1, 0] dilation [1, 2] : tensor<2x3x8x8xf32> -> tensor<2x27x16xf32>
// CHECK: %[[M:.*]] = kiln.matmul %[[A]], %[[C]] : (tensor<4x27xf32>, tensor<2x27x16xf32>) -> tensor<2x4x16xf32>
// CHECK: %[[R:.*]] = kiln.reshape %[[B]] [4, 1] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[S:.*]] = kiln.add %[[M]], %[[R]]
// CHECK: %[[Y:.*]] = kiln.reshape %[[S]] [2, 4, 4, 4] : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
// CHECK: return %[[Y]]
// FUSE-LABEL: func.func private @conv_kernel0_matmul(
// FUSE-SAME: kiln.kernel = #kiln.kernel_kind<matmul>
// FUSE: kiln.unfold
// FUSE: kiln.matmul
// FUSE: kiln.add
// FUSE-LABEL: func.func @conv(
// FUSE-NOT: kiln.unfold
// FUSE: call @conv_kernel0_matmul
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x4x4xf32> {
  %y = kiln.conv2d %x, %w, %b stride [2, 1] padding [1, 0] dilation [1, 2] groups 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// -----

// A 1 x 1 window that steps by 1 without padding reads the input as it
// is: a plain product, no columns.
// CHECK-LABEL: func.func @pointwise(
// CHECK: %[[A:.*]] = kiln.reshape %{{.*}} [8, 3] : tensor<8x3x1x1xf32> -> tensor<8x3xf32>
// CHECK: %[[C:.*]] = kiln.reshape %{{.*}} [2, 3, 30] : tensor<2x3x5x6xf32> -> tensor<2x3x30xf32>
// CHECK-NOT: kiln.unfold
// CHECK: kiln.matmul %[[A]], %[[C]]
func.func @pointwise(%x: tensor<2x3x5x6xf32>, %w: tensor<8x3x1x1xf32>) -> tensor<2x8x5x6xf32> {
  %y = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<2x3x5x6xf32>, tensor<8x3x1x1xf32>) -> tensor<2x8x5x6xf32>
  return %y : tensor<2x8x5x6xf32>
}

// -----

// Left as they are: groups, a dtype other than f32, a dynamic batch.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: kiln.unfold
// CHECK-COUNT-3: kiln.conv2d
// CHECK-NOT: kiln.matmul
func.func @kept(%x: tensor<2x4x8x8xf32>, %w: tensor<4x2x3x3xf32>, %h: tensor<2x4x8x8xf16>, %v: tensor<4x4x3x3xf16>, %d: tensor<?x4x8x8xf32>, %u: tensor<4x4x3x3xf32>) -> (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf16>, tensor<?x4x6x6xf32>) {
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : (tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x6x6xf32>
  %1 = kiln.conv2d %h, %v stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<2x4x8x8xf16>, tensor<4x4x3x3xf16>) -> tensor<2x4x6x6xf16>
  %2 = kiln.conv2d %d, %u stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %0, %1, %2 : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf16>, tensor<?x4x6x6xf32>
}

// -----

// Elementwise ops on the convolution move onto the product, before the
// view back to NCHW: a residual viewed as [N, O, OH * OW], a per-channel
// scale as [O, 1]; the fuser then makes them the matmul's epilogue. An
// operand that varies along one spatial dim only keeps its op after the
// view.
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<3x3x3x3xf32>, %[[S:.*]]: tensor<3x1x1xf32>, %[[H:.*]]: tensor<2x3x8x1xf32>)
// CHECK: %[[M:.*]] = kiln.matmul
// CHECK: %[[R:.*]] = kiln.relu %[[M]] : tensor<2x3x64xf32>
// CHECK: %[[XF:.*]] = kiln.reshape %[[X]] [2, 3, 64] : tensor<2x3x8x8xf32> -> tensor<2x3x64xf32>
// CHECK: %[[A:.*]] = kiln.add %[[R]], %[[XF]] : (tensor<2x3x64xf32>, tensor<2x3x64xf32>) -> tensor<2x3x64xf32>
// CHECK: %[[SF:.*]] = kiln.reshape %[[S]] [3, 1] : tensor<3x1x1xf32> -> tensor<3x1xf32>
// CHECK: %[[T:.*]] = kiln.mul %[[A]], %[[SF]] : (tensor<2x3x64xf32>, tensor<3x1xf32>) -> tensor<2x3x64xf32>
// CHECK: %[[V:.*]] = kiln.reshape %[[T]] [2, 3, 8, 8] : tensor<2x3x64xf32> -> tensor<2x3x8x8xf32>
// CHECK: kiln.sub %[[V]], %[[H]] : (tensor<2x3x8x8xf32>, tensor<2x3x8x1xf32>) -> tensor<2x3x8x8xf32>
// FUSE-LABEL: func.func private @epilogue_kernel0_matmul(
// FUSE: kiln.matmul
// FUSE: kiln.relu
// FUSE: kiln.add
// FUSE: kiln.mul
// FUSE: return
func.func @epilogue(%x: tensor<2x3x8x8xf32>, %w: tensor<3x3x3x3xf32>, %s: tensor<3x1x1xf32>, %h: tensor<2x3x8x1xf32>) -> tensor<2x3x8x8xf32> {
  %y = kiln.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  %r = kiln.relu %y : tensor<2x3x8x8xf32>
  %a = kiln.add %r, %x : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %t = kiln.mul %a, %s : (tensor<2x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<2x3x8x8xf32>
  %u = kiln.sub %t, %h : (tensor<2x3x8x8xf32>, tensor<2x3x8x1xf32>) -> tensor<2x3x8x8xf32>
  return %u : tensor<2x3x8x8xf32>
}

// -----

// The input's gradient, with windows that step by 1, is the convolution of
// the output's gradient with the weight flipped and its channels swapped,
// padded by dilation * (kernel - 1) - padding.
// CHECK-LABEL: func.func @grad_input(
// CHECK-SAME: %[[G:.*]]: tensor<2x4x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[F:.*]] = kiln.flip %[[W]] [2, 3] : tensor<4x3x3x3xf32>
// CHECK: %[[T:.*]] = kiln.permute %[[F]] [1, 0, 2, 3] : tensor<4x3x3x3xf32> -> tensor<3x4x3x3xf32>
// CHECK: %[[A:.*]] = kiln.reshape %[[T]] [3, 36]
// CHECK: %[[C:.*]] = kiln.unfold %[[G]] kernel [3, 3] stride [1, 1] padding [1, 2] dilation [1, 2] : tensor<2x4x8x8xf32> -> tensor<2x36x64xf32>
// CHECK: kiln.matmul %[[A]], %[[C]]
// CHECK-NOT: kiln.conv2d_backward_input
func.func @grad_input(%g: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 2] dilation [1, 2] groups 1 : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

// With groups, the channels are swapped within each group: the weight
// [O = 6, C/G = 2, 3, 3] of 3 groups, flipped, as [3, 2, 2, 3, 3] with its
// two channel dims swapped, is [C = 6, O/G = 2, 3, 3]; the gradient is a
// convolution of 3 groups (left to the generic path).
// CHECK-LABEL: func.func @grad_input_grouped(
// CHECK-SAME: %[[G:.*]]: tensor<2x6x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK: %[[F:.*]] = kiln.flip %[[W]] [2, 3] : tensor<6x2x3x3xf32>
// CHECK: %[[S:.*]] = kiln.reshape %[[F]] [3, 2, 2, 3, 3]
// CHECK: %[[T:.*]] = kiln.permute %[[S]] [0, 2, 1, 3, 4]
// CHECK: %[[K:.*]] = kiln.reshape %[[T]] [6, 2, 3, 3]
// CHECK: kiln.conv2d %[[G]], %[[K]] stride [1, 1] padding [1, 1] dilation [1, 1] groups 3 : (tensor<2x6x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x8x8xf32>
// CHECK-NOT: kiln.conv2d_backward_input
func.func @grad_input_grouped(%g: tensor<2x6x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x8x8xf32> {
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 3 : (tensor<2x6x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x8x8xf32>
  return %0 : tensor<2x6x8x8xf32>
}

// -----

// With stride 2, each of the 4 phases of input rows and columns is a
// stride-1 convolution of the gradient with the taps that reach it (a
// 3 x 3 kernel with padding 1 gives 1 x 1, 1 x 2, 2 x 1 and 2 x 2 taps),
// the gradient padded past its end where a phase reads there; the
// phases are interleaved by concatenation and a reshape.
// CHECK-LABEL: func.func @grad_input_strided(
// CHECK-SAME: %[[G:.*]]: tensor<1x4x4x4xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[F:.*]] = kiln.flip %[[W]] [2, 3]
// CHECK: kiln.slice %[[F]] [0, 0, 1, 1] [4, 3, 3, 3] [1, 1, 2, 2] : tensor<4x3x3x3xf32> -> tensor<4x3x1x1xf32>
// CHECK: kiln.matmul
// CHECK: kiln.slice %[[F]] [0, 0, 1, 0] [4, 3, 3, 3] [1, 1, 2, 2] : tensor<4x3x3x3xf32> -> tensor<4x3x1x2xf32>
// CHECK: kiln.pad %[[G]] low [0, 0, 0, 0] high [0, 0, 0, 1]
// CHECK: kiln.unfold %{{.*}} kernel [1, 2]
// CHECK: kiln.concat %{{.*}}, %{{.*}} axis = 5
// CHECK: kiln.slice %[[F]] [0, 0, 0, 1] [4, 3, 3, 3] [1, 1, 2, 2] : tensor<4x3x3x3xf32> -> tensor<4x3x2x1xf32>
// CHECK: kiln.unfold %{{.*}} kernel [2, 1]
// CHECK: kiln.slice %[[F]] [0, 0, 0, 0] [4, 3, 3, 3] [1, 1, 2, 2] : tensor<4x3x3x3xf32> -> tensor<4x3x2x2xf32>
// CHECK: kiln.unfold %{{.*}} kernel [2, 2]
// CHECK: kiln.concat %{{.*}}, %{{.*}} axis = 3 : {{.*}} -> tensor<1x3x4x2x4x2xf32>
// CHECK: kiln.reshape %{{.*}} [1, 3, 8, 8] : tensor<1x3x4x2x4x2xf32> -> tensor<1x3x8x8xf32>
// CHECK-NOT: kiln.conv2d_backward_input
func.func @grad_input_strided(%g: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32> {
  %0 = kiln.conv2d_backward_input %g, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// The weight's gradient: the output's gradient times the transposed
// columns, per image, summed over the images. The fuser puts the unfold
// and its transpose in the matmul's kernel.
// CHECK-LABEL: func.func @grad_weight(
// CHECK-SAME: %[[G:.*]]: tensor<2x4x4x4xf32>, %[[X:.*]]: tensor<2x3x8x8xf32>)
// CHECK: %[[GF:.*]] = kiln.reshape %[[G]] [2, 4, 16] : tensor<2x4x4x4xf32> -> tensor<2x4x16xf32>
// CHECK: %[[C:.*]] = kiln.unfold %[[X]] kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x16xf32>
// CHECK: %[[CT:.*]] = kiln.permute %[[C]] [0, 2, 1] : tensor<2x27x16xf32> -> tensor<2x16x27xf32>
// CHECK: %[[M:.*]] = kiln.matmul %[[GF]], %[[CT]] : (tensor<2x4x16xf32>, tensor<2x16x27xf32>) -> tensor<2x4x27xf32>
// CHECK: %[[S:.*]] = kiln.sum %[[M]] [0] : tensor<2x4x27xf32> -> tensor<4x27xf32>
// CHECK: kiln.reshape %[[S]] [4, 3, 3, 3] : tensor<4x27xf32> -> tensor<4x3x3x3xf32>
// FUSE-LABEL: func.func private @grad_weight_kernel{{[0-9]+}}_matmul(
// FUSE: kiln.unfold
// FUSE: kiln.permute
// FUSE: kiln.matmul
// FUSE: return
// FUSE-LABEL: func.func @grad_weight(
// FUSE-NOT: kiln.unfold
// FUSE: return
func.func @grad_weight(%g: tensor<2x4x4x4xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %0 = kiln.conv2d_backward_weight %g, %x stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// With many output channels and few output pixels per image (here 64
// channels, 2 x 2 pixels), the weight's gradient is one product over all
// images, [O, N * P] x [N * P, C * KH * KW]: no per-image gradients to
// write and sum. The columns of all images are one unfold, which the
// fuser puts in the matmul's kernel as its transposed right operand.
// CHECK-LABEL: func.func @grad_weight_folded(
// CHECK-SAME: %[[G:.*]]: tensor<2x64x2x2xf32>, %[[X:.*]]: tensor<2x3x4x4xf32>)
// CHECK: %[[GF:.*]] = kiln.reshape %[[G]] [2, 64, 4]
// CHECK: %[[C:.*]] = kiln.unfold %[[X]] kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x4x4xf32> -> tensor<27x8xf32>
// CHECK: %[[CT:.*]] = kiln.permute %[[C]] [1, 0] : tensor<27x8xf32> -> tensor<8x27xf32>
// CHECK: %[[GP:.*]] = kiln.permute %[[GF]] [1, 0, 2] : tensor<2x64x4xf32> -> tensor<64x2x4xf32>
// CHECK: %[[GG:.*]] = kiln.reshape %[[GP]] [64, 8]
// CHECK: %[[M:.*]] = kiln.matmul %[[GG]], %[[CT]] : (tensor<64x8xf32>, tensor<8x27xf32>) -> tensor<64x27xf32>
// CHECK-NOT: kiln.sum
// CHECK: kiln.reshape %[[M]] [64, 3, 3, 3]
// FUSE-LABEL: func.func private @grad_weight_folded_kernel{{[0-9]+}}_matmul(
// FUSE: kiln.unfold {{.*}} images_in_columns
// FUSE: kiln.permute
// FUSE: kiln.matmul
// FUSE-LABEL: func.func @grad_weight_folded(
// FUSE-NOT: kiln.unfold
func.func @grad_weight_folded(%g: tensor<2x64x2x2xf32>, %x: tensor<2x3x4x4xf32>) -> tensor<64x3x3x3xf32> {
  %0 = kiln.conv2d_backward_weight %g, %x stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x64x2x2xf32>, tensor<2x3x4x4xf32>) -> tensor<64x3x3x3xf32>
  return %0 : tensor<64x3x3x3xf32>
}

// -----

// A training step's forward product and weight gradient read the same
// columns; after CSE they are one unfold, and the fuser gives each matmul
// its own copy, packed from the input: no kernel stores the columns.
// FUSE-LABEL: func.func private @shared_columns_kernel0_matmul(
// FUSE: kiln.unfold
// FUSE: kiln.matmul
// FUSE-LABEL: func.func private @shared_columns_kernel1_matmul(
// FUSE: kiln.unfold
// FUSE: kiln.permute
// FUSE: kiln.matmul
// FUSE-NOT: _generic(
// FUSE-LABEL: func.func @shared_columns(
// FUSE-NOT: kiln.unfold
// FUSE: return
func.func @shared_columns(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %g: tensor<2x4x8x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) {
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %0, %1 : tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>
}

// -----

// A sum over both spatial dims (or neither) of the [N, C, H, W] view of a
// [N, C, H * W] value reads the value itself, so that the elementwise ops
// producing it fuse into the sum; one over a single spatial dim keeps the
// view.
// CHECK-LABEL: func.func @sum_of_view(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x16xf32>)
// CHECK: %[[V:.*]] = kiln.reshape %[[X]] [2, 3, 4, 4]
// CHECK: %[[S:.*]] = kiln.sum %[[X]] [0, 2] keepdim : tensor<2x3x16xf32> -> tensor<1x3x1xf32>
// CHECK: kiln.reshape %[[S]] [1, 3, 1, 1]
// CHECK: kiln.sum %[[V]] [3] : tensor<2x3x4x4xf32> -> tensor<2x3x4xf32>
// CHECK: kiln.sum %[[X]] [0] : tensor<2x3x16xf32> -> tensor<3x16xf32>
func.func @sum_of_view(%x: tensor<2x3x16xf32>) -> (tensor<1x3x1x1xf32>, tensor<2x3x4xf32>, tensor<3x4x4xf32>) {
  %v = kiln.reshape %x [2, 3, 4, 4] : tensor<2x3x16xf32> -> tensor<2x3x4x4xf32>
  %s = kiln.sum %v [0, 2, 3] keepdim : tensor<2x3x4x4xf32> -> tensor<1x3x1x1xf32>
  %t = kiln.sum %v [3] : tensor<2x3x4x4xf32> -> tensor<2x3x4xf32>
  %u = kiln.sum %v [0] : tensor<2x3x4x4xf32> -> tensor<3x4x4xf32>
  return %s, %t, %u : tensor<1x3x1x1xf32>, tensor<2x3x4xf32>, tensor<3x4x4xf32>
}

// -----

// The [N, C, H * W] view of a per-channel value expanded to [N, C, H, W]
// is that value expanded to [N, C, H * W], which its readers broadcast in
// place; a value that varies over the pixels keeps its expand.
// CHECK-LABEL: func.func @view_of_expand(
// CHECK-SAME: %[[V:.*]]: tensor<1x3x1x1xf32>, %[[X:.*]]: tensor<2x3x16xf32>, %[[R:.*]]: tensor<1x3x4x1xf32>)
// CHECK: %[[F:.*]] = kiln.reshape %[[V]] [1, 3, 1] : tensor<1x3x1x1xf32> -> tensor<1x3x1xf32>
// CHECK: %[[E:.*]] = kiln.expand %[[F]] [2, 3, 16] : tensor<1x3x1xf32> -> tensor<2x3x16xf32>
// CHECK: kiln.add %[[E]], %[[X]]
// CHECK: kiln.expand %[[R]] [2, 3, 4, 4] : tensor<1x3x4x1xf32> -> tensor<2x3x4x4xf32>
func.func @view_of_expand(%v: tensor<1x3x1x1xf32>, %x: tensor<2x3x16xf32>, %r: tensor<1x3x4x1xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x16xf32>) {
  %e = kiln.expand %v [2, 3, 4, 4] : tensor<1x3x1x1xf32> -> tensor<2x3x4x4xf32>
  %f = kiln.reshape %e [2, 3, 16] : tensor<2x3x4x4xf32> -> tensor<2x3x16xf32>
  %a = kiln.add %f, %x : (tensor<2x3x16xf32>, tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  %g = kiln.expand %r [2, 3, 4, 4] : tensor<1x3x4x1xf32> -> tensor<2x3x4x4xf32>
  %h = kiln.reshape %g [2, 3, 16] : tensor<2x3x4x4xf32> -> tensor<2x3x16xf32>
  return %a, %h : tensor<2x3x16xf32>, tensor<2x3x16xf32>
}
