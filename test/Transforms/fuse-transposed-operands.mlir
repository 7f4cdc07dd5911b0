// RUN: tensor-opt %s --kiln-fuse=transposed-operands=true -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-fuse -split-input-file | FileCheck %s --check-prefix=DEFAULT

// A transpose read only by a matmul joins the matmul's kernel, which then
// takes the untransposed tensor; by default it stays a view in @main.
// CHECK-LABEL: func.func private @main_kernel0_matmul
// CHECK-SAME: (%[[W:.*]]: tensor<5x8xf32>, %[[X:.*]]: tensor<6x8xf32>, %[[R:.*]]: tensor<6x5xf32>)
// CHECK: %[[T:.*]] = kiln.permute %[[W]] [1, 0]
// CHECK: kiln.matmul %[[X]], %[[T]]
// CHECK: kiln.add
// CHECK-LABEL: func.func @main
// CHECK-NOT: kiln.permute
// CHECK: call @main_kernel0_matmul(%arg1, %arg0, %arg2)
// DEFAULT-LABEL: func.func private @main_kernel0_matmul
// DEFAULT-NOT: kiln.permute
// DEFAULT-LABEL: func.func @main
// DEFAULT: %[[T:.*]] = kiln.permute %arg1 [1, 0]
// DEFAULT: call @main_kernel0_matmul(%arg0, %[[T]], %arg2)
func.func @main(%x: tensor<6x8xf32>, %w: tensor<5x8xf32>, %r: tensor<6x5xf32>) -> tensor<6x5xf32> {
  %t = kiln.permute %w [1, 0] : tensor<5x8xf32> -> tensor<8x5xf32>
  %0 = kiln.matmul %x, %t : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %1 = kiln.add %0, %r : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  return %1 : tensor<6x5xf32>
}

// -----

// Batched transposes of both operands join; only the last two dims may
// swap.
// CHECK-LABEL: func.func private @main_kernel0_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x6xf32>, %[[B:.*]]: tensor<2x5x8xf32>)
// CHECK: %[[AT:.*]] = kiln.permute %[[A]] [0, 2, 1]
// CHECK: %[[BT:.*]] = kiln.permute %[[B]] [0, 2, 1]
// CHECK: kiln.matmul %[[AT]], %[[BT]]
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK-NOT: kiln.permute
// CHECK: kiln.matmul
// CHECK-LABEL: func.func @main
// CHECK: kiln.permute %arg2 [1, 0, 2]
// CHECK-NOT: kiln.permute
// CHECK: return
func.func @main(%a: tensor<2x8x6xf32>, %b: tensor<2x5x8xf32>, %c: tensor<6x2x8xf32>, %d: tensor<2x8x5xf32>) -> (tensor<2x6x5xf32>, tensor<2x6x5xf32>) {
  %at = kiln.permute %a [0, 2, 1] : tensor<2x8x6xf32> -> tensor<2x6x8xf32>
  %bt = kiln.permute %b [0, 2, 1] : tensor<2x5x8xf32> -> tensor<2x8x5xf32>
  %0 = kiln.matmul %at, %bt : (tensor<2x6x8xf32>, tensor<2x8x5xf32>) -> tensor<2x6x5xf32>
  %ct = kiln.permute %c [1, 0, 2] : tensor<6x2x8xf32> -> tensor<2x6x8xf32>
  %1 = kiln.matmul %ct, %d : (tensor<2x6x8xf32>, tensor<2x8x5xf32>) -> tensor<2x6x5xf32>
  return %0, %1 : tensor<2x6x5xf32>, tensor<2x6x5xf32>
}

// -----

// A transpose that something else also reads, and a transpose of f64
// values, stay views in @main.
// CHECK-LABEL: func.func private @main_kernel0_matmul
// CHECK-NOT: kiln.permute
// CHECK: kiln.matmul
// CHECK-LABEL: func.func private @main_kernel2_matmul
// CHECK-NOT: kiln.permute
// CHECK: kiln.matmul
// CHECK-LABEL: func.func @main
// CHECK: kiln.permute %arg1 [1, 0]
// CHECK: kiln.permute %arg3 [1, 0]
func.func @main(%x: tensor<6x8xf32>, %w: tensor<5x8xf32>, %y: tensor<6x8xf64>, %v: tensor<5x8xf64>) -> (tensor<6x5xf32>, tensor<8x5xf32>, tensor<6x5xf64>) {
  %t = kiln.permute %w [1, 0] : tensor<5x8xf32> -> tensor<8x5xf32>
  %0 = kiln.matmul %x, %t : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %1 = kiln.exp %t : tensor<8x5xf32>
  %u = kiln.permute %v [1, 0] : tensor<5x8xf64> -> tensor<8x5xf64>
  %2 = kiln.matmul %y, %u : (tensor<6x8xf64>, tensor<8x5xf64>) -> tensor<6x5xf64>
  return %0, %1, %2 : tensor<6x5xf32>, tensor<8x5xf32>, tensor<6x5xf64>
}
