// RUN: tensor-opt %s --kiln-fuse --kiln-dedupe-kernels -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-fuse -split-input-file | FileCheck %s --check-prefix=FUSED

// Two chains of the same ops on the same types: one kernel function, called
// twice. Without the pass, fusion outlines two.

// CHECK-LABEL: func.func private @main_kernel0_elementwise(
// CHECK-SAME: attributes {kiln.kernel = #kiln.kernel_kind<elementwise>}
// CHECK: kiln.exp
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xf32>, %[[Y:[^:]+]]: tensor<8xf32>, %[[B:[^:]+]]: tensor<8xf32>
// CHECK: call @main_kernel0_elementwise(%[[X]], %[[B]])
// CHECK: call @main_kernel0_elementwise(%[[Y]], %[[B]])

// FUSED: func.func private @main_kernel0_elementwise(
// FUSED: func.func private @main_kernel1_elementwise(
// FUSED-LABEL: func.func @main(
// FUSED: call @main_kernel0_elementwise(
// FUSED: call @main_kernel1_elementwise(
func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.add %x, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = kiln.exp %0 : tensor<8xf32>
  %2 = kiln.add %y, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = kiln.exp %2 : tensor<8xf32>
  return %1, %3 : tensor<8xf32>, tensor<8xf32>
}

// -----

// The same ops on another shape, or another op, stay separate kernels.

// CHECK-LABEL: func.func private @main_kernel0_elementwise(
// CHECK: kiln.exp {{.*}} : tensor<4xf32>
// CHECK: func.func private @main_kernel{{[0-9]+}}_elementwise(
// CHECK: kiln.exp {{.*}} : tensor<8xf32>
// CHECK: func.func private @main_kernel{{[0-9]+}}_elementwise(
// CHECK: kiln.log {{.*}} : tensor<8xf32>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main(
func.func @main(%x: tensor<4xf32>, %y: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln.exp %0 : tensor<4xf32>
  %2 = kiln.add %y, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = kiln.exp %2 : tensor<8xf32>
  %4 = kiln.add %y, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %5 = kiln.log %4 : tensor<8xf32>
  return %1, %3, %5 : tensor<4xf32>, tensor<8xf32>, tensor<8xf32>
}
