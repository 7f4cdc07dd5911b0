// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512 stream-stores=1" -split-input-file | FileCheck %s

// Kernels of dynamic shape take the dynamic size S as a last i64 buffer
// (kiln.sizes). An elementwise kernel over rows of 1024 is the static one
// with S rows of one unit each: kiln.units_per = [1, 1], and its code does
// not depend on S (no streamed stores, which are chosen by size).
// CHECK-LABEL: func.func @rows__p0(
// CHECK-SAME: %[[B:.*]]: index, %[[E:.*]]: index, %[[X:.*]]: memref<?xf32>, %[[R:.*]]: memref<?xf32>, %[[O:.*]]: memref<?xf32>, %{{.*}}: memref<?xi64>)
// CHECK-SAME: kiln.sizes
// CHECK-SAME: kiln.units_per = array<i64: 1, 1>
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[O]]
// CHECK-NOT: kilnStreamStore
func.func private @rows(%x: tensor<?x1024xf32>, %r: tensor<1024xf32>) -> tensor<?x1024xf32>
    attributes {kiln.kernel = "elementwise"} {
  %0 = kiln.add %x, %r : (tensor<?x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  %1 = kiln.exp %0 : tensor<?x1024xf32>
  return %1 : tensor<?x1024xf32>
}

// -----

// With every operand full, the run spans the dynamic dim: S * 1024
// elements in chunks of 65536, ceil(S * 1024 / 65536) units, and the end of
// the run is read from the sizes buffer.
// CHECK-LABEL: func.func @flat__p0(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.units_per = array<i64: 1024, 65536>
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: arith.muli %[[SI]]
// CHECK: arith.minui
func.func private @flat(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32>
    attributes {kiln.kernel = "elementwise"} {
  %0 = kiln.neg %x : tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}

// -----

// Other kinds go through linalg: the phase views its flat buffers with S
// as the dynamic size.
// CHECK-LABEL: func.func @colsum__p0(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.sizes
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[SI]], 1024], strides: [1024, 1]
// CHECK-SAME: memref<?xf32> to memref<?x1024xf32>
// CHECK: call @colsum__impl
func.func private @colsum(%x: tensor<?x1024xf32>) -> tensor<1x1024xf32>
    attributes {kiln.kernel = "reduction", kiln.reduced_axes = array<i64: 0>} {
  %0 = kiln.sum %x [0] keepdim : tensor<?x1024xf32> -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// -----

// Regression (kiln-mlir-fuzzer): the row generator multiplied a dynamic
// dim into the row length (signed overflow); a reduction with a dynamic
// dim goes through the generic path, which views the buffer with S.
// CHECK-LABEL: func.func @dynsum__p0(
// CHECK-SAME: kiln.sizes
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, %{{.*}}], strides: [%{{.*}}, 1]
// CHECK-SAME: memref<?xbf16> to memref<2x?xbf16>
func.func private @dynsum(%x: tensor<2x?xbf16>) -> tensor<1x1xbf16>
    attributes {kiln.kernel = "reduction", kiln.reduced_axes = array<i64: 0, 1>} {
  %0 = kiln.sum %x [0, 1] keepdim : tensor<2x?xbf16> -> tensor<1x1xbf16>
  return %0 : tensor<1x1xbf16>
}
