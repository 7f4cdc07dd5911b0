// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnCollectiveOps.td.

// CHECK-LABEL: func.func @collectives(
func.func @collectives(%a: tensor<4x3xf32>, %b: tensor<8xi64>, %c: tensor<?x2xf64>, %d: tensor<i32>) -> (tensor<4x3xf32>, tensor<8xi64>, tensor<?x2xf64>, tensor<i32>) {
  // CHECK: kiln.all_reduce mean %arg0 : tensor<4x3xf32>
  %0 = kiln.all_reduce mean %a : tensor<4x3xf32>
  // CHECK: kiln.all_reduce sum %arg1 : tensor<8xi64>
  %1 = kiln.all_reduce sum %b : tensor<8xi64>
  // CHECK: %[[T:.*]] = kiln.all_reduce_start sum %arg2 : tensor<?x2xf64>
  %t = kiln.all_reduce_start sum %c : tensor<?x2xf64>
  // CHECK: %[[U:.*]] = kiln.all_reduce_start mean %arg0 : tensor<4x3xf32>
  %u = kiln.all_reduce_start mean %a : tensor<4x3xf32>
  // CHECK: kiln.all_reduce_wait %[[T]] : tensor<?x2xf64>
  %2 = kiln.all_reduce_wait %t : tensor<?x2xf64>
  // CHECK: kiln.all_reduce_wait %[[U]] : tensor<4x3xf32>
  %3 = kiln.all_reduce_wait %u : tensor<4x3xf32>
  // CHECK: kiln.all_reduce sum %arg3 : tensor<i32>
  %4 = kiln.all_reduce sum %d : tensor<i32>
  return %3, %1, %2, %4 : tensor<4x3xf32>, tensor<8xi64>, tensor<?x2xf64>, tensor<i32>
}

// The collectives have side effects: canonicalization and CSE keep two
// all-reduces of one value, and one whose result nobody reads.
// RUN: tensor-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @kept(
// KEEP-COUNT-3: kiln.all_reduce sum
func.func @kept(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.all_reduce sum %a : tensor<4xf32>
  %1 = kiln.all_reduce sum %a : tensor<4xf32>
  %2 = kiln.all_reduce sum %a : tensor<4xf32>
  %3 = kiln.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
