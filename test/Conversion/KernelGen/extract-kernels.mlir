// RUN: tensor-opt %s --kiln-extract-kernels | FileCheck %s

// The graph function, the template and a function nobody calls go; the
// phase function and what it calls stay.
// CHECK-NOT: func.func @main
// CHECK-NOT: func.func private @k(
// CHECK-NOT: @unused
// CHECK-DAG: func.func private @kiln_stream_fence()
// CHECK-DAG: func.func private @k__impl(
// CHECK-DAG: func.func @k__p0(
func.func private @kiln_stream_fence()
func.func private @unused()
func.func private @k__impl() {
  call @kiln_stream_fence() : () -> ()
  return
}
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = call @k(%x) : (tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func private @k(%x: tensor<64xf32>) -> tensor<64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
  %0 = kiln.exp %x : tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @k__p0(%b: index, %e: index, %x: memref<?xf32>, %o: memref<?xf32>)
    attributes {kiln.phase = 0 : i64, kiln.kernel_of = "k"} {
  call @k__impl() : () -> ()
  return
}
