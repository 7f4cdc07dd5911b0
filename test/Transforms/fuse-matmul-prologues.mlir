// RUN: tensor-opt %s --kiln-fuse="transposed-operands=true matmul-prologues=true" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-fuse=transposed-operands=true -split-input-file | FileCheck %s --check-prefix=DEFAULT

// An elementwise kernel read only as a matmul's left operand, through its
// transpose, joins the matmul's kernel as its prologue: the recomputed
// activation of a weight gradient (gelu(z + b)^T @ dy) is never stored.
// By default it stays a kernel of its own.
// CHECK-LABEL: func.func private @main_kernel0_matmul
// CHECK-SAME: (%[[Z:.*]]: tensor<8x6xf32>, %[[B:.*]]: tensor<6xf32>, %[[DY:.*]]: tensor<8x5xf32>)
// CHECK: %[[S:.*]] = kiln.add %[[Z]], %[[B]]
// CHECK: %[[G:.*]] = kiln.gelu %[[S]]
// CHECK: %[[T:.*]] = kiln.permute %[[G]] [1, 0]
// CHECK: kiln.matmul %[[T]], %[[DY]]
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main
// CHECK: call @main_kernel0_matmul(%arg0, %arg1, %arg2)
// CHECK-NOT: call
// DEFAULT-LABEL: func.func private @main_kernel0_elementwise
// DEFAULT: kiln.gelu
// DEFAULT-LABEL: func.func private @main_kernel1_matmul
// DEFAULT-NOT: kiln.gelu
// DEFAULT: kiln.matmul
func.func @main(%z: tensor<8x6xf32>, %b: tensor<6xf32>, %dy: tensor<8x5xf32>) -> tensor<6x5xf32> {
  %0 = kiln.add %z, %b : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %1 = kiln.gelu %0 approximate = tanh : tensor<8x6xf32>
  %t = kiln.permute %1 [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %2 = kiln.matmul %t, %dy : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  return %2 : tensor<6x5xf32>
}

// -----

// A plain left operand joins too, with the matmul's epilogue; the right
// operand's producer does not (B is packed per k slice, not evaluated).
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.exp
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK: kiln.tanh
// CHECK: kiln.matmul
// CHECK: kiln.add
// CHECK-LABEL: func.func @main
// CHECK: %[[E:.*]] = call @main_kernel0_elementwise
// CHECK: call @main_kernel1_matmul(%arg0, %[[E]], %arg2)
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %r: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = kiln.tanh %a : tensor<4x8xf32>
  %1 = kiln.exp %b : tensor<8x3xf32>
  %2 = kiln.matmul %0, %1 : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %3 = kiln.add %2, %r : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %3 : tensor<4x3xf32>
}

// -----

// What stays apart: a value also read elsewhere (it is stored once, not
// recomputed; an op after it that only the matmul reads still joins), a
// per-row (reduction) kernel, and an f64 operand.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.tanh
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK-NOT: kiln.tanh
// CHECK: kiln.matmul
// CHECK-LABEL: func.func private @main_kernel2_elementwise
// CHECK: kiln.exp
// CHECK-NOT: kiln.neg
// CHECK-LABEL: func.func private @main_kernel3_matmul
// CHECK: kiln.neg
// CHECK: kiln.matmul
// CHECK-LABEL: func.func private @main_kernel4_reduction
// CHECK: kiln.sub
// CHECK-LABEL: func.func private @main_kernel5_matmul
// CHECK-NOT: kiln.sub
// CHECK: kiln.matmul
// CHECK-LABEL: func.func private @main_kernel6_elementwise
// CHECK: kiln.sqrt
// CHECK-LABEL: func.func private @main_kernel7_matmul
// CHECK-NOT: kiln.sqrt
// CHECK: kiln.matmul
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %d: tensor<4x8xf64>, %e: tensor<8x3xf64>) -> (tensor<4x3xf32>, tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x3xf64>) {
  %0 = kiln.tanh %a : tensor<4x8xf32>
  %1 = kiln.matmul %0, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %2 = kiln.exp %a : tensor<4x8xf32>
  %3 = kiln.neg %2 : tensor<4x8xf32>
  %4 = kiln.matmul %3, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %5 = kiln.reduce_max %a [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %6 = kiln.sub %a, %5 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %7 = kiln.matmul %6, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %8 = kiln.sqrt %d : tensor<4x8xf64>
  %9 = kiln.matmul %8, %e : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
  return %1, %0, %4, %2, %7, %9 : tensor<4x3xf32>, tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x3xf64>
}
