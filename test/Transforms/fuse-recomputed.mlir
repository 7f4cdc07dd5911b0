// RUN: tensor-opt %s --kiln-fuse="transposed-operands=true matmul-prologues=true" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-fuse -split-input-file | FileCheck %s --check-prefix=PLAIN

// A value that checkpointing recomputes (kiln.recomputed) and that two
// backward kernels read is computed in each of them, not stored by a
// kernel of its own: here z + b feeds the recomputed gelu of a weight
// gradient (a matmul prologue) and the gelu derivative in the other
// matmul's epilogue, which reads it twice and computes it once.
// CHECK-LABEL: func.func private @main_kernel0_matmul
// CHECK: kiln.add
// CHECK: kiln.gelu
// CHECK: kiln.permute
// CHECK: kiln.matmul
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK: kiln.add {{.*}} {kiln.recomputed}
// CHECK-NOT: kiln.add
// CHECK: kiln.matmul
// CHECK: kiln.mul
// CHECK: kiln.mul
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main
// CHECK-COUNT-2: call
// CHECK-NOT: call
// Without prologues the gelu's own kernel still computes z + b itself.
// PLAIN-LABEL: func.func private @main_kernel0_elementwise
// PLAIN: kiln.add
// PLAIN: kiln.gelu
// PLAIN-LABEL: func.func private @main_kernel1_matmul
// PLAIN-NOT: kiln.add
// PLAIN-LABEL: func.func private @main_kernel2_matmul
// PLAIN: kiln.add
// PLAIN-NOT: kiln.add
// PLAIN-LABEL: func.func @main
func.func @main(%z: tensor<8x6xf32>, %b: tensor<6xf32>, %dy: tensor<8x5xf32>, %w: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<8x6xf32>) {
  %0 = kiln.add %z, %b {kiln.recomputed} : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %1 = kiln.gelu %0 approximate = tanh {kiln.recomputed} : tensor<8x6xf32>
  %t = kiln.permute %1 [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %2 = kiln.matmul %t, %dy : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %wt = kiln.permute %w [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
  %3 = kiln.matmul %dy, %wt : (tensor<8x5xf32>, tensor<5x6xf32>) -> tensor<8x6xf32>
  %4 = kiln.mul %3, %0 : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  %5 = kiln.mul %4, %0 : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %2, %5 : tensor<6x5xf32>, tensor<8x6xf32>
}

// -----

// The same value not tagged as recomputed is computed once, in its own
// kernel, and stored for both readers.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.add
// CHECK-NOT: kiln.gelu
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK-NOT: kiln.add
// CHECK: kiln.gelu
// CHECK-LABEL: func.func private @main_kernel2_matmul
// CHECK-NOT: kiln.add
// CHECK-LABEL: func.func @main
func.func @main(%z: tensor<8x6xf32>, %b: tensor<6xf32>, %dy: tensor<8x5xf32>, %w: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<8x6xf32>) {
  %0 = kiln.add %z, %b : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %1 = kiln.gelu %0 approximate = tanh : tensor<8x6xf32>
  %t = kiln.permute %1 [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %2 = kiln.matmul %t, %dy : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %wt = kiln.permute %w [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
  %3 = kiln.matmul %dy, %wt : (tensor<8x5xf32>, tensor<5x6xf32>) -> tensor<8x6xf32>
  %4 = kiln.mul %3, %0 : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  %5 = kiln.mul %4, %0 : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %2, %5 : tensor<6x5xf32>, tensor<8x6xf32>
}

// -----

// A recomputed value with more than 8 readers is computed once, in its own
// kernel: copies of a chain would multiply with the readers of each value.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.add
// CHECK-NOT: kiln.exp
// CHECK-LABEL: func.func private @main_kernel1_elementwise
// CHECK-NOT: kiln.add
// CHECK: kiln.exp
// CHECK-LABEL: func.func @main
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.add %a, %b {kiln.recomputed} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = kiln.exp %0 : tensor<8xf32>
  %2 = kiln.tanh %0 : tensor<8xf32>
  %3 = kiln.neg %0 : tensor<8xf32>
  %4 = kiln.abs %0 : tensor<8xf32>
  %5 = kiln.sqrt %0 : tensor<8xf32>
  %6 = kiln.sigmoid %0 : tensor<8xf32>
  %7 = kiln.relu %0 : tensor<8xf32>
  %8 = kiln.sin %0 : tensor<8xf32>
  %9 = kiln.cos %0 : tensor<8xf32>
  return %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// With 8 readers each computes it.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.add
// CHECK: kiln.exp
// CHECK-LABEL: func.func private @main_kernel7_elementwise
// CHECK: kiln.add
// CHECK: kiln.sin
// CHECK-NOT: func.func private
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.add %a, %b {kiln.recomputed} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = kiln.exp %0 : tensor<8xf32>
  %2 = kiln.tanh %0 : tensor<8xf32>
  %3 = kiln.neg %0 : tensor<8xf32>
  %4 = kiln.abs %0 : tensor<8xf32>
  %5 = kiln.sqrt %0 : tensor<8xf32>
  %6 = kiln.sigmoid %0 : tensor<8xf32>
  %7 = kiln.relu %0 : tensor<8xf32>
  %8 = kiln.sin %0 : tensor<8xf32>
  return %1, %2, %3, %4, %5, %6, %7, %8 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Copies of a recomputed value that no reader's kernel takes (a row
// broadcast is no matmul prologue) would be kernels of their own that
// compute and store the same values: one is kept and both matmuls read it.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.sub
// CHECK: kiln.exp
// CHECK: kiln.recip
// CHECK: kiln.mul
// CHECK-NOT: func.func private @main_kernel{{.*}}_elementwise
// CHECK-LABEL: func.func @main
// CHECK: %[[P:.*]] = call @main_kernel0_elementwise
// CHECK: call @main_kernel{{.*}}_matmul(%[[P]]
// CHECK: call @main_kernel{{.*}}_matmul(%[[P]]
// CHECK-NOT: call
func.func @main(%s: tensor<4x8xf32>, %m: tensor<4x1xf32>, %v: tensor<8x5xf32>, %dy: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<8x5xf32>) {
  %0 = kiln.sub %s, %m {kiln.recomputed} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = kiln.exp %0 {kiln.recomputed} : tensor<4x8xf32>
  %r = kiln.recip %m {kiln.recomputed} : tensor<4x1xf32>
  %1 = kiln.mul %e, %r {kiln.recomputed} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %2 = kiln.matmul %1, %v : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  %t = kiln.permute %1 [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %3 = kiln.matmul %t, %dy : (tensor<8x4xf32>, tensor<4x5xf32>) -> tensor<8x5xf32>
  return %2, %3 : tensor<4x5xf32>, tensor<8x5xf32>
}
