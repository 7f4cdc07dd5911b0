// RUN: tensor-opt %s --kiln-split-all-reduce | FileCheck %s

// The start goes right after its input is made, the wait just before the
// first reader of the result: the exp and the matmul run while the
// communicator reduces.
// CHECK-LABEL: func.func @overlap(
// CHECK: %[[G:.*]] = kiln.mul %arg0, %arg0
// CHECK-NEXT: %[[T:.*]] = kiln.all_reduce_start sum %[[G]] : tensor<8x8xf32>
// CHECK-NEXT: kiln.exp %arg1
// CHECK-NEXT: kiln.matmul
// CHECK-NEXT: %[[R:.*]] = kiln.all_reduce_wait %[[T]] : tensor<8x8xf32>
// CHECK-NEXT: kiln.sub %arg0, %[[R]]
// CHECK-NOT: kiln.all_reduce sum
func.func @overlap(%w: tensor<8x8xf32>, %x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %g = kiln.mul %w, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = kiln.exp %x : tensor<8x8xf32>
  %m = kiln.matmul %h, %h : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = kiln.all_reduce sum %g : tensor<8x8xf32>
  %u = kiln.sub %w, %r : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %u, %m : tensor<8x8xf32>, tensor<8x8xf32>
}

// An argument's reduction starts first thing; a result only returned is
// waited for just before the return.
// CHECK-LABEL: func.func @argument_and_return(
// CHECK-NEXT: %[[T:.*]] = kiln.all_reduce_start mean %arg0
// CHECK-NEXT: kiln.exp %arg0
// CHECK-NEXT: %[[R:.*]] = kiln.all_reduce_wait %[[T]]
// CHECK-NEXT: return %[[R]]
func.func @argument_and_return(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = kiln.exp %a : tensor<4xf32>
  %r = kiln.all_reduce mean %a : tensor<4xf32>
  return %r, %e : tensor<4xf32>, tensor<4xf32>
}
