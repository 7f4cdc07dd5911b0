// RUN: tensor-opt %s --kiln-graph-pipeline=target=flex | FileCheck %s --check-prefix=FLEX
// RUN: tensor-opt %s --kiln-graph-pipeline=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: tensor-opt %s --kiln-graph-pipeline=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: tensor-opt %s --kiln-graph-pipeline=target=cpu | FileCheck %s --check-prefix=BALANCED
// RUN: tensor-opt %s --kiln-graph-pipeline="target=cpu strategy=disabled" | FileCheck %s --check-prefix=DISABLED

// What the engine runs on every graph: the gradient is differentiated, the
// composites decomposed, and the graph fused as the target backend runs it.

// Flex runs op by op: no kernels, no composite and no kiln.grad left.
// FLEX-LABEL: func.func @main(
// FLEX-NOT: kiln.grad
// FLEX-NOT: kiln.softmax
// FLEX-NOT: kiln.kernel
// FLEX: kiln.exp
// FLEX: kiln.matmul

// Cuda fuses, and reads the weight's transpose as a view.
// CUDA: func.func private @main_kernel0_matmul(%{{.*}}: tensor<6x8xf32>, %{{.*}}: tensor<8x5xf32>)
// CUDA-SAME: kiln.kernel = #kiln.kernel_kind<matmul>
// CUDA: func.func @main(
// CUDA: kiln.permute %arg1 [1, 0]

// The Cpu matmul takes the untransposed weight and packs it itself.
// CPU: func.func private @main_kernel0_matmul(%{{.*}}: tensor<5x8xf32>, %{{.*}}: tensor<6x8xf32>)
// CPU-NEXT: kiln.permute
// CPU: func.func @main(
// CPU-NOT: kiln.grad
// CPU: call @main_kernel0_matmul(%arg1, %arg0)

// Balanced (the default) recomputes the softmax's reciprocal in backward;
// Disabled saves it.
// BALANCED: kiln.recip %{{.*}} {kiln.recomputed}
// DISABLED-NOT: kiln.recomputed
// DISABLED: kiln.recip %{{.*}} {kiln.saved}
func.func @main(%x: tensor<6x8xf32>, %w: tensor<5x8xf32>) -> (tensor<f32>, tensor<5x8xf32>) {
  %t = kiln.permute %w [1, 0] : tensor<5x8xf32> -> tensor<8x5xf32>
  %0 = kiln.matmul %x, %t : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %1 = kiln.softmax %0 axis = 1 : tensor<6x5xf32>
  %l = kiln.sum %1 [0, 1] : tensor<6x5xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %w : tensor<f32>, (tensor<5x8xf32>)
  return %l, %g : tensor<f32>, tensor<5x8xf32>
}
