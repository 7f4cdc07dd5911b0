// The tiled matmul takes a dynamic M (and the K of a weight's gradient).
// A dynamic N, as here, it does not: by default the kernel still runs, as
// linalg loops; with generic-dynamic-matmuls=0 (what the Cpu backend asks,
// which then compiles the graph for its static sizes) it is an error that
// says why.
// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512" | FileCheck %s
// RUN: not tensor-opt %s --kiln-generate-kernels="vector-bits=512 generic-dynamic-matmuls=0" 2>&1 | FileCheck %s --check-prefix=STRICT

// CHECK-LABEL: func.func @dyn_n__p0(
// CHECK-NOT: vector.fma
// CHECK: return
// STRICT: error: kiln-generate-kernels: the matmul kernel @dyn_n has dynamic dims that the tiled generator does not take (it takes a dynamic M, or the K of a weight's gradient); compile it for static sizes
func.func private @dyn_n(%x: tensor<8x16xf32>, %w: tensor<16x?xf32>) -> tensor<8x?xf32>
    attributes {kiln.kernel = "matmul"} {
  %0 = kiln.matmul %x, %w : (tensor<8x16xf32>, tensor<16x?xf32>) -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// A dynamic M is tiled either way.
// CHECK-LABEL: func.func @dyn_m__p1(
// CHECK: vector.fma
func.func private @dyn_m(%x: tensor<?x16xf32>, %w: tensor<16x64xf32>) -> tensor<?x64xf32>
    attributes {kiln.kernel = "matmul"} {
  %0 = kiln.matmul %x, %w : (tensor<?x16xf32>, tensor<16x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}
