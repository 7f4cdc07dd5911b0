// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=256 stream-stores=1" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512 stream-stores=1" -split-input-file | FileCheck %s --check-prefix=AVX512
// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=256 stream-stores=0" -split-input-file | FileCheck %s --check-prefix=PLAIN

// An elementwise kernel: one unit loop, an inner unit-stride loop, the
// broadcast operand loaded once per run.
// CHECK-LABEL: func.func @ew__p0(
// CHECK-SAME: %[[B:.*]]: index, %[[E:.*]]: index, %[[X:.*]]: memref<?xf32>, %[[S:.*]]: memref<?xf32>, %[[O:.*]]: memref<?xf32>)
// CHECK-SAME: kiln.grain = {{[0-9]+}} : i64, kiln.kernel_of = "ew", kiln.phase = 0 : i64, kiln.units = 1 : i64
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: %[[SV:.*]] = memref.load %[[S]]
// CHECK: scf.for
// CHECK: %[[XV:.*]] = memref.load %[[X]]
// CHECK: %[[M:.*]] = arith.mulf %[[XV]], %[[SV]]
// CHECK: math.exp %[[M]]
// CHECK: memref.store {{.*}}, %[[O]]
// CHECK-NOT: kiln.
func.func private @ew(%x: tensor<1024xf32>, %s: tensor<f32>) -> tensor<1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
  %0 = kiln.mul %x, %s : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %1 = kiln.exp %0 : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}

// -----

// A row kernel (softmax): per row, a max loop and a sum loop carrying their
// accumulators, then one loop that writes the row. The sum loop keeps the
// exponentials in a row of scratch (allocated once per call of the phase),
// which the write loop reads back instead of computing them again; the
// output row is written only by the last loop. The sum loop (the last
// reduction) runs in chunks of 128, each first asking for its line of the
// next row (one line: the row is 16 wide).
// CHECK-LABEL: func.func @softmax__p0(
// CHECK-SAME: kiln.units = 4 : i64
// CHECK: %[[SCRATCH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
// CHECK: scf.for %[[ROW:.*]] = %arg0 to %arg1
// CHECK: %[[MAX:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32)
// CHECK-NOT: memref.prefetch
// CHECK: arith.maximumf %[[A]]
// CHECK: %[[SUM:.*]] = scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c128{{.*}} iter_args(%[[SC:.*]] = %{{.*}}) -> (f32)
// CHECK: memref.prefetch %arg2[%{{.*}}], read, locality<2>, data
// CHECK-NOT: memref.prefetch
// CHECK: scf.for %[[J:.*]] = %[[C]] to %{{.*}} iter_args(%[[S:.*]] = %[[SC]]) -> (f32)
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: %[[E:.*]] = math.exp
// CHECK: memref.store %[[E]], %[[SCRATCH]][%[[J]]]
// CHECK: arith.addf %[[S]], %{{.*}} fastmath<reassoc>
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[SUM]]
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[EK:.*]] = memref.load %[[SCRATCH]][%[[K]]]
// CHECK: arith.mulf %[[EK]], %[[R]]
// CHECK: memref.store %{{.*}}, %arg3
// CHECK: memref.dealloc %[[SCRATCH]]
func.func private @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %0 = kiln.reduce_max %x [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %1 = kiln.detach %0 : tensor<4x1xf32>
  %2 = kiln.sub %x, %1 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %3 = kiln.exp %2 : tensor<4x16xf32>
  %4 = kiln.sum %3 [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %5 = kiln.recip %4 : tensor<4x1xf32>
  %6 = kiln.mul %3, %5 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %6 : tensor<4x16xf32>
}

// -----

// The tiles of a k slice share out the B that their unit packs next and
// ask for it (into L2) during their k loops, so that packing does not wait
// on memory: the block's next slice (rows from kc + 256), or on the last
// slice (of 3 here, K = 768) the first slice of the next unit, when this
// thread runs one. The 2 tiles of a unit (2 panels of 16 columns, one row panel:
// the 2 row panels are split between 2 units) share 256 rows, 128 each,
// 2 lines of the block's 32 columns in each row: 256 lines a tile, 16 in
// each of the 16 chunks (of 16 k steps) of its k loop, one prefetch per
// line, none before the loop; the 12 lines of the tile's C are asked for
// two per chunk in the first 6 chunks. Each 4-step iteration asks for the
// packed A it reads 64 steps ahead (24 floats: 2 lines). (A is given
// transposed, so that it is packed: a plain A of a product this narrow is
// read in place, below.)
// CHECK-LABEL: func.func @mmk__p1(
// CHECK: scf.for %[[UNIT:.*]] = %arg0 to %arg1
// CHECK: scf.for %[[KS:.*]] = %c0{{[_0-9]*}} to %c3
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[KS]], %c2
// CHECK: %[[NEXT:.*]] = arith.addi %[[UNIT]], %c1
// CHECK: arith.select %[[LAST]], %c0{{[_0-9]*}}, %{{.*}} : index
// CHECK: %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %arg1 : index
// CHECK: arith.select %[[LAST]], %[[MORE]], %true
// CHECK-NOT: memref.prefetch %arg3
// CHECK: scf.for %[[KK:.*]] = %c0{{[_0-9]*}} to %{{.*}} step %c16{{[_0-9]*}} iter_args
// CHECK: %[[CHUNK:.*]] = arith.divui %[[KK]], %c16
// CHECK: %[[EARLY:.*]] = arith.cmpi ult, %[[CHUNK]], %c6
// CHECK: scf.if %[[EARLY]]
// CHECK-COUNT-2: memref.prefetch %arg4{{.*}} write, locality<3>, data
// CHECK: %[[FROM:.*]] = arith.muli %[[CHUNK]], %c16
// CHECK: %[[TO:.*]] = arith.addi %[[FROM]], %c16
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[TO]] step %c1
// CHECK: scf.if
// CHECK: memref.prefetch %arg3[%{{.*}}], read, locality<2>, data
// CHECK-NOT: memref.prefetch %arg3
// CHECK: scf.for {{.*}} step %c4{{[_0-9]*}} iter_args
// CHECK-COUNT-2: memref.prefetch %view[%{{.*}}], read, locality<3>, data
// CHECK-COUNT-24: vector.fma
func.func private @mmk(%at: tensor<768x12xf32>, %b: tensor<768x32xf32>) -> tensor<12x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %a = kiln.permute %at [1, 0] : tensor<768x12xf32> -> tensor<12x768xf32>
  %0 = kiln.matmul %a, %b : (tensor<12x768xf32>, tensor<768x32xf32>) -> tensor<12x32xf32>
  return %0 : tensor<12x32xf32>
}

// -----

// A product of one or two panels (32 columns: 2 panels of 16) reads A in
// place: no phase packs it, and the micro-kernel's broadcasts load A's
// rows (3 row panels of 6 rows, the last row repeated past M = 14).
// CHECK-LABEL: func.func @inplace__p0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[A:arg[0-9]+]]: memref<?xf32>
// CHECK: arith.minui %{{.*}}, %c13
// CHECK: scf.for {{.*}} step %c4{{[_0-9]*}} iter_args
// CHECK-NOT: memref.prefetch %view
// CHECK: memref.load %[[A]]
// CHECK: vector.fma
// CHECK-NOT: func.func @inplace__p1(
func.func private @inplace(%a: tensor<14x600xf32>, %b: tensor<600x32xf32>) -> tensor<14x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<14x600xf32>, tensor<600x32xf32>) -> tensor<14x32xf32>
  return %0 : tensor<14x32xf32>
}

// -----

// A read in place streams from memory; its slices are as deep as a block
// of B of 1 MiB allows (8192 rows of 2 panels of 16, 4096 of 32): K = 3000
// is one slice, not 12 of 256.
// CHECK-LABEL: func.func @deep__p0(
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %c1{{[_0-9]*}} step %c1
// CHECK-NEXT: arith.constant 3000 : index
// AVX512-LABEL: func.func @deep__p0(
// AVX512: scf.for %{{.*}} = %c0{{[_0-9]*}} to %c1{{[_0-9]*}} step %c1
// AVX512-NEXT: arith.constant 3000 : index
func.func private @deep(%a: tensor<16x3000xf32>, %b: tensor<3000x32xf32>) -> tensor<16x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x3000xf32>, tensor<3000x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// With one k slice there is no next slice of the block; the tiles still
// ask for the first (only) slice of the next unit's block of B.
// CHECK-LABEL: func.func @mmk1__p1(
// CHECK: scf.if
// CHECK: memref.prefetch %arg3[%{{.*}}], read, locality<2>, data
// CHECK: scf.for {{.*}} iter_args
func.func private @mmk1(%a: tensor<12x100xf32>, %b: tensor<100x1024xf32>) -> tensor<12x1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<12x100xf32>, tensor<100x1024xf32>) -> tensor<12x1024xf32>
  return %0 : tensor<12x1024xf32>
}

// -----

// An output of 16 MiB or more goes out through a stack block and
// non-temporal stores, with one fence per call of the phase: a whole block
// that starts on a line by a vector store per line, others by the
// runtime's copy.
// CHECK-LABEL: func.func @big__p0(
// CHECK: %[[BLK:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xf32>
// CHECK: scf.for
// CHECK: scf.for %[[AT:.*]] = %{{.*}} to %{{.*}} step %[[C1024:.*]] {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to
// CHECK: arith.mulf
// CHECK: memref.store %{{.*}}, %[[BLK]][%[[J]]]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg4
// CHECK: %[[DST:.*]] = arith.addi %[[P]],
// CHECK: arith.andi %[[DST]], %c63
// CHECK: scf.if
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c1024{{.*}} step %c16
// CHECK: %[[V:.*]] = vector.load %[[BLK]][%[[K]]] : memref<1024xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %arg4[%{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<?xf32>, vector<16xf32>
// CHECK: } else {
// CHECK: memref.extract_aligned_pointer_as_index %[[BLK]]
// CHECK: call @kiln_stream_store(%[[DST]],
// CHECK: call @kiln_stream_fence()
// CHECK-NEXT: return
// With stream-stores=0 (what the host decides on AMD Zen cores, where plain
// stores measured faster) the same kernel stores in place.
// PLAIN-LABEL: func.func @big__p0(
// PLAIN-NOT: kiln_stream
// PLAIN: arith.mulf
// PLAIN: memref.store %{{.*}}, %arg4
// PLAIN-NOT: kiln_stream
// PLAIN: return
func.func private @big(%x: tensor<4194304xf32>, %s: tensor<f32>) -> tensor<4194304xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
  %0 = kiln.mul %x, %s : (tensor<4194304xf32>, tensor<f32>) -> tensor<4194304xf32>
  return %0 : tensor<4194304xf32>
}

// -----

// The same size with an exponential is streamed too (it measured faster
// so once the block went out by the kernel's own vector stores).
// CHECK-LABEL: func.func @bigexp__p0(
// CHECK: math.exp
// CHECK: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK: call @kiln_stream_fence()
// PLAIN-LABEL: func.func @bigexp__p0(
// PLAIN-NOT: nontemporal
// PLAIN-NOT: kiln_stream
// PLAIN: return
func.func private @bigexp(%x: tensor<4194304xf32>) -> tensor<4194304xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
  %0 = kiln.exp %x : tensor<4194304xf32>
  return %0 : tensor<4194304xf32>
}

// -----

// A softmax with an output of 16 MiB or more streams it: the exponential
// is computed in the sum loop (into scratch), and the write loop, which
// only multiplies, goes through the stack block and non-temporal stores.
// With plain stores it writes the output row directly.
// CHECK-LABEL: func.func @bigsoftmax__p0(
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4096xf32>
// CHECK: math.exp
// CHECK: memref.store
// CHECK-NOT: math.exp
// CHECK: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK: call @kiln_stream_store(
// PLAIN-LABEL: func.func @bigsoftmax__p0(
// PLAIN-NOT: kiln_stream
// PLAIN: return
func.func private @bigsoftmax(%x: tensor<1024x4096xf32>) -> tensor<1024x4096xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %0 = kiln.reduce_max %x [1] keepdim : tensor<1024x4096xf32> -> tensor<1024x1xf32>
  %1 = kiln.detach %0 : tensor<1024x1xf32>
  %2 = kiln.sub %x, %1 : (tensor<1024x4096xf32>, tensor<1024x1xf32>) -> tensor<1024x4096xf32>
  %3 = kiln.exp %2 : tensor<1024x4096xf32>
  %4 = kiln.sum %3 [1] keepdim : tensor<1024x4096xf32> -> tensor<1024x1xf32>
  %5 = kiln.recip %4 : tensor<1024x1xf32>
  %6 = kiln.mul %3, %5 : (tensor<1024x4096xf32>, tensor<1024x1xf32>) -> tensor<1024x4096xf32>
  return %6 : tensor<1024x4096xf32>
}

// -----

// A row kernel asks for every line of the next row of each operand it
// reads along the row (into L2), 8 lines (128 floats) before each chunk of
// its last reduction loop, the addresses clamped to the row; a large
// output it does not read back is streamed (by the runtime's copy when a
// block does not start on a line: rows of 1025). A float sum of more than
// 1024 elements adds blocks of 1024 in f32 and the blocks in f64.
// CHECK-LABEL: func.func @rowcenter__p0(
// CHECK: scf.for %[[ROW:.*]] = %arg0 to %arg1
// CHECK: %[[NEXT:.*]] = arith.minui %{{.*}}, %c4095
// CHECK: %[[NEXTROW:.*]] = arith.muli %[[NEXT]], %c1025
// CHECK: %[[NOFF:.*]] = arith.addi %{{.*}}, %[[NEXTROW]]
// CHECK: %[[BLOCKS:.*]] = scf.for %[[B:.*]] = %{{.*}} to %c1025{{.*}} step %c1024{{.*}} iter_args(%[[BS:.*]] = %{{.*}}) -> (f64)
// CHECK: %[[BEND:.*]] = arith.minui %{{.*}}, %c1025
// CHECK: %[[BSUM:.*]] = scf.for %[[C:.*]] = %[[B]] to %[[BEND]] step %c128{{.*}} iter_args({{.*}}) -> (f32)
// CHECK-COUNT-8: arith.minui %{{.*}}, %c1024{{.*}}
// CHECK-NEXT: arith.addi %[[NOFF]],
// CHECK-NEXT: memref.prefetch %arg2[%{{.*}}], read, locality<2>, data
// CHECK-NOT: memref.prefetch
// CHECK: scf.for {{.*}} = %[[C]] to {{.*}} iter_args
// CHECK: %[[W:.*]] = arith.extf %[[BSUM]] : f32 to f64
// CHECK: arith.addf %[[BS]], %[[W]] fastmath<reassoc> : f64
// CHECK: arith.truncf %[[BLOCKS]] : f64 to f32
// CHECK: call @kiln_stream_store(
// PLAIN-LABEL: func.func @rowcenter__p0(
// PLAIN-NOT: kiln_stream
// PLAIN: memref.store
// PLAIN-NOT: kiln_stream
// PLAIN: return
func.func private @rowcenter(%x: tensor<4096x1025xf32>) -> tensor<4096x1025xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %0 = kiln.sum %x [1] keepdim : tensor<4096x1025xf32> -> tensor<4096x1xf32>
  %1 = kiln.sub %x, %0 : (tensor<4096x1025xf32>, tensor<4096x1xf32>) -> tensor<4096x1025xf32>
  return %1 : tensor<4096x1025xf32>
}

// -----

// A column reduction accumulates whole rows in a stack buffer (of f64 for
// a float sum).
// CHECK-LABEL: func.func @colsum__p0(
// CHECK: memref.alloca() : memref<16xf64>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.addf {{.*}} fastmath<reassoc>
func.func private @colsum(%x: tensor<8x16xf32>) -> tensor<16xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 0>} {
  %0 = kiln.sum %x [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A matmul with a bias and gelu epilogue: phase 0 packs A into panels of
// MR rows (rows past M zero, with no branch), phase 1 packs each k slice of
// its column block of B into a cache-line-aligned heap buffer (one vector per
// row of a panel, masked on the last panel), then runs the register-tiled
// micro-kernel (6x16 on 256-bit vectors, 8x32 on 512-bit ones) from zeroed
// accumulators, prefetching the tile's rows of C (before the k loop: K is
// too short to spread them over it), adds the partial sums
// after the k loop and applies the epilogue to each tile row before
// storing it: whole rows on full panels, masked ones on the last.
// Both phases are vector code as written (kiln.vector_code).
// CHECK-LABEL: func.func @mm__p0(
// CHECK-SAME: kiln.vector_code, kiln.workspace
// CHECK: memref.view
// CHECK-COUNT-6: arith.select
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<6xf32>
// CHECK-LABEL: func.func @mm__p1(
// CHECK-SAME: kiln.vector_code
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<12288xf32>
// CHECK: vector.load {{.*}} : memref<?xf32>, vector<16xf32>
// CHECK: vector.maskedload
// CHECK: vector.store {{.*}} : memref<12288xf32>, vector<16xf32>
// CHECK: vector.create_mask {{.*}} : vector<16xi1>
// CHECK: memref.prefetch {{.*}} write, locality<3>, data
// The micro-kernel's main loop takes 4 k steps (4 x 6 FMAs) per iteration,
// then a loop of single steps finishes the slice.
// CHECK: scf.for {{.*}} step %c4{{[_0-9]*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK-COUNT-24: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-6: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// CHECK: vector.load {{.*}} : memref<?xf32>, vector<16xf32>
// CHECK: vector.maskedload
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<16xf32>
// CHECK: vector.maskedstore
// CHECK: memref.dealloc
// On 512-bit vectors the 40 columns are 2 panels of 32: A is read in
// place, and the one phase runs the 8x32 micro-kernel.
// AVX512-LABEL: func.func @mm__p0(
// AVX512: iter_args({{.*}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
func.func private @mm(%a: tensor<64x32xf32>, %b: tensor<32x40xf32>, %bias: tensor<40xf32>) -> tensor<64x40xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<64x32xf32>, tensor<32x40xf32>) -> tensor<64x40xf32>
  %1 = kiln.add %0, %bias : (tensor<64x40xf32>, tensor<40xf32>) -> tensor<64x40xf32>
  %2 = kiln.gelu %1 approximate = tanh : tensor<64x40xf32>
  return %2 : tensor<64x40xf32>
}

// -----

// Transposed operands are read in place while packing: phase 0 packs A
// from A^T with a stride of M along k; phase 1 transposes 8 x 8 blocks of
// B^T (8 vector loads, 24 shuffles, 8 stores) on whole panels and gathers
// each remaining row of a B panel from NR stored rows of B^T (one element
// each). The residual varies along both dims of C, so on the last K slice
// its tile rows are prefetched before the k loop, after C's own.
// CHECK-LABEL: func.func @mmt__p0(
// CHECK: scf.for
// CHECK: scf.for {{.*}} step %c2
// CHECK: arith.muli {{.*}}, %c64{{.*}} : index
// CHECK: vector.maskedload %arg2{{.*}} : memref<?xf32>, vector<12xi1>, vector<12xf32> into vector<12xf32>
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<6xf32>
// CHECK-NOT: memref.load %arg2
// CHECK-LABEL: func.func @mmt__p1(
// CHECK-COUNT-8: vector.load %arg3{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK-COUNT-24: vector.shuffle
// CHECK-COUNT-8: vector.store {{.*}} : memref<12288xf32>, vector<8xf32>
// CHECK-COUNT-16: memref.load %arg3
// CHECK: vector.from_elements {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}} : memref<12288xf32>, vector<16xf32>
// CHECK: memref.prefetch %arg5{{.*}} write, locality<3>, data
// CHECK: scf.if
// CHECK-COUNT-12: memref.prefetch %arg4{{.*}} read, locality<3>, data
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.fma
func.func private @mmt(%a: tensor<32x64xf32>, %b: tensor<40x32xf32>, %r: tensor<64x40xf32>) -> tensor<64x40xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %at = kiln.permute %a [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  %bt = kiln.permute %b [1, 0] : tensor<40x32xf32> -> tensor<32x40xf32>
  %0 = kiln.matmul %at, %bt : (tensor<64x32xf32>, tensor<32x40xf32>) -> tensor<64x40xf32>
  %1 = kiln.add %0, %r : (tensor<64x40xf32>, tensor<64x40xf32>) -> tensor<64x40xf32>
  return %1 : tensor<64x40xf32>
}

// -----

// A prologue on a transposed A (gelu(z + bias)^T, z stored [K, M]): phase
// 0 evaluates it instead of loading A, along each stored row of z, two row
// panels (2 MR lanes) per evaluation: masked vector loads of z, the bias
// (varying along M) loaded as a vector too, the gelu's tanh, rows past M
// zeroed, and each half stored as one panel's MR values. Phase 1 is the
// usual packed kernel.
// CHECK-LABEL: func.func @mmpt__p0(
// CHECK: scf.for
// CHECK: scf.for {{.*}} step %c2
// CHECK: vector.create_mask {{.*}} : vector<12xi1>
// CHECK: vector.maskedload %arg2{{.*}} : memref<?xf32>, vector<12xi1>, vector<12xf32> into vector<12xf32>
// CHECK: vector.maskedload %arg3{{.*}} : memref<?xf32>, vector<12xi1>, vector<12xf32> into vector<12xf32>
// CHECK: math.tanh {{.*}} : vector<12xf32>
// CHECK: arith.select {{.*}} : vector<12xi1>, vector<12xf32>
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5] : vector<12xf32>, vector<12xf32>
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<6xf32>
// CHECK: scf.if
// CHECK: vector.shuffle {{.*}} [6, 7, 8, 9, 10, 11] : vector<12xf32>, vector<12xf32>
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<6xf32>
// CHECK-NOT: linalg
// CHECK-LABEL: func.func @mmpt__p1(
// CHECK: vector.fma
// AVX512-LABEL: func.func @mmpt__p0(
// AVX512: math.tanh {{.*}} : vector<16xf32>
func.func private @mmpt(%z: tensor<32x20xf32>, %bias: tensor<20xf32>, %b: tensor<32x40xf32>) -> tensor<20x40xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.add %z, %bias : (tensor<32x20xf32>, tensor<20xf32>) -> tensor<32x20xf32>
  %1 = kiln.gelu %0 approximate = tanh : tensor<32x20xf32>
  %at = kiln.permute %1 [1, 0] : tensor<32x20xf32> -> tensor<20x32xf32>
  %2 = kiln.matmul %at, %b : (tensor<20x32xf32>, tensor<32x40xf32>) -> tensor<20x40xf32>
  return %2 : tensor<20x40xf32>
}

// -----

// A prologue on a plain A ([M, K]) with a per-row operand: phase 0
// evaluates each of the MR rows of a panel on 8 consecutive k (the per-row
// value broadcast, the per-k one a vector), zeroes rows past M, transposes
// the 8 x 8 block with shuffles, and stores the MR values of each k; K is
// not a multiple of 8, so k past K is not stored.
// CHECK-LABEL: func.func @mmpn__p0(
// CHECK: scf.for {{.*}} step %c8
// CHECK: vector.create_mask {{.*}} : vector<8xi1>
// CHECK: vector.maskedload %arg2{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: memref.load %arg3
// CHECK: vector.broadcast {{.*}} : f32 to vector<8xf32>
// CHECK: arith.subf
// CHECK: vector.maskedload %arg4
// CHECK: arith.mulf
// CHECK-COUNT-24: vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5] : vector<8xf32>, vector<8xf32>
// CHECK: scf.if
// CHECK: vector.store {{.*}} : memref<?xf32>, vector<6xf32>
// CHECK-NOT: linalg
// CHECK-LABEL: func.func @mmpn__p1(
// CHECK: vector.fma
// AVX512-LABEL: func.func @mmpn__p0(
// AVX512-COUNT-24: vector.shuffle
// AVX512: vector.store {{.*}} : memref<?xf32>, vector<8xf32>
func.func private @mmpn(%x: tensor<20x30xf32>, %mean: tensor<20x1xf32>, %gamma: tensor<30xf32>, %b: tensor<30x16xf32>) -> tensor<20x16xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.sub %x, %mean : (tensor<20x30xf32>, tensor<20x1xf32>) -> tensor<20x30xf32>
  %1 = kiln.mul %0, %gamma : (tensor<20x30xf32>, tensor<30xf32>) -> tensor<20x30xf32>
  %2 = kiln.matmul %1, %b : (tensor<20x30xf32>, tensor<30x16xf32>) -> tensor<20x16xf32>
  return %2 : tensor<20x16xf32>
}

// -----

// A k slice long enough (K = 128: 32 iterations of 4 steps, 12 lines of C
// per 6-row tile) asks for the tile's rows of C and of the residual during
// the first half of its k loop, not before it: an outer loop of 8-step
// chunks, the first 6 of them asking for two lines of C (for writing) and,
// on the last slice, two of the residual, each then asking for its lines
// of the next unit's B and running its steps 4 at a time, each iteration
// asking for packed A ahead.
// CHECK-LABEL: func.func @mmpf__p1(
// CHECK-NOT: memref.prefetch %arg5
// CHECK: scf.for {{.*}} step %c8{{[_0-9]*}} iter_args
// CHECK: arith.cmpi ult, %{{.*}}, %c6
// CHECK: memref.prefetch %arg5{{.*}} write, locality<3>, data
// CHECK: scf.if
// CHECK: memref.prefetch %arg4{{.*}} read, locality<3>, data
// CHECK: memref.prefetch %arg5{{.*}} write, locality<3>, data
// CHECK: scf.if
// CHECK: memref.prefetch %arg4{{.*}} read, locality<3>, data
// CHECK-NOT: memref.prefetch %arg{{[45]}}
// CHECK: memref.prefetch %arg3{{.*}} read, locality<2>, data
// CHECK: scf.for {{.*}} step %c4{{[_0-9]*}} iter_args
// CHECK-COUNT-2: memref.prefetch %view{{.*}} read, locality<3>, data
// CHECK-COUNT-24: vector.fma
// CHECK-NOT: memref.prefetch %arg
// CHECK: return
func.func private @mmpf(%a: tensor<16x128xf32>, %b: tensor<128x40xf32>, %r: tensor<16x40xf32>) -> tensor<16x40xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x128xf32>, tensor<128x40xf32>) -> tensor<16x40xf32>
  %1 = kiln.add %0, %r : (tensor<16x40xf32>, tensor<16x40xf32>) -> tensor<16x40xf32>
  return %1 : tensor<16x40xf32>
}

// -----

// An SGD update as epilogue (W - lr * (A @ B)) with K in one slice: W is
// read only by the epilogue, at C's positions, so the phase that
// multiplies (the only one: A, of 2 panels, is read in place) tells the
// runtime that C may take W's buffer (argument 2).
// CHECK-LABEL: func.func @sgd__p0(
// CHECK-SAME: kiln.in_place = 2 : i64
func.func private @sgd(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>, %w: tensor<16x32xf32>, %lr: tensor<f32>) -> tensor<16x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %1 = kiln.mul %0, %lr : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %2 = kiln.sub %w, %1 : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

// With K over more than one slice (9000: a product that reads A in place
// takes slices of at most 8192 on 16-lane panels), C holds partial sums
// before the epilogue reads W, so C may not take W's buffer; nor may it
// take a bias's (not of C's type).
// CHECK-LABEL: func.func @sgdk__p0(
// CHECK-NOT: kiln.in_place
// CHECK-LABEL: func.func @bias__p0(
// CHECK-NOT: kiln.in_place
// CHECK: return
func.func private @sgdk(%a: tensor<16x9000xf32>, %b: tensor<9000x32xf32>, %w: tensor<16x32xf32>) -> tensor<16x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x9000xf32>, tensor<9000x32xf32>) -> tensor<16x32xf32>
  %1 = kiln.sub %w, %0 : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %1 : tensor<16x32xf32>
}
func.func private @bias(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>, %c: tensor<32xf32>) -> tensor<16x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %1 = kiln.add %0, %c : (tensor<16x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  return %1 : tensor<16x32xf32>
}

// -----

// Few long rows, one reduction, a per-row result: phase 0 gives each unit
// a part of a row (2 parts of 20016 and 19993 here, 6 units) and stores
// its partial sum (in f64, from blocks of 1024 in f32) in the workspace;
// phase 1 combines a row's partials and applies the per-row ops after the
// reduction.
// CHECK-LABEL: func.func @mean3__p0(
// CHECK-SAME: kiln.units = 6 : i64, kiln.workspace = 48 : i64
// CHECK: %[[WS:.*]] = memref.view %arg4[%{{.*}}][%c6{{.*}}] : memref<?xi8> to memref<?xf64>
// CHECK: scf.for %[[U:.*]] = %arg0 to %arg1
// CHECK: %[[ROW:.*]] = arith.divui %[[U]], %c2
// CHECK: %[[PART:.*]] = arith.remui %[[U]], %c2
// CHECK: %[[LO:.*]] = arith.muli %[[PART]], %c20016
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %[[LO]] to %{{.*}} step %c1024{{.*}} iter_args({{.*}}) -> (f64)
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.mulf
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: memref.store %[[SUM]], %[[WS]][%[[U]]]
// CHECK-LABEL: func.func @mean3__p1(
// CHECK-SAME: kiln.units = 3 : i64
// CHECK: %[[WS1:.*]] = memref.view %arg4
// CHECK: scf.for %[[R:.*]] = %arg0 to %arg1
// CHECK: %[[TOT:.*]] = scf.for {{.*}} = %c0{{.*}} to %c2{{.*}} iter_args
// CHECK: memref.load %[[WS1]]
// CHECK: %[[TOT32:.*]] = arith.truncf %[[TOT]] : f64 to f32
// CHECK: arith.divf %[[TOT32]],
// CHECK: memref.store %{{.*}}, %arg3[%[[R]]]
// A short row keeps one unit per row and no workspace.
// CHECK-LABEL: func.func @shortsum__p0(
// CHECK-SAME: kiln.units = 1 : i64
// CHECK-NOT: kiln.workspace
// CHECK-NOT: @shortsum__p1
func.func private @mean3(%x: tensor<3x40009xf32>) -> tensor<3xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %0 = kiln.mul %x, %x : (tensor<3x40009xf32>, tensor<3x40009xf32>) -> tensor<3x40009xf32>
  %1 = kiln.sum %0 [1] : tensor<3x40009xf32> -> tensor<3xf32>
  %c = kiln.constant dense<4.0e+04> : tensor<f32>
  %2 = kiln.div %1, %c : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
func.func private @shortsum(%x: tensor<32767xf32>) -> tensor<f32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 0>} {
  %0 = kiln.sum %x [0] : tensor<32767xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A float product accumulates in f64 (each f32 step's rounding leans one
// way on factors near 1); a sum of one block (at most 1024 elements) keeps
// an f32 accumulator.
// CHECK-LABEL: func.func @prod32__p0(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64)
// CHECK: scf.for {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (f64)
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: arith.mulf %[[P]], %[[W]] fastmath<reassoc> : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-LABEL: func.func @sum32__p0(
// CHECK-NOT: f64
// CHECK: return
func.func private @prod32(%x: tensor<4x100xf32>) -> tensor<4xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %0 = kiln.prod %x [1] : tensor<4x100xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @sum32(%x: tensor<4x100xf32>) -> tensor<4xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>} {
  %0 = kiln.sum %x [1] : tensor<4x100xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Regression (kiln-api-fuzzer): a column reduction of rows with no
// columns divided by zero when it sized its accumulator chunks. An empty
// reduction takes the generic path, which writes nothing.
// CHECK-LABEL: func.func private @colsum_empty__impl(
// CHECK-NEXT: return
// CHECK: func.func @colsum_empty__p0(
// CHECK: call @colsum_empty__impl(
func.func private @colsum_empty(%x: tensor<8x0xf32>) -> tensor<0xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 0>} {
  %0 = kiln.sum %x [0] : tensor<8x0xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// K is cut into slices of equal depth, a multiple of 8 and at most 256:
// K = 600 is 3 slices of 200 (not 256, 256 and 88), and K = 1100 is 5 of
// 224 (220 rounded up to 8; the last one 204) rather than 4 of 256 and
// one of 76.
// CHECK-LABEL: func.func @balanced__p1(
// CHECK: scf.for %[[KS:.*]] = %c0{{[_0-9]*}} to %c3{{[_0-9]*}} step %c1
// CHECK-NEXT: %[[KC:.*]] = arith.constant 200 : index
// CHECK-NEXT: arith.muli %[[KS]], %[[KC]] : index
// CHECK-LABEL: func.func @balanced1100__p1(
// CHECK: scf.for %[[KS:.*]] = %c0{{[_0-9]*}} to %c5{{[_0-9]*}} step %c1
// CHECK-NEXT: %[[KC:.*]] = arith.constant 224 : index
func.func private @balanced(%a: tensor<16x600xf32>, %b: tensor<600x128xf32>) -> tensor<16x128xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x600xf32>, tensor<600x128xf32>) -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}
func.func private @balanced1100(%a: tensor<16x1100xf32>, %b: tensor<1100x128xf32>) -> tensor<16x128xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x1100xf32>, tensor<1100x128xf32>) -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}

// -----

// A bool operand of the epilogue holds a byte per element: its lanes are
// loaded as bytes through the buffer's address (one vector load on whole
// panels, a masked one on the last) and compared with zero, not loaded
// one by one.
// CHECK-LABEL: func.func @mask_epilogue__p1(
// CHECK-SAME: %[[M:[a-z0-9]+]]: memref<?xi1>, %{{.*}}: memref<?xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[M]] : memref<?xi1> -> index
// CHECK: %[[BYTES:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK-NEXT: arith.cmpi ne, %[[BYTES]], %{{.*}} : vector<16xi8>
// CHECK: } else {
// CHECK: memref.extract_aligned_pointer_as_index %[[M]] : memref<?xi1> -> index
// CHECK: llvm.intr.masked.load {{.*}} -> vector<16xi8>
// CHECK-NOT: memref.load %[[M]]
// CHECK: return
// AVX512-LABEL: func.func @mask_epilogue__p0(
// AVX512: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
// AVX512: llvm.intr.masked.load {{.*}} -> vector<32xi8>
func.func private @mask_epilogue(%a: tensor<16x8xf32>, %b: tensor<8x40xf32>, %m: tensor<16x40xi1>) -> tensor<16x40xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x8xf32>, tensor<8x40xf32>) -> tensor<16x40xf32>
  %z = kiln.constant dense<0.0> : tensor<f32>
  %1 = kiln.where %m, %0, %z : (tensor<16x40xi1>, tensor<16x40xf32>, tensor<f32>) -> tensor<16x40xf32>
  return %1 : tensor<16x40xf32>
}
