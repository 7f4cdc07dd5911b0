// RUN: tensor-opt %s --canonicalize --split-input-file | FileCheck %s
// RUN: tensor-opt %s --cse --split-input-file | FileCheck %s --check-prefix=CSE

// Algebraic folds and canonicalization patterns of kiln ops
// (lib/Dialect/Kiln/IR/KilnFolds.cpp), and CSE/DCE of Pure ops. Each case
// checks that the op is gone or rewritten, so a folder that does nothing
// fails.

// x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 and x ** 1 are x when the
// constant does not broadcast x to a bigger shape.

// CHECK-LABEL: func.func @identities(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] :
func.func @identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<3xf32>
  %0 = kiln.add %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = kiln.add %zero, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = kiln.sub %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = kiln.mul %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = kiln.mul %one, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = kiln.div %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = kiln.pow %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Integer identities, and the cases that must stay: 0 - x is not x, and
// x + 0 where the zero broadcasts x to a bigger shape changes the type.

// CHECK-LABEL: func.func @identities_kept(
// CHECK-SAME: %[[I:[^:]+]]: tensor<4xi32>, %[[Y:[^:]+]]: tensor<3xf32>
// CHECK-DAG: %[[S:.*]] = kiln.sub %{{.*}}, %[[Y]]
// CHECK-DAG: %[[A:.*]] = kiln.add %[[Y]], %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[I]], %[[I]], %[[S]], %[[A]] :
func.func @identities_kept(%i: tensor<4xi32>, %y: tensor<3xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<3xf32>, tensor<2x3xf32>) {
  %zi = kiln.constant dense<0> : tensor<4xi32>
  %oi = kiln.constant dense<1> : tensor<i32>
  %0 = kiln.add %i, %zi : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = kiln.div %i, %oi : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %zf = kiln.constant dense<0.0> : tensor<f32>
  %2 = kiln.sub %zf, %y : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %zb = kiln.constant dense<0.0> : tensor<2x3xf32>
  %3 = kiln.add %y, %zb : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<3xf32>, tensor<2x3xf32>
}

// -----

// neg(neg(x)) and not(not(x)) are x; max(x, x), min(x, x), and(p, p) and
// or(p, p) are x; where(c, x, x) is x.

// CHECK-LABEL: func.func @involutions(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[P:[^:]+]]: tensor<4xi1>, %[[C:[^:]+]]: tensor<4xi1>
// CHECK-NEXT: return %[[X]], %[[P]], %[[X]], %[[X]], %[[P]], %[[P]], %[[X]] :
func.func @involutions(%x: tensor<4xf32>, %p: tensor<4xi1>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = kiln.neg %x : tensor<4xf32>
  %1 = kiln.neg %0 : tensor<4xf32>
  %2 = kiln.not %p : tensor<4xi1>
  %3 = kiln.not %2 : tensor<4xi1>
  %4 = kiln.max %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = kiln.min %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = kiln.and %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %7 = kiln.or %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = kiln.where %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %3, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// -----

// A single neg or not stays.

// CHECK-LABEL: func.func @single_neg(
// CHECK: kiln.neg
// CHECK: kiln.not
func.func @single_neg(%x: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0 = kiln.neg %x : tensor<4xf32>
  %1 = kiln.not %p : tensor<4xi1>
  return %0, %1 : tensor<4xf32>, tensor<4xi1>
}

// -----

// reshape(reshape(x)) is one reshape; a reshape to the same type is x.

// CHECK-LABEL: func.func @reshape_chain(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %[[X]] [6] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT: return %[[R]], %[[X]] :
func.func @reshape_chain(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %0 = kiln.reshape %x [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = kiln.reshape %0 [6] : tensor<3x2xf32> -> tensor<6xf32>
  %2 = kiln.reshape %x [2, -1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %1, %2 : tensor<6xf32>, tensor<2x3xf32>
}

// -----

// With dynamic dims the outer reshape keeps its -1, and the chain folds only
// when the result type stays the same.

// CHECK-LABEL: func.func @reshape_chain_dynamic(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %[[X]] [-1, 2] : tensor<?x4xf32> -> tensor<?x2xf32>
// CHECK-NEXT: return %[[R]] :
func.func @reshape_chain_dynamic(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %0 = kiln.reshape %x [-1] : tensor<?x4xf32> -> tensor<?xf32>
  %1 = kiln.reshape %0 [-1, 2] : tensor<?xf32> -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// An inner reshape that makes a dynamic dim static: the outer -1 is
// resolved from the static result type, so the fold keeps that type.

// CHECK-LABEL: func.func @reshape_chain_static_result(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %[[X]] [2, 4] : tensor<?xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]] :
func.func @reshape_chain_static_result(%x: tensor<?xf32>) -> tensor<2x4xf32> {
  %0 = kiln.reshape %x [8] : tensor<?xf32> -> tensor<8xf32>
  %1 = kiln.reshape %0 [2, -1] : tensor<8xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// permute(permute(x, p), q) is one permute; an identity permute is x.

// CHECK-LABEL: func.func @permute_chain(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = kiln.permute %[[X]] [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[P]], %[[X]], %[[X]] :
func.func @permute_chain(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = kiln.permute %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = kiln.permute %0 [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  %2 = kiln.permute %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %3 = kiln.permute %2 [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  %4 = kiln.permute %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %1, %3, %4 : tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// expand, slice and concat that change nothing are their input; a slice
// of a dynamic dim or with a step other than 1 stays.

// CHECK-LABEL: func.func @noop_layout(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[D:[^:]+]]: tensor<?x3xf32>
// CHECK-DAG: %[[S:.*]] = kiln.slice %[[D]] [0, 0] [2, 3] [1, 1]
// CHECK-DAG: %[[T:.*]] = kiln.slice %[[X]] [0, 0] [2, 3] [2, 1]
// CHECK: return %[[X]], %[[X]], %[[X]], %[[S]], %[[T]] :
func.func @noop_layout(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<1x3xf32>) {
  %0 = kiln.expand %x [-1, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = kiln.slice %x [0, 0] [2, 3] [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = kiln.concat %x axis = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = kiln.slice %d [0, 0] [2, 3] [1, 1] : tensor<?x3xf32> -> tensor<?x3xf32>
  %4 = kiln.slice %x [0, 0] [2, 3] [2, 1] : tensor<2x3xf32> -> tensor<1x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<1x3xf32>
}

// -----

// A sum over size-1 dims with keepdim is its input; without keepdim or over
// a bigger dim it stays.

// CHECK-LABEL: func.func @sum_unit_dims(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x1x3x1xf32>
// CHECK-DAG: %[[A:.*]] = kiln.sum %[[X]] [1] : tensor<2x1x3x1xf32> -> tensor<2x3x1xf32>
// CHECK-DAG: %[[B:.*]] = kiln.sum %[[X]] [0] keepdim
// CHECK: return %[[X]], %[[A]], %[[B]] :
func.func @sum_unit_dims(%x: tensor<2x1x3x1xf32>) -> (tensor<2x1x3x1xf32>, tensor<2x3x1xf32>, tensor<1x1x3x1xf32>) {
  %0 = kiln.sum %x [1, 3] keepdim : tensor<2x1x3x1xf32> -> tensor<2x1x3x1xf32>
  %1 = kiln.sum %x [1] : tensor<2x1x3x1xf32> -> tensor<2x3x1xf32>
  %2 = kiln.sum %x [0] keepdim : tensor<2x1x3x1xf32> -> tensor<1x1x3x1xf32>
  return %0, %1, %2 : tensor<2x1x3x1xf32>, tensor<2x3x1xf32>, tensor<1x1x3x1xf32>
}

// -----

// A cast to the same type is its input.

// CHECK-LABEL: func.func @cast_same(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT: return %[[X]] :
func.func @cast_same(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.cast %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Pure ops: --canonicalize erases the dead ones; --cse merges the equal
// ones and erases the dead ones too.

// CHECK-LABEL: func.func @pure(
// CHECK-NEXT: %[[E0:.*]] = kiln.exp %arg0
// CHECK-NEXT: %[[E1:.*]] = kiln.exp %arg0
// CHECK-NEXT: return %[[E0]], %[[E1]] :
// CSE-LABEL: func.func @pure(
// CSE-NEXT: %[[E:.*]] = kiln.exp %arg0
// CSE-NEXT: return %[[E]], %[[E]] :
func.func @pure(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.exp %x : tensor<4xf32>
  %1 = kiln.exp %x : tensor<4xf32>
  %2 = kiln.log %x : tensor<4xf32>
  %3 = kiln.full 2.0 : tensor<3xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CSE merges equal constants and the ops that use them.

// CSE-LABEL: func.func @cse_constants(
// CSE-NEXT: %[[C:.*]] = kiln.constant dense<2.000000e+00>
// CSE-NEXT: %[[M:.*]] = kiln.mul %arg0, %[[C]]
// CSE-NEXT: return %[[M]], %[[M]] :
func.func @cse_constants(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = kiln.constant dense<2.0> : tensor<4xf32>
  %c1 = kiln.constant dense<2.0> : tensor<4xf32>
  %0 = kiln.mul %x, %c0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln.mul %x, %c1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Random ops are Pure too (the seed is an attribute): equal ones merge.

// CSE-LABEL: func.func @cse_rand(
// CSE-NEXT: %[[R:.*]] = kiln.rand
// CSE-NEXT: return %[[R]], %[[R]] :
func.func @cse_rand() -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = kiln.rand seed = 7, 0.0, 1.0 : tensor<3xf32>
  %1 = kiln.rand seed = 7, 0.0, 1.0 : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// A reshape that merges leading dims moves above the elementwise ops only
// it reads, onto the value they start from (a row of bias broadcasts the
// same either way), so that a matmul can evaluate them while it packs.
// CHECK-LABEL: func.func @reshape_above_rows(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[B:[^:]+]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %[[X]] [-1, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: %[[A:.*]] = kiln.add %[[R]], %[[B]] : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[G:.*]] = kiln.gelu %[[A]] approximate = tanh : tensor<6x4xf32>
// CHECK-NEXT: return %[[G]]
func.func @reshape_above_rows(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<6x4xf32> {
  %a = kiln.add %x, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %g = kiln.gelu %a approximate = tanh : tensor<2x3x4xf32>
  %r = kiln.reshape %g [-1, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// A reshape of a value others read too, or one that changes the last dim,
// stays below it.
// CHECK-LABEL: func.func @reshape_stays(
// CHECK: kiln.exp %{{.*}} : tensor<2x3x4xf32>
// CHECK: kiln.reshape %{{.*}} [6, 2, 2]
// CHECK: kiln.tanh %{{.*}} : tensor<2x3x4xf32>
// CHECK: kiln.reshape %{{.*}} [2, 12]
func.func @reshape_stays(%x: tensor<2x3x4xf32>) -> (tensor<6x2x2xf32>, tensor<2x3x4xf32>, tensor<2x12xf32>) {
  %e = kiln.exp %x : tensor<2x3x4xf32>
  %r = kiln.reshape %e [6, 2, 2] : tensor<2x3x4xf32> -> tensor<6x2x2xf32>
  %t = kiln.tanh %x : tensor<2x3x4xf32>
  %s = kiln.reshape %t [2, 12] : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %r, %e, %s : tensor<6x2x2xf32>, tensor<2x3x4xf32>, tensor<2x12xf32>
}
