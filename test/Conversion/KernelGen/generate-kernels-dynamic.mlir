// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512 stream-stores=1" -split-input-file | FileCheck %s

// Kernels of dynamic shape take the dynamic size S as a last i64 buffer
// (kiln.sizes). An elementwise kernel over rows of 1024 is the static one
// with S rows of one unit each: kiln.units_per = [1, 1]. Its stores are
// chosen per call by the output's size, as the static kernel's are at
// compile time: streamed (through stack blocks) once S * 1024 f32 reach
// 16 MiB (4194304 elements), else plain.
// CHECK-LABEL: func.func @rows__p0(
// CHECK-SAME: %[[B:.*]]: index, %[[E:.*]]: index, %[[X:.*]]: memref<?xf32>, %[[R:.*]]: memref<?xf32>, %[[O:.*]]: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.sizes
// CHECK-SAME: kiln.units_per = array<i64: 1, 1>
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: %[[N:.*]] = arith.muli %[[SI]], %c1024
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: %[[BIG:.*]] = arith.cmpi uge, %[[N]], %c4194304
// CHECK: scf.if %[[BIG]] {
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %alloca
// CHECK: vector.store {{.*}}, %[[O]]{{.*}}nontemporal = true
// CHECK: } else {
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[O]]
// CHECK: call @kiln_stream_fence
func.func private @rows(%x: tensor<?x1024xf32>, %r: tensor<1024xf32>) -> tensor<?x1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
  %0 = kiln.add %x, %r : (tensor<?x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  %1 = kiln.exp %0 : tensor<?x1024xf32>
  return %1 : tensor<?x1024xf32>
}

// -----

// With every operand full, the run spans the dynamic dim: S * 1024
// elements in chunks of 65536, ceil(S * 1024 / 65536) units, and the end of
// the run is read from the sizes buffer. A streamed run fills its stack
// blocks with a loop of constant trip count (1024) when the block is whole,
// and of the remaining count only for a run's last block.
// CHECK-LABEL: func.func @flat__p0(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.units_per = array<i64: 1024, 65536>
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: arith.muli %[[SI]]
// CHECK: arith.minui
// CHECK: scf.for %[[AT:.*]] = %{{.*}} to %{{.*}} step %[[BLOCK:c1024[_0-9]*]] {
// CHECK: %[[LEFT:.*]] = arith.minui %[[BLOCK]], %{{.*}}
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %[[LEFT]], %[[BLOCK]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[BLOCK]] step
// CHECK: arith.negf
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[LEFT]] step
// CHECK: arith.negf
func.func private @flat(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
  %0 = kiln.neg %x : tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}

// -----

// What the dedicated generators do not cover (here a gather) goes through
// linalg: the phase views its flat buffers with S as the dynamic size.
// CHECK-LABEL: func.func @pick__p0(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xi64>, %{{.*}}: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.sizes
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[SI]], 1024], strides: [1024, 1]
// CHECK-SAME: memref<?xf32> to memref<?x1024xf32>
// CHECK: call @pick__impl
func.func private @pick(%x: tensor<?x1024xf32>, %i: tensor<?x1xi64>) -> tensor<?x1xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<generic>} {
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<?x1024xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
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
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 0, 1>} {
  %0 = kiln.sum %x [0, 1] keepdim : tensor<2x?xbf16> -> tensor<1x1xbf16>
  return %0 : tensor<1x1xbf16>
}

// -----

// A full sum over S x 1024 elements splits into a fixed 64 parts (the
// static kernel's split, whatever S is): phase 0 sums part u of
// ceil(ceil(S * 1024 / 64) / 16) * 16 elements, clamped to the end, into
// the f64 workspace; phase 1 adds the 64 partials in order.
// CHECK-LABEL: func.func @fullsum__p0(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?xf32>, %{{[a-z0-9]+}}: memref<?xf32>, %{{[a-z0-9]+}}: memref<?xi8>, %[[SZ:[a-z0-9]+]]: memref<?xi64>)
// CHECK-SAME: kiln.sizes
// CHECK-SAME: kiln.units = 64
// CHECK-SAME: kiln.workspace = 512
// CHECK-NOT: kiln.units_per
// CHECK: %[[PART:.*]] = arith.remui
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: %[[LEN:.*]] = arith.muli %[[SI]], %c1024
// CHECK: %[[PER:.*]] = arith.ceildivui %[[LEN]], %c64
// CHECK: %[[LINES:.*]] = arith.ceildivui %[[PER]], %c16
// CHECK: %[[CHUNK:.*]] = arith.muli %[[LINES]], %c16
// CHECK: %[[AT:.*]] = arith.muli %[[PART]], %[[CHUNK]]
// CHECK: %[[LO:.*]] = arith.minui %[[AT]], %[[LEN]]
// CHECK: %[[END:.*]] = arith.addi %[[LO]], %[[CHUNK]]
// CHECK: %[[HI:.*]] = arith.minui %[[END]], %[[LEN]]
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %c1024{{.*}} -> (f64)
// CHECK: memref.load %[[X]]
// CHECK-LABEL: func.func @fullsum__p1(
// CHECK-SAME: kiln.units = 1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} -> (f64)
func.func private @fullsum(%x: tensor<?x1024xf32>) -> tensor<1x1xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 0, 1>} {
  %0 = kiln.sum %x [0, 1] keepdim : tensor<?x1024xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// A row kernel (softmax) over S rows of 1024: the dedicated row generator,
// one unit per row (kiln.units_per = [1, 1]), not the linalg path. The
// next row it prefetches is clamped to the last of the S rows.
// CHECK-LABEL: func.func @softmax__p0(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.units_per = array<i64: 1, 1>
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: memref.prefetch
// CHECK: math.exp
// CHECK-NOT: call @softmax__impl
func.func private @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %m = kiln.reduce_max %x [1] keepdim : tensor<?x1024xf32> -> tensor<?x1xf32>
  %d = kiln.sub %x, %m : (tensor<?x1024xf32>, tensor<?x1xf32>) -> tensor<?x1024xf32>
  %e = kiln.exp %d : tensor<?x1024xf32>
  %s = kiln.sum %e [1] keepdim : tensor<?x1024xf32> -> tensor<?x1xf32>
  %r = kiln.recip %s : tensor<?x1xf32>
  %o = kiln.mul %e, %r : (tensor<?x1024xf32>, tensor<?x1xf32>) -> tensor<?x1024xf32>
  return %o : tensor<?x1024xf32>
}

// -----

// A matmul with a dynamic M (the batch rows of a layer) keeps the packed
// micro-kernel: phase 0 packs ceil(S / (8 * 8)) groups of row panels of A
// (kiln.units_per = [1, 64]) into a workspace of ceil(S / 8) panels
// (kiln.workspace_per = [bytes per panel, 8, the prefetch margin]), phase 1
// has a fixed number of units, and M is read from the sizes argument.
// CHECK-LABEL: func.func @mm__p0(
// CHECK-SAME: kiln.sizes
// CHECK-SAME: kiln.units_per = array<i64: 1, 64>
// CHECK-SAME: kiln.workspace_per = array<i64: 8192, 8, 2176>
// CHECK-LABEL: func.func @mm__p1(
// CHECK-SAME: %{{.*}}: memref<?xi8>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.workspace_per = array<i64: 8192, 8, 2176>
// CHECK: memref.load %[[SZ]]
// CHECK: vector.fma
// CHECK-NOT: call @mm__impl
func.func private @mm(%x: tensor<?x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<?x256xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %x, %w : (tensor<?x64xf32>, tensor<64x256xf32>) -> tensor<?x256xf32>
  %1 = kiln.add %0, %b : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  return %1 : tensor<?x256xf32>
}

// -----

// A weight's gradient, x^T dy, sums over the dynamic batch rows: K is S.
// The packed micro-kernel stays, with ceil(S / 256) k slices of A in the
// workspace (kiln.workspace_per = [bytes per slice, 256, the margin]) and
// fixed units.
// CHECK-LABEL: func.func @wgrad__p0(
// CHECK-SAME: kiln.sizes
// CHECK-SAME: kiln.units = 1 : i64
// CHECK-SAME: kiln.workspace_per = array<i64: 65536, 256, 2176>
// CHECK-LABEL: func.func @wgrad__p1(
// CHECK-SAME: kiln.workspace_per = array<i64: 65536, 256, 2176>
// CHECK: vector.fma
// CHECK-NOT: call @wgrad__impl
func.func private @wgrad(%x: tensor<?x64xf32>, %dy: tensor<?x256xf32>) -> tensor<64x256xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %t = kiln.permute %x [1, 0] : tensor<?x64xf32> -> tensor<64x?xf32>
  %0 = kiln.matmul %t, %dy : (tensor<64x?xf32>, tensor<?x256xf32>) -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A column sum over the dynamic rows (a bias's gradient): the column
// generator, its units over chunks of the 1024 columns (accumulated in f64
// on the stack), its reduction loop running to S rows.
// CHECK-LABEL: func.func @colsum__p0(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[SZ:.*]]: memref<?xi64>)
// CHECK-SAME: kiln.sizes
// CHECK-SAME: kiln.units = 1 : i64
// CHECK: memref.alloca() : memref<1024xf64>
// CHECK: %[[S:.*]] = memref.load %[[SZ]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]]
// CHECK: %[[END:.*]] = arith.muli %[[SI]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]]
// CHECK-NOT: call @colsum__impl
func.func private @colsum(%x: tensor<?x1024xf32>) -> tensor<1x1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 0>} {
  %0 = kiln.sum %x [0] keepdim : tensor<?x1024xf32> -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}
