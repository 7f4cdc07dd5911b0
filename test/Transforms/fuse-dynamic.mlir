// RUN: tensor-opt %s --kiln-decompose --canonicalize --kiln-fuse | FileCheck %s

// A graph over tensor<?x1024xf32> fuses as a static one does, into kernels
// of the same dynamic types. The mean over the dynamic dim counts its rows
// with a kiln.full of the dynamic size: the tensor.dim that gives the size
// reads the input the size comes from (not the exp it was written
// against) and moves into the kernel, which takes that tensor (kernels
// take tensors only, never an index).
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK-SAME: (%{{.*}}: tensor<?x1024xf32>, %{{.*}}: tensor<1024xf32>) -> tensor<?x1024xf32>
// CHECK-NEXT: kiln.add
// CHECK-NEXT: kiln.exp
// CHECK-LABEL: func.func private @main_kernel1_reduction
// CHECK-SAME: (%{{.*}}: tensor<?x1024xf32>) -> tensor<1x1024xf32>
// CHECK-SAME: kiln.reduced_axes = array<i64: 0>
// CHECK: kiln.sum
// CHECK-LABEL: func.func private @main_kernel2_generic
// CHECK-SAME: (%[[T:.*]]: tensor<?x1024xf32>) -> tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x1024xf32>
// CHECK: kiln.full 1.000000e+00{{ ?}}[%[[D]]] : tensor<?xf32>
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<?x1024xf32>, %[[B:.*]]: tensor<1024xf32>)
// CHECK: %[[E:.*]] = call @main_kernel0_elementwise(%[[X]], %[[B]])
// CHECK: call @main_kernel2_generic(%[[X]]) : (tensor<?x1024xf32>) -> tensor<?xf32>
// CHECK-NOT: kiln.add
// CHECK-NOT: kiln.exp
func.func @main(%x: tensor<?x1024xf32>, %b: tensor<1024xf32>) -> (tensor<?x1024xf32>, tensor<1x1024xf32>) {
  %0 = kiln.add %x, %b : (tensor<?x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  %1 = kiln.exp %0 : tensor<?x1024xf32>
  %2 = kiln.mean %1 [0] keepdim : tensor<?x1024xf32> -> tensor<1x1024xf32>
  return %1, %2 : tensor<?x1024xf32>, tensor<1x1024xf32>
}

// A loss over a dynamic batch: the difference and its square are read
// only by the sum, so they fuse into the reduction (on read) as with a
// static batch. The count's tensor.dim was written against the square; it
// is traced back through mul and sub to the input, so that the square has
// no reader outside the kernel.
// CHECK-LABEL: func.func private @loss_kernel0_reduction
// CHECK-SAME: (%{{.*}}: tensor<?x1024xf32>, %{{.*}}: tensor<?x1024xf32>) -> tensor<f32>
// CHECK-NEXT: kiln.sub
// CHECK-NEXT: kiln.mul
// CHECK-NEXT: kiln.sum
// CHECK-LABEL: func.func @loss
// CHECK-SAME: (%[[X:.*]]: tensor<?x1024xf32>, %[[T:.*]]: tensor<?x1024xf32>)
// CHECK: call @loss_kernel0_reduction(%[[X]], %[[T]])
// CHECK: call @loss_kernel1_generic(%[[X]])
func.func @loss(%x: tensor<?x1024xf32>, %t: tensor<?x1024xf32>) -> tensor<f32> {
  %0 = kiln.sub %x, %t : (tensor<?x1024xf32>, tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %1 = kiln.mul %0, %0 : (tensor<?x1024xf32>, tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %2 = kiln.mean %1 [0, 1] : tensor<?x1024xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
