// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Forward convolution uses linalg's named ops on a padded input, pooling
// generics that sweep each window row by row; the backward ops are
// generics reducing over the kernel window.

// CHECK-DAG: #[[NCHW:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[IN2:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d3, d5 * 2 + d4)>
// CHECK-DAG: #[[WIN6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[OUT6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-DAG: #[[IN1:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d3, d4 + d5)>
// CHECK-DAG: #[[IN24:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d3, d5 * 4 + d4)>

// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK: %[[Y0:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%[[Z]] : tensor<1x4x8x8xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
// CHECK: %[[Y1:.*]] = linalg.generic {indexing_maps = [#[[NCHW]], #[[BIAS]], #[[NCHW]]], {{.*}} ins(%[[C]], %[[B]] : tensor<1x4x3x3xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y0]], %[[Y1]]
// CHECK-NOT: kiln.
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x3x3xf32>) {
  %0 = kiln.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = kiln.conv2d %x, %w, %b stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %0, %1 : tensor<1x4x8x8xf32>, tensor<1x4x3x3xf32>
}

// Groups: [N, C, H, W] -> [N, G, C/G, H, W] and [O, C/G, KH, KW] ->
// [G, O/G, C/G, KH, KW]; f16 accumulates in f32.
// CHECK-LABEL: func.func @grouped(
// CHECK-SAME: %[[X:.*]]: tensor<?x4x9x9xf16>, %[[W:.*]]: tensor<8x2x2x2xf16>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 2, 2, 9, 11] : tensor<?x4x9x11xf16> into tensor<?x2x2x9x11xf16>
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 4, 2, 2, 2] : tensor<8x2x2x2xf16> into tensor<2x4x2x2x2xf16>
// CHECK: %[[Y:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%[[XG]], %[[WG]] : tensor<?x2x2x9x11xf16>, tensor<2x4x2x2x2xf16>) outs(%{{.*}} : tensor<?x2x4x7x5xf32>)
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x4x7x5xf32> into tensor<?x8x7x5xf32>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: kiln.
func.func @grouped(%y: tensor<?x4x9x9xf16>, %v: tensor<8x2x2x2xf16>) -> tensor<?x8x7x5xf16> {
  %2 = kiln.conv2d %y, %v stride [1, 2] padding [0, 1] dilation [2, 1] groups 2 : (tensor<?x4x9x9xf16>, tensor<8x2x2x2xf16>) -> tensor<?x8x7x5xf16>
  return %2 : tensor<?x8x7x5xf16>
}

// conv1d decomposes into a conv2d over a unit height.
// CHECK-LABEL: func.func @conv1d(
// CHECK: tensor.expand_shape
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape
// CHECK-NOT: kiln.
func.func @conv1d(%x: tensor<2x4x10xf32>, %w: tensor<6x2x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x3xf32> {
  %1 = kiln.conv1d %x, %w, %b stride [2] padding [0] dilation [2] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  return %1 : tensor<2x6x3xf32>
}

// Max pooling pads with -inf; average pooling sums in f64 and divides by
// the window (count_include_pad) or by its in-bounds part. Both sweep the
// windows in a generic whose loops run (n, c, oh, kh, kw, ow): the
// innermost loop walks an output row, and the input at the stride.
// CHECK-LABEL: func.func @pool(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>, %[[Y:.*]]: tensor<?x2x5x?xf64>)
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[I:.*]] = linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN2]], #[[WIN6]], #[[OUT6]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[X]], %[[WIN]] : tensor<1x3x8x8xf32>, tensor<2x2xf32>) outs(%[[I]] : tensor<1x3x4x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[NEG64:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: tensor.pad %[[Y]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEG64]] : f64
// CHECK: linalg.generic {indexing_maps = [#[[IN1]], #[[WIN6]], #[[OUT6]]]
// CHECK-SAME: outs(%{{.*}} : tensor<?x2x5x?xf64>)
// CHECK: arith.maximumf %{{.*}} : f64
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[IN2]], #[[WIN6]], #[[OUT6]]]
// CHECK-SAME: outs(%{{.*}} : tensor<1x3x4x4xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %{{.*}} : f64
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<1x3x4x4xf64>) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: arith.divf %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.generic {indexing_maps = [#[[IN24]], #[[WIN6]], #[[OUT6]]]
// CHECK: arith.divf
// CHECK-NOT: kiln.
func.func @pool(%x: tensor<1x3x8x8xf32>, %y: tensor<?x2x5x?xf64>) -> (tensor<1x3x4x4xf32>, tensor<?x2x5x?xf64>, tensor<1x3x4x4xf32>, tensor<1x3x5x3xf32>) {
  %0 = kiln.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %1 = kiln.max_pool2d %y kernel [3, 3] stride [1, 1] padding [1, 1] : tensor<?x2x5x?xf64> -> tensor<?x2x5x?xf64>
  %2 = kiln.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %3 = kiln.avg_pool2d %x kernel [2, 4] stride [2, 4] padding [1, 2] count_include_pad : tensor<1x3x8x8xf32> -> tensor<1x3x5x3xf32>
  return %0, %1, %2, %3 : tensor<1x3x4x4xf32>, tensor<?x2x5x?xf64>, tensor<1x3x4x4xf32>, tensor<1x3x5x3xf32>
}

// layer_norm, dropout and cross_entropy decompose into primitives first.
// CHECK-LABEL: func.func @composites(
// CHECK: math.sqrt
// CHECK: arith.shrui %{{.*}} : i64
// CHECK: arith.cmpf oge
// CHECK: math.exp
// CHECK: tensor.extract
// CHECK-NOT: kiln.
func.func @composites(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %l: tensor<8xi64>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>) {
  %0 = kiln.layer_norm %x weight %g bias %b eps 1.0e-05 : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %1 = kiln.dropout %x p = 1.0e-01 seed = 3 : tensor<8x16xf32>
  %2 = kiln.cross_entropy %x, %l : (tensor<8x16xf32>, tensor<8xi64>) -> tensor<f32>
  return %0, %1, %2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %[[G:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[X:.*]]: tensor<1x3x8x8xf32>, %[[PG:.*]]: tensor<1x3x4x4xf32>)
// Input gradient: each input element gathers grad * weight over (o, kh, kw).
// CHECK: %[[TAPS:.*]] = tensor.empty() : tensor<4x3x3xi8>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[TAPS]] : tensor<4x3x3xi8>) outs(%{{.*}} : tensor<1x3x8x8xf32>)
// CHECK: arith.remsi
// CHECK: tensor.extract %[[G]]
// CHECK: tensor.extract %[[W]]
// CHECK: arith.mulf
// Weight gradient: over (n, oh) of grad times the padded input, partial
// sums kept apart along ow (the innermost loop, which is then no
// reduction), then summed over ow.
// CHECK: %[[XP:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[PART:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[G]] : tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<4x3x3x3x8xf32>)
// CHECK: tensor.extract %[[XP]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[PART]] : tensor<4x3x3x3x8xf32>) outs(%{{.*}} : tensor<4x3x3x3xf32>)
// Max pool: the first maximum of each window, then the gradients it won.
// CHECK: %[[WIN:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x8x8xf32>)
// CHECK: tensor.extract %[[WIN]]#1
// CHECK: tensor.extract %[[PG]]
// Avg pool: each window's gradient over its count.
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x8x8xf32>)
// CHECK: tensor.extract %[[PG]]
// CHECK: arith.divf %{{.*}} : f64
// CHECK-NOT: kiln.
func.func @backward(%g: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<1x3x8x8xf32>, %pg: tensor<1x3x4x4xf32>) -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %1 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  %2 = kiln.max_pool2d_backward %pg, %x kernel [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %3 = kiln.avg_pool2d_backward %pg, %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0, %1, %2, %3 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @backward_dynamic(
// CHECK-SAME: %[[G:[^:]*]]: tensor<?x4x?x?xf32>
// A dynamic H of the input gradient is the smallest that gives OH rows:
// (OH - 1) * stride + dilation * (KH - 1) + 1 - 2 * padding.
// CHECK: %[[OH:.*]] = tensor.dim %[[G]], %c2{{(_[0-9]+)?}} : tensor<?x4x?x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[G]], %c0{{(_[0-9]+)?}} : tensor<?x4x?x?xf32>
// CHECK: arith.subi %[[OH]]
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: tensor.empty(%[[N]], %[[H]], %[[W]]) : tensor<?x4x?x?xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<?x4x?x?xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4x2x3x3x?xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4x2x3x3xf32>)
// CHECK-NOT: kiln.
func.func @backward_dynamic(%g: tensor<?x4x?x?xf32>, %w: tensor<4x2x3x3xf32>, %x: tensor<?x4x?x?xf32>) -> (tensor<?x4x?x?xf32>, tensor<4x2x3x3xf32>) {
  %0 = kiln.conv2d_backward_input %g, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 2 : (tensor<?x4x?x?xf32>, tensor<4x2x3x3xf32>) -> tensor<?x4x?x?xf32>
  %1 = kiln.conv2d_backward_weight %g, %x stride [1, 1] padding [1, 1] dilation [1, 1] groups 2 : (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) -> tensor<4x2x3x3xf32>
  return %0, %1 : tensor<?x4x?x?xf32>, tensor<4x2x3x3xf32>
}

// LLVM: llvm.func @conv2d(
// LLVM: llvm.func @backward_dynamic(

// The columns of the windows: each element reads the zero-padded input at
// its window's place.
// CHECK-LABEL: func.func @unfold(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x8x8xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 0]
// CHECK: } : tensor<2x3x8x8xf32> to tensor<2x3x10x8xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x27x16xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: linalg.index 2
// CHECK: tensor.extract %[[P]]
// CHECK-NOT: kiln.
func.func @unfold(%x: tensor<2x3x8x8xf32>) -> tensor<2x27x16xf32> {
  %0 = kiln.unfold %x kernel [3, 3] stride [2, 1] padding [1, 0] dilation [1, 2] : tensor<2x3x8x8xf32> -> tensor<2x27x16xf32>
  return %0 : tensor<2x27x16xf32>
}
