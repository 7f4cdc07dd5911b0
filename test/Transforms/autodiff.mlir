// RUN: tensor-opt %s --split-input-file --kiln-autodiff | FileCheck %s

// Reverse mode over kiln IR: kiln.grad is replaced by backward ops (tagged
// kiln.backward) built from each op's VJP rule, seeded with d loss = 1.

// CHECK-LABEL: func.func @matmul_tanh(
// CHECK-NOT: kiln.grad
// CHECK: %[[H:.*]] = kiln.matmul %arg0, %arg1 :
// CHECK: %[[T:.*]] = kiln.tanh %[[H]] :
// CHECK: %[[SEED:.*]] = kiln.constant {kiln.backward} dense<1.000000e+00> : tensor<f32>
// tanh' = 1 - tanh^2, from the forward value.
// CHECK: %[[SQ:.*]] = kiln.mul %[[T]], %[[T]] {kiln.backward}
// CHECK: %[[ONE_MINUS:.*]] = kiln.sub %{{.*}}, %[[SQ]] {kiln.backward}
// CHECK: %[[DH:.*]] = kiln.mul %{{.*}}, %[[ONE_MINUS]] {kiln.backward}
// dW = x^T dH.
// CHECK: %[[XT:.*]] = kiln.permute %arg0 [1, 0] {kiln.backward}
// CHECK: %[[DW:.*]] = kiln.matmul %[[XT]], %[[DH]] {kiln.backward} : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
// CHECK: return %{{.*}}, %[[DW]]
func.func @matmul_tanh(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<f32>, tensor<8x8xf32>) {
  %h = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %a = kiln.tanh %h : tensor<4x8xf32>
  %l = kiln.sum %a [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %w : tensor<f32>, (tensor<8x8xf32>)
  return %l, %g : tensor<f32>, tensor<8x8xf32>
}

// -----

// A broadcast operand's gradient is reduced back to its shape.
// CHECK-LABEL: func.func @bias_broadcast(
// CHECK: %[[DY:.*]] = kiln.expand %{{.*}} [4, 8] {kiln.backward}
// CHECK: %[[DB:.*]] = kiln.sum %[[DY]] [0] {kiln.backward} : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: return %[[DB]]
func.func @bias_broadcast(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = kiln.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %l = kiln.sum %y [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %b : tensor<f32>, (tensor<8xf32>)
  return %g : tensor<8xf32>
}

// -----

// A value read twice gets the sum of both contributions.
// CHECK-LABEL: func.func @fan_out(
// CHECK: %[[A:.*]] = kiln.mul %[[D:.*]], %arg0 {kiln.backward}
// CHECK: %[[B:.*]] = kiln.mul %[[D]], %arg0 {kiln.backward}
// CHECK: %[[SUM:.*]] = kiln.add %[[A]], %[[B]] {kiln.backward}
// CHECK: return %[[SUM]]
func.func @fan_out(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = kiln.sum %y [0] : tensor<4xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %x : tensor<f32>, (tensor<4xf32>)
  return %g : tensor<4xf32>
}

// -----

// Nothing flows through detach: the gradient of x is zero, w's is x.
// CHECK-LABEL: func.func @detached(
// CHECK: %[[DW:.*]] = kiln.mul %{{.*}}, %arg0 {kiln.backward}
// CHECK: %[[ZERO:.*]] = kiln.full 0.000000e+00 {kiln.backward} : tensor<4xf32>
// CHECK: return %[[ZERO]], %[[DW]]
func.func @detached(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %d = kiln.detach %x : tensor<4xf32>
  %y = kiln.mul %d, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = kiln.sum %y [0] : tensor<4xf32> -> tensor<f32>
  %g:2 = kiln.grad %l wrt %x, %w : tensor<f32>, (tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The bool condition of where gets no gradient; x gets the gradient where
// the condition holds and 0 elsewhere.
// CHECK-LABEL: func.func @through_where(
// CHECK: %[[C:.*]] = kiln.gt %arg0, %arg1
// CHECK: %[[DZ:.*]] = kiln.expand %{{.*}} [4] {kiln.backward}
// CHECK: %[[Z:.*]] = kiln.constant {kiln.backward} dense<0.000000e+00> : tensor<f32>
// CHECK: %[[DX:.*]] = kiln.where %[[C]], %[[DZ]], %[[Z]] {kiln.backward}
// CHECK: return %[[DX]]
func.func @through_where(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = kiln.gt %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %z = kiln.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = kiln.sum %z [0] : tensor<4xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %x : tensor<f32>, (tensor<4xf32>)
  return %g : tensor<4xf32>
}

// -----

// A linear layer over a batch of sequences: W's gradient is one matmul over
// every row, x^T [K, B*T] x dy [B*T, N], not a batched product [B, K, N]
// summed over B.
// CHECK-LABEL: func.func @sequence_linear(
// CHECK-DAG: %[[X2:.*]] = kiln.reshape %arg0 [-1, 8] {kiln.backward} : tensor<2x3x8xf32> -> tensor<6x8xf32>
// CHECK-DAG: %[[G2:.*]] = kiln.reshape %{{.*}} [-1, 4] {kiln.backward} : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[XT:.*]] = kiln.permute %[[X2]] [1, 0] {kiln.backward} : tensor<6x8xf32> -> tensor<8x6xf32>
// CHECK: kiln.matmul %[[XT]], %[[G2]] {kiln.backward} : (tensor<8x6xf32>, tensor<6x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: kiln.sum
// CHECK: return
func.func @sequence_linear(%x: tensor<2x3x8xf32>, %w: tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>) {
  %y = kiln.matmul %x, %w : (tensor<2x3x8xf32>, tensor<8x4xf32>) -> tensor<2x3x4xf32>
  %s = kiln.sum %y [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  %g = kiln.grad %s wrt %w : tensor<f32>, (tensor<8x4xf32>)
  return %s, %g : tensor<f32>, tensor<8x4xf32>
}

// -----

// Slices that tile a value along one axis (a split: Q, K and V of one
// projection) send their gradients back as one concat, not as a
// slice_assign of each into zeros, summed.
// CHECK-LABEL: func.func @split_pieces(
// CHECK: %[[C:.*]] = kiln.concat %{{.*}}, %{{.*}}, %{{.*}} axis = 0 {kiln.backward} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: kiln.slice_assign
// CHECK: return
func.func @split_pieces(%x: tensor<3x4xf32>) -> (tensor<f32>, tensor<3x4xf32>) {
  %q = kiln.slice %x [0, 0] [1, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %k = kiln.slice %x [1, 0] [2, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %v = kiln.slice %x [2, 0] [3, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %qk = kiln.mul %q, %k : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %o = kiln.mul %qk, %v : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %s = kiln.sum %o [0, 1] : tensor<1x4xf32> -> tensor<f32>
  %g = kiln.grad %s wrt %x : tensor<f32>, (tensor<3x4xf32>)
  return %s, %g : tensor<f32>, tensor<3x4xf32>
}

// -----

// So do slices that take a dynamic dim whole (the batch of Q, K and V).
// CHECK-LABEL: func.func @split_dynamic_pieces(
// CHECK: kiln.concat %{{.*}}, %{{.*}}, %{{.*}} axis = 0 {kiln.backward} : (tensor<1x?xf32>, tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<3x?xf32>
// CHECK-NOT: kiln.slice_assign
// CHECK: return
func.func @split_dynamic_pieces(%x: tensor<3x?xf32>) -> (tensor<f32>, tensor<3x?xf32>) {
  %q = kiln.slice %x [0, 0] [1, 9223372036854775807] [1, 1] : tensor<3x?xf32> -> tensor<1x?xf32>
  %k = kiln.slice %x [1, 0] [2, 9223372036854775807] [1, 1] : tensor<3x?xf32> -> tensor<1x?xf32>
  %v = kiln.slice %x [2, 0] [3, 9223372036854775807] [1, 1] : tensor<3x?xf32> -> tensor<1x?xf32>
  %qk = kiln.mul %q, %k : (tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<1x?xf32>
  %o = kiln.mul %qk, %v : (tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<1x?xf32>
  %s = kiln.sum %o [0, 1] : tensor<1x?xf32> -> tensor<f32>
  %g = kiln.grad %s wrt %x : tensor<f32>, (tensor<3x?xf32>)
  return %s, %g : tensor<f32>, tensor<3x?xf32>
}

// -----

// Slices that leave a gap keep the slice_assign form.
// CHECK-LABEL: func.func @gapped_slices(
// CHECK-NOT: kiln.concat
// CHECK: kiln.slice_assign
func.func @gapped_slices(%x: tensor<3x4xf32>) -> (tensor<f32>, tensor<3x4xf32>) {
  %a = kiln.slice %x [0, 0] [1, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %b = kiln.slice %x [2, 0] [3, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %o = kiln.mul %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %s = kiln.sum %o [0, 1] : tensor<1x4xf32> -> tensor<f32>
  %g = kiln.grad %s wrt %x : tensor<f32>, (tensor<3x4xf32>)
  return %s, %g : tensor<f32>, tensor<3x4xf32>
}

// -----

// Constant indices that permute the axis take the gradient back with the
// inverse permutation (a gather); other indices scatter-add.
// CHECK-LABEL: func.func @permuting_index_select(
// CHECK: %[[INV:.*]] = kiln.constant {kiln.backward} dense<[2, 0, 3, 1]> : tensor<4xi64>
// CHECK: %[[DX:.*]] = kiln.index_select %{{.*}}[%[[INV]]] axis = 1 {kiln.backward}
// CHECK-NOT: kiln.scatter_add
// CHECK: return %[[DX]]
func.func @permuting_index_select(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %i = kiln.constant dense<[1, 3, 0, 2]> : tensor<4xi64>
  %y = kiln.index_select %x[%i] axis = 1 : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %w = kiln.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %z = kiln.mul %y, %w : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %l = kiln.sum %z [0, 1] : tensor<3x4xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %x : tensor<f32>, (tensor<3x4xf32>)
  return %g : tensor<3x4xf32>
}

// -----

// The inverse keeps the indices' type.
// CHECK-LABEL: func.func @permuting_index_select_i32(
// CHECK: kiln.constant {kiln.backward} dense<[1, 2, 0]> : tensor<3xi32>
// CHECK-NOT: kiln.scatter_add
func.func @permuting_index_select_i32(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %i = kiln.constant dense<[2, 0, 1]> : tensor<3xi32>
  %y = kiln.index_select %x[%i] axis = 0 : (tensor<3x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  %l = kiln.sum %y [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %x : tensor<f32>, (tensor<3x2xf32>)
  return %g : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @repeating_index_select(
// CHECK: kiln.scatter_add
func.func @repeating_index_select(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %i = kiln.constant dense<[1, 1, 0, 2]> : tensor<4xi64>
  %y = kiln.index_select %x[%i] axis = 1 : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %l = kiln.sum %y [0, 1] : tensor<3x4xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %x : tensor<f32>, (tensor<3x4xf32>)
  return %g : tensor<3x4xf32>
}
