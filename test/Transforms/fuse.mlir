// RUN: tensor-opt %s --kiln-decompose --canonicalize --kiln-fuse -split-input-file | FileCheck %s

// Softmax becomes one row kernel; the matmul takes bias, gelu and the
// residual as its epilogue.
// CHECK-LABEL: func.func private @main_kernel0_reduction
// CHECK-SAME: kiln.kernel = "reduction", kiln.reduced_axes = array<i64: 1>
// CHECK: kiln.reduce_max
// CHECK: kiln.exp
// CHECK: kiln.sum
// CHECK: kiln.recip
// CHECK: kiln.mul
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK-SAME: kiln.kernel = "matmul"
// CHECK: kiln.matmul
// CHECK: kiln.add
// CHECK: kiln.gelu
// CHECK: kiln.add
// CHECK-LABEL: func.func @main
// CHECK: %[[S:.*]] = call @main_kernel0_reduction(%arg0)
// CHECK: %[[M:.*]] = call @main_kernel1_matmul(%[[S]], %arg1, %arg2, %arg3)
// CHECK: return %[[S]], %[[M]]
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) {
  %0 = kiln.softmax %x axis = 1 : tensor<4x16xf32>
  %1 = kiln.matmul %0, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %2 = kiln.add %1, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = kiln.gelu %2 approximate = tanh : tensor<4x8xf32>
  %4 = kiln.add %3, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %4 : tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// An elementwise chain is one kernel; a value used by two kernels is
// computed once, in its own kernel.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.mul
// CHECK-NOT: kiln.exp
// CHECK: return
// CHECK-LABEL: func.func private @main_kernel1_elementwise
// CHECK: kiln.exp
// CHECK-LABEL: func.func private @main_kernel2_reduction
// CHECK: kiln.sum
// CHECK-LABEL: func.func @main
// CHECK: %[[P:.*]] = call @main_kernel0_elementwise
// CHECK: call @main_kernel1_elementwise(%[[P]])
// CHECK: call @main_kernel2_reduction(%[[P]])
func.func @main(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
  %0 = kiln.mul %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = kiln.exp %0 : tensor<64xf32>
  %2 = kiln.sum %0 [0] : tensor<64xf32> -> tensor<f32>
  return %1, %2 : tensor<64xf32>, tensor<f32>
}

// -----

// Layout ops stay outside kernels; other ops get a kernel each.
// CHECK-LABEL: func.func private @main_kernel0_generic
// CHECK: kiln.gather
// CHECK-LABEL: func.func @main
// CHECK: kiln.permute
// CHECK: call @main_kernel0_generic
func.func @main(%x: tensor<4x8xf32>, %i: tensor<8x2xi64>) -> tensor<8x2xf32> {
  %t = kiln.permute %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %g = kiln.gather %t[%i] axis = 1 : (tensor<8x4xf32>, tensor<8x2xi64>) -> tensor<8x2xf32>
  return %g : tensor<8x2xf32>
}
