// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Layout ops become tensor reshapes and slices, linalg.transpose and
// tensor.pad; flip and repeat read the input at a computed index.

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<?x4xi64>, %[[C:.*]]: tensor<6xi1>, %[[D:.*]]: tensor<f16>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// The -1 dim of a dynamic reshape: the element count over the known dims.
// CHECK: %[[N:.*]] = arith.muli
// CHECK: %[[Q:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: tensor.expand_shape %[[B]] {{\[\[}}0], [1, 2]] output_shape [%[[Q]], 2, 2] : tensor<?x4xi64> into tensor<?x2x2xi64>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2]] output_shape [1, 2, 3]
// CHECK: tensor.expand_shape %[[D]] [] output_shape [1, 1] : tensor<f16> into tensor<1x1xf16>
// No reassociation fits [?, 4] -> [4, ?]: through 1-D.
// CHECK: %[[Q2:.*]] = arith.divui
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1]] : tensor<?x4xi64> into tensor<?xi64>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [4, %[[Q2]]] : tensor<?xi64> into tensor<4x?xi64>
// CHECK-NOT: kiln.
func.func @reshape(%a: tensor<2x3xf32>, %b: tensor<?x4xi64>, %c: tensor<6xi1>, %d: tensor<f16>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<?x2x2xi64>, tensor<1x2x3xi1>, tensor<1x1xf16>, tensor<4x?xi64>) {
  %0 = kiln.reshape %a [3, -1] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = kiln.reshape %a [6] : tensor<2x3xf32> -> tensor<6xf32>
  %2 = kiln.reshape %b [-1, 2, 2] : tensor<?x4xi64> -> tensor<?x2x2xi64>
  %3 = kiln.reshape %c [1, 2, 3] : tensor<6xi1> -> tensor<1x2x3xi1>
  %4 = kiln.reshape %d [1, 1] : tensor<f16> -> tensor<1x1xf16>
  %5 = kiln.reshape %b [4, -1] : tensor<?x4xi64> -> tensor<4x?xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<3x2xf32>, tensor<6xf32>, tensor<?x2x2xi64>, tensor<1x2x3xi1>, tensor<1x1xf16>, tensor<4x?xi64>
}

// CHECK-LABEL: func.func @permute(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<?x3x4xi8>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK: linalg.transpose ins(%[[A]] : tensor<2x3xf32>) outs(%[[E]] : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: %[[D:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x3x4xi8>
// CHECK: %[[F:.*]] = tensor.empty(%[[D]]) : tensor<4x?x3xi8>
// CHECK: linalg.transpose ins(%[[B]] : tensor<?x3x4xi8>) outs(%[[F]] : tensor<4x?x3xi8>) permutation = [2, 0, 1]
// CHECK-NOT: kiln.
func.func @permute(%a: tensor<2x3xf32>, %b: tensor<?x3x4xui8>) -> (tensor<3x2xf32>, tensor<4x?x3xui8>) {
  %0 = kiln.permute %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = kiln.permute %b [2, 0, 1] : tensor<?x3x4xui8> -> tensor<4x?x3xui8>
  return %0, %1 : tensor<3x2xf32>, tensor<4x?x3xui8>
}

// expand is an elementwise identity over broadcast maps.
// CHECK-LABEL: func.func @expand(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x5xi8>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<i1>) outs(%{{.*}} : tensor<2x2xi1>)
// CHECK-NOT: kiln.
func.func @expand(%a: tensor<3xf32>, %b: tensor<?x1xi8>, %c: tensor<i1>) -> (tensor<2x3xf32>, tensor<?x5xi8>, tensor<2x2xi1>) {
  %0 = kiln.expand %a [2, 3] : tensor<3xf32> -> tensor<2x3xf32>
  %1 = kiln.expand %b [-1, 5] : tensor<?x1xi8> -> tensor<?x5xi8>
  %2 = kiln.expand %c [2, 2] : tensor<i1> -> tensor<2x2xi1>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<?x5xi8>, tensor<2x2xi1>
}

// A dynamic slice length is max(0, ceil((min(end, dim) - start) / step)).
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[A:.*]]: tensor<4x6xf32>, %[[B:.*]]: tensor<?x8xi32>)
// CHECK: tensor.extract_slice %[[A]][0, 1] [2, 5] [2, 1] : tensor<4x6xf32> to tensor<2x5xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[B]]
// CHECK: arith.minsi %[[D]]
// CHECK: %[[L:.*]] = arith.select
// CHECK: tensor.extract_slice %[[B]][0, 2] [%[[L]], 2] [1, 3] : tensor<?x8xi32> to tensor<?x2xi32>
// CHECK-NOT: kiln.
func.func @slice(%a: tensor<4x6xf32>, %b: tensor<?x8xi32>) -> (tensor<2x5xf32>, tensor<?x2xi32>) {
  %0 = kiln.slice %a [0, 1] [4, 6] [2, 1] : tensor<4x6xf32> -> tensor<2x5xf32>
  %1 = kiln.slice %b [0, 2] [3, 100] [1, 3] : tensor<?x8xi32> -> tensor<?x2xi32>
  return %0, %1 : tensor<2x5xf32>, tensor<?x2xi32>
}

// CHECK-LABEL: func.func @slice_assign(
// CHECK-SAME: %[[V:.*]]: tensor<2xf32>, %[[D:.*]]: tensor<5xf32>, %[[W:.*]]: tensor<2x2xf16>, %[[E:.*]]: tensor<?x4xf16>)
// CHECK: tensor.insert_slice %[[V]] into %[[D]][0] [2] [1] : tensor<2xf32> into tensor<5xf32>
// CHECK: tensor.insert_slice %[[W]] into %[[E]][0, 0] [2, 2] [2, 2] : tensor<2x2xf16> into tensor<?x4xf16>
// CHECK-NOT: kiln.
func.func @slice_assign(%v: tensor<2xf32>, %d: tensor<5xf32>, %w: tensor<2x2xf16>, %e: tensor<?x4xf16>) -> (tensor<5xf32>, tensor<?x4xf16>) {
  %0 = kiln.slice_assign %v into %d [0] [2] [1] : (tensor<2xf32>, tensor<5xf32>) -> tensor<5xf32>
  %1 = kiln.slice_assign %w into %e [0, 0] [4, 4] [2, 2] : (tensor<2x2xf16>, tensor<?x4xf16>) -> tensor<?x4xf16>
  return %0, %1 : tensor<5xf32>, tensor<?x4xf16>
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>, %[[C:.*]]: tensor<?x3xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %[[B]] into %[[I]][2, 0] [1, 3] [1, 1]
// CHECK: %[[D:.*]] = tensor.dim %[[C]]
// CHECK: %[[N:.*]] = arith.addi %{{.*}}, %[[D]] : index
// CHECK: tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: tensor.insert_slice %[[C]] into %{{.*}}[3, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xf32> into tensor<?x3xf32>
// CHECK: tensor.insert_slice %[[A]] into %{{.*}}[0, 3] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
// CHECK-NOT: kiln.
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %c: tensor<?x3xf32>) -> (tensor<3x3xf32>, tensor<?x3xf32>, tensor<2x6xf32>) {
  %0 = kiln.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %1 = kiln.concat %a, %b, %c axis = 0 : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %3 = kiln.concat %a, %a axis = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0, %1, %3 : tensor<3x3xf32>, tensor<?x3xf32>, tensor<2x6xf32>
}

// Empty slices, assignments of empty values and empty pieces of a split
// start at the axis's end, where tensor's slice ops reject an offset: they
// read and write nothing instead.
// CHECK-LABEL: func.func @empty_slices(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[Z:.*]]: tensor<0x3xf32>)
// CHECK-NOT: extract_slice
// CHECK-NOT: insert_slice
// CHECK: %[[S:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK: %[[P:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK: return %[[S]], %[[A]], %[[P]]
func.func @empty_slices(%a: tensor<2x3xf32>, %z: tensor<0x3xf32>) -> (tensor<0x3xf32>, tensor<2x3xf32>, tensor<0x3xf32>) {
  %0 = kiln.slice %a [2, 0] [4, 3] [1, 1] : tensor<2x3xf32> -> tensor<0x3xf32>
  %1 = kiln.slice_assign %z into %a [2, 0] [2, 3] [1, 1] : (tensor<0x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2:2 = kiln.split %a [2, 0] axis = 0 : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<0x3xf32>
  return %0, %1, %2#1 : tensor<0x3xf32>, tensor<2x3xf32>, tensor<0x3xf32>
}

// Padding an empty tensor fills the result with the value.
// CHECK-LABEL: func.func @pad_empty(
// CHECK-NOT: tensor.pad
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: return %[[F]]
func.func @pad_empty(%z: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.pad %z low [1, 0] high [1, 0] value 2.0 : tensor<0x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// An empty input inserts nothing (its offset, the axis's end, would be
// out of bounds for insert_slice).
// CHECK-LABEL: func.func @concat_empty(
// CHECK-SAME: %[[A:.*]]: tensor<2xf32>, %[[Z:.*]]: tensor<0xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0] [2] [1]
// CHECK-NOT: insert_slice %[[Z]]
// CHECK: return %[[I]]
func.func @concat_empty(%a: tensor<2xf32>, %z: tensor<0xf32>) -> tensor<2xf32> {
  %0 = kiln.concat %a, %z axis = 0 : (tensor<2xf32>, tensor<0xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @split(
// CHECK-SAME: %[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<?x6xbf16>)
// CHECK: tensor.extract_slice %[[A]][0, 0] [2, 4] [1, 1]
// CHECK: tensor.extract_slice %[[A]][2, 0] [1, 4] [1, 1]
// CHECK: %[[D:.*]] = tensor.dim %[[B]]
// CHECK: tensor.extract_slice %[[B]][0, 0] [%[[D]], 1] [1, 1]
// CHECK: tensor.extract_slice %[[B]][0, 1] [%[[D]], 2] [1, 1]
// CHECK: tensor.extract_slice %[[B]][0, 3] [%[[D]], 3] [1, 1]
// CHECK-NOT: kiln.
func.func @split(%a: tensor<3x4xf32>, %b: tensor<?x6xbf16>) -> (tensor<2x4xf32>, tensor<1x4xf32>, tensor<?x1xbf16>, tensor<?x2xbf16>, tensor<?x3xbf16>) {
  %0:2 = kiln.split %a [2, 1] axis = 0 : tensor<3x4xf32> -> tensor<2x4xf32>, tensor<1x4xf32>
  %1:3 = kiln.split %b [1, 2, 3] axis = 1 : tensor<?x6xbf16> -> tensor<?x1xbf16>, tensor<?x2xbf16>, tensor<?x3xbf16>
  return %0#0, %0#1, %1#0, %1#1, %1#2 : tensor<2x4xf32>, tensor<1x4xf32>, tensor<?x1xbf16>, tensor<?x2xbf16>, tensor<?x3xbf16>
}

// CHECK-LABEL: func.func @squeeze(
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<?x1xi16> into tensor<?xi16>
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1xi1> into tensor<i1>
// CHECK-NOT: kiln.
func.func @squeeze(%a: tensor<1x3x1xf32>, %b: tensor<?x1xi16>, %c: tensor<1xi1>) -> (tensor<3xf32>, tensor<?xi16>, tensor<i1>) {
  %0 = kiln.squeeze %a [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  %1 = kiln.squeeze %b [1] : tensor<?x1xi16> -> tensor<?xi16>
  %2 = kiln.squeeze %c [0] : tensor<1xi1> -> tensor<i1>
  return %0, %1, %2 : tensor<3xf32>, tensor<?xi16>, tensor<i1>
}

// CHECK-LABEL: func.func @unsqueeze(
// CHECK-SAME: %{{.*}}: tensor<3xf32>, %[[B:.*]]: tensor<?x2xi8>, %{{.*}}: tensor<f64>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[B]]
// CHECK: tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2, 3]] output_shape [1, %[[D]], 2, 1] : tensor<?x2xi8> into tensor<1x?x2x1xi8>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f64> into tensor<1x1xf64>
// CHECK-NOT: kiln.
func.func @unsqueeze(%a: tensor<3xf32>, %b: tensor<?x2xui8>, %c: tensor<f64>) -> (tensor<1x3xf32>, tensor<1x?x2x1xui8>, tensor<1x1xf64>) {
  %0 = kiln.unsqueeze %a [0] : tensor<3xf32> -> tensor<1x3xf32>
  %1 = kiln.unsqueeze %b [0, 3] : tensor<?x2xui8> -> tensor<1x?x2x1xui8>
  %2 = kiln.unsqueeze %c [0, 1] : tensor<f64> -> tensor<1x1xf64>
  return %0, %1, %2 : tensor<1x3xf32>, tensor<1x?x2x1xui8>, tensor<1x1xf64>
}

// CHECK-LABEL: func.func @flip(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<?xi8>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[RI:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK: %[[RJ:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK: tensor.extract %[[A]][%[[RI]], %[[RJ]]] : tensor<2x3xf32>
// CHECK: tensor.extract %[[B]]
// CHECK-NOT: kiln.
func.func @flip(%a: tensor<2x3xf32>, %b: tensor<?xi8>) -> (tensor<2x3xf32>, tensor<?xi8>) {
  %0 = kiln.flip %a [0, 1] : tensor<2x3xf32>
  %1 = kiln.flip %b [0] : tensor<?xi8>
  return %0, %1 : tensor<2x3xf32>, tensor<?xi8>
}

// CHECK-LABEL: func.func @repeat(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<?x2xi1>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[R:.*]] = arith.remui %[[I]], %{{.*}} : index
// CHECK: tensor.extract %[[A]][%[[R]], %[[J]]] : tensor<2x3xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[B]]
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: tensor.empty(%[[N]]) : tensor<?x4xi1>
// CHECK-NOT: kiln.
func.func @repeat(%a: tensor<2x3xf32>, %b: tensor<?x2xi1>) -> (tensor<4x3xf32>, tensor<?x4xi1>) {
  %0 = kiln.repeat %a [2, 1] : tensor<2x3xf32> -> tensor<4x3xf32>
  %1 = kiln.repeat %b [3, 2] : tensor<?x2xi1> -> tensor<?x4xi1>
  return %0, %1 : tensor<4x3xf32>, tensor<?x4xi1>
}

// CHECK-LABEL: func.func @pad(
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tensor.pad %{{.*}} low[0, 1] high[0, 2]
// CHECK: tensor.yield %[[Z]] : f32
// CHECK: } : tensor<2x3xf32> to tensor<2x6xf32>
// CHECK: %[[M:.*]] = arith.constant -1 : i32
// CHECK: tensor.pad %{{.*}} low[1, 0] high[1, 0]
// CHECK: tensor.yield %[[M]] : i32
// CHECK: } : tensor<?x4xi32> to tensor<?x4xi32>
// CHECK-NOT: kiln.
func.func @pad(%a: tensor<2x3xf32>, %b: tensor<?x4xi32>) -> (tensor<2x6xf32>, tensor<?x4xi32>) {
  %0 = kiln.pad %a low [0, 1] high [0, 2] value 0.0 : tensor<2x3xf32> -> tensor<2x6xf32>
  %1 = kiln.pad %b low [1, 0] high [1, 0] value -1.0 : tensor<?x4xi32> -> tensor<?x4xi32>
  return %0, %1 : tensor<2x6xf32>, tensor<?x4xi32>
}

// LLVM: llvm.func @reshape(
// LLVM: llvm.func @pad(
