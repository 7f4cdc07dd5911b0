// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=256" -split-input-file | FileCheck %s --check-prefix=AVX2

// A matmul of one row (decoding a token) with a bias epilogue: one phase,
// no workspace and no packing. Each unit owns 4 vectors of columns (64 on
// 512-bit vectors: 768 / 64 = 12 units) and walks K once, a broadcast of A
// times each vector of B's row into 4 accumulators; the bias is added in
// registers and C stored.
// CHECK-LABEL: func.func @decode__p0(
// CHECK-SAME: %[[A:[^:]+]]: memref<?xf32>, %[[B:[^:]+]]: memref<?xf32>, %[[BIAS:[^:]+]]: memref<?xf32>, %[[C:[^:]+]]: memref<?xf32>)
// The phase is vector code as written (kiln.vector_code: the Cpu JIT
// gives it the short LLVM pipeline).
// CHECK-SAME: kiln.units = 12 : i64, kiln.vector_code
// CHECK-NOT: kiln.workspace
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-COUNT-4: vector.load %[[B]]
// CHECK: memref.load %[[A]]
// CHECK: vector.broadcast
// CHECK-COUNT-4: vector.fma
// CHECK: vector.load %[[BIAS]]
// CHECK: arith.addf
// CHECK: vector.store %{{.*}}, %[[C]]
// CHECK-NOT: func.func @decode__p1
// AVX2-LABEL: func.func @decode__p0(
// AVX2-SAME: kiln.units = 24 : i64
// AVX2: vector.fma %{{.*}} : vector<8xf32>
func.func private @decode(%a: tensor<1x1x256xf32>, %b: tensor<256x768xf32>, %bias: tensor<768xf32>) -> tensor<1x1x768xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<1x1x256xf32>, tensor<256x768xf32>) -> tensor<1x1x768xf32>
  %1 = kiln.add %0, %bias : (tensor<1x1x768xf32>, tensor<768xf32>) -> tensor<1x1x768xf32>
  return %1 : tensor<1x1x768xf32>
}

// -----

// q8 weights in blocks of 32: each vector of B is 16 bytes converted to
// f32 and scaled by its block's scale, read as stored (no packing).
// CHECK-LABEL: func.func @decode_q8__p0(
// CHECK-SAME: %[[A:[^:]+]]: memref<?xf32>, %[[Q:[^:]+]]: memref<?xi8>, %[[S:[^:]+]]: memref<?xf32>, %[[C:[^:]+]]: memref<?xf32>)
// CHECK: vector.load %[[Q]]{{.*}} : memref<?xi8>, vector<16xi8>
// CHECK: arith.sitofp %{{.*}} : vector<16xi8> to vector<16xf32>
// CHECK: arith.divui %{{.*}}, %c32
// CHECK: memref.load %[[S]]
// CHECK: arith.mulf
// CHECK: vector.fma
func.func private @decode_q8(%a: tensor<2x256xf32>, %q: tensor<256x256xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>) -> tensor<2x256xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %w = kiln.dequantize %q : tensor<256x256xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<256x256xf32>
  %0 = kiln.matmul %a, %w : (tensor<2x256xf32>, tensor<256x256xf32>) -> tensor<2x256xf32>
  return %0 : tensor<2x256xf32>
}

// -----

// More rows than a few: the packed matmul (phase 0 packs A). Both phases
// are vector code.
// CHECK-LABEL: func.func @prefill__p0(
// CHECK-SAME: kiln.vector_code, kiln.workspace
// CHECK-LABEL: func.func @prefill__p1(
// CHECK-SAME: kiln.vector_code
func.func private @prefill(%a: tensor<16x256xf32>, %b: tensor<256x256xf32>) -> tensor<16x256xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}

// -----

// A quantized B of more rows packs B with a scalar loop, which the Cpu JIT
// leaves to the full LLVM pipeline: phase 1 is not vector code.
// CHECK-LABEL: func.func @prefill_q8__p0(
// CHECK-SAME: kiln.vector_code
// CHECK-LABEL: func.func @prefill_q8__p1(
// CHECK-NOT: kiln.vector_code
// CHECK-SAME: kiln.workspace = {{[0-9]+}} : i64, llvm.emit_c_interface} {
func.func private @prefill_q8(%a: tensor<16x256xf32>, %q: tensor<256x256xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>) -> tensor<16x256xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %w = kiln.dequantize %q : tensor<256x256xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<256x256xf32>
  %0 = kiln.matmul %a, %w : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}

// -----

// A transposed B (a Linear's [out, in] weight, stored rows of K): each unit
// owns one vector of columns, W stored rows (688 / 16 = 43 units on 512-bit
// vectors, 86 on 256-bit), and walks K a vector at a time: A's vector
// times each stored row's vector into one accumulator per column. A tree
// of shuffles sums each accumulator's lanes into lane j of one vector (15
// adds of 16 accumulators), the epilogue runs on it and C is stored once.
// CHECK-LABEL: func.func @decode_t__p0(
// CHECK-SAME: %[[A:[^:]+]]: memref<?xf32>, %[[B:[^:]+]]: memref<?xf32>, %[[C:[^:]+]]: memref<?xf32>)
// CHECK-SAME: kiln.units = 43 : i64, kiln.vector_code
// CHECK-NOT: kiln.workspace
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16{{.*}} iter_args(
// CHECK: vector.load %[[A]]
// CHECK-COUNT-16: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-15: arith.addf %{{.*}} : vector<16xf32>
// CHECK: math.exp
// CHECK: vector.store %{{.*}}, %[[C]]
// CHECK-NOT: vector.store
// CHECK-NOT: func.func @decode_t__p1
// AVX2-LABEL: func.func @decode_t__p0(
// AVX2-SAME: kiln.units = 86 : i64
// AVX2-COUNT-8: vector.fma %{{.*}} : vector<8xf32>
// AVX2-COUNT-7: arith.addf %{{.*}} : vector<8xf32>
func.func private @decode_t(%a: tensor<1x1x256xf32>, %b: tensor<688x256xf32>) -> tensor<1x1x688xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %t = kiln.permute %b [1, 0] : tensor<688x256xf32> -> tensor<256x688xf32>
  %0 = kiln.matmul %a, %t : (tensor<1x1x256xf32>, tensor<256x688xf32>) -> tensor<1x1x688xf32>
  %1 = kiln.exp %0 : tensor<1x1x688xf32>
  return %1 : tensor<1x1x688xf32>
}

// -----

// A row-major B whose columns are not a whole number of units: 688 columns
// are 10 units of 4 vectors and a last unit of 3 (on 512-bit vectors).
// CHECK-LABEL: func.func @decode_tail__p0(
// CHECK-SAME: kiln.units = 11 : i64
// CHECK: %[[WHOLE:.*]] = arith.cmpi ult, %{{.*}}, %c10
// CHECK: scf.if %[[WHOLE]]
// CHECK-COUNT-4: vector.fma
// CHECK: } else {
// CHECK-COUNT-3: vector.fma
// CHECK-NOT: vector.fma
// CHECK: }
func.func private @decode_tail(%a: tensor<1x256xf32>, %b: tensor<256x688xf32>) -> tensor<1x688xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %a, %b : (tensor<1x256xf32>, tensor<256x688xf32>) -> tensor<1x688xf32>
  return %0 : tensor<1x688xf32>
}

// -----

// A q8 B of one row: units of 16 vectors (512 / 256 = 2 units on 512-bit
// vectors), so that each row of B a unit reads is 256 bytes in a row; the
// unit asks for the 4 lines of row k + 8 as it reads row k. Of 256-bit
// vectors a unit takes 8 (512 / 64 = 8 units), one line of a row. A's
// element is scaled once per block of B's row (a * s, 2 vectors of 8
// share a block of 16), never B's vectors.
// CHECK-LABEL: func.func @decode_q8_row__p0(
// CHECK-SAME: kiln.units = 2 : i64
// CHECK-COUNT-4: memref.prefetch %{{.*}}, read, locality<3>, data
// CHECK-COUNT-16: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// AVX2-LABEL: func.func @decode_q8_row__p0(
// AVX2-SAME: kiln.units = 8 : i64
// AVX2-COUNT-8: arith.sitofp %{{.*}} : vector<8xi8> to vector<8xf32>
// AVX2: memref.prefetch %{{.*}}, read, locality<3>, data
// AVX2-NOT: memref.prefetch
// AVX2-NOT: arith.mulf %{{.*}} : vector<8xf32>
// AVX2: %[[A:.*]] = memref.load
// AVX2: %[[S0:.*]] = arith.mulf %[[A]], %{{.*}} : f32
// AVX2-NEXT: %[[V0:.*]] = vector.broadcast %[[S0]]
// AVX2-NEXT: vector.fma %[[V0]]
// AVX2-NEXT: vector.fma %[[V0]]
// AVX2-NEXT: %[[S1:.*]] = arith.mulf %[[A]], %{{.*}} : f32
// AVX2-NEXT: %[[V1:.*]] = vector.broadcast %[[S1]]
// AVX2-NEXT: vector.fma %[[V1]]
// AVX2-NEXT: vector.fma %[[V1]]
// AVX2-NEXT: arith.mulf %[[A]], %{{.*}} : f32
// AVX2-COUNT-2: vector.fma
// AVX2-NEXT: arith.mulf %[[A]], %{{.*}} : f32
// AVX2-COUNT-2: vector.fma
// AVX2-NOT: vector.fma
// AVX2-NOT: arith.mulf %{{.*}} : vector<8xf32>
// AVX2: scf.yield
func.func private @decode_q8_row(%a: tensor<1x256xf32>, %q: tensor<256x512xi8, #kiln.quant<q8, symmetric, block = 16, scale = f32>>) -> tensor<1x512xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %w = kiln.dequantize %q : tensor<256x512xi8, #kiln.quant<q8, symmetric, block = 16, scale = f32>> -> tensor<256x512xf32>
  %0 = kiln.matmul %a, %w : (tensor<1x256xf32>, tensor<256x512xf32>) -> tensor<1x512xf32>
  return %0 : tensor<1x512xf32>
}

// -----

// A batch of matmuls of a few rows (P @ V when one token is decoded, two
// key/value heads of 4 query heads each): a unit per matmul and block of
// columns, its A, B and C offset by its matmul's index.
// CHECK-LABEL: func.func @decode_pv__p0(
// CHECK-SAME: %[[A:[^:]+]]: memref<?xf32>, %[[B:[^:]+]]: memref<?xf32>, %[[C:[^:]+]]: memref<?xf32>)
// CHECK-SAME: kiln.units = 2 : i64
// CHECK-NOT: kiln.workspace
// CHECK: scf.for %[[U:.*]] = %{{.*}} to
// CHECK: %[[BATCH:.*]] = arith.divui %[[U]], %c1
// CHECK: arith.muli %[[BATCH]], %c2048
// CHECK: arith.muli %[[BATCH]], %c16384
// CHECK: arith.muli %[[BATCH]], %c128
// CHECK-COUNT-8: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// Of 256-bit vectors a unit of 4 rows takes 2 (8 accumulators, not 16):
// 2 units per matmul.
// AVX2-LABEL: func.func @decode_pv__p0(
// AVX2-SAME: kiln.units = 4 : i64
// AVX2-COUNT-8: vector.fma
// AVX2-NOT: vector.fma
// AVX2: scf.yield
func.func private @decode_pv(%p: tensor<1x2x4x512xf32>, %v: tensor<1x2x512x32xf32>) -> tensor<1x2x4x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %p, %v : (tensor<1x2x4x512xf32>, tensor<1x2x512x32xf32>) -> tensor<1x2x4x32xf32>
  return %0 : tensor<1x2x4x32xf32>
}

// -----

// Q K^T when one token is decoded: a batch of two matmuls of 4 rows against
// transposed keys, A the sum of two arguments (rope's last add), evaluated
// on their vectors as A is read: 2 x 512 / 16 = 64 units, 4 row loops of
// 16 accumulators each.
// CHECK-LABEL: func.func @decode_qk__p0(
// CHECK-SAME: %[[X:[^:]+]]: memref<?xf32>, %[[Y:[^:]+]]: memref<?xf32>, %[[K:[^:]+]]: memref<?xf32>, %[[C:[^:]+]]: memref<?xf32>)
// CHECK-SAME: kiln.units = 64 : i64
// CHECK-NOT: kiln.workspace
// CHECK: %[[XV:.*]] = vector.load %[[X]]
// CHECK: %[[YV:.*]] = vector.load %[[Y]]
// CHECK: arith.addf %[[XV]], %[[YV]] : vector<16xf32>
// CHECK-COUNT-16: vector.fma
// CHECK-COUNT-3: vector.load %[[X]]
// CHECK-NOT: vector.load %[[X]]
func.func private @decode_qk(%x: tensor<1x2x4x32xf32>, %y: tensor<1x2x4x32xf32>, %k: tensor<1x2x512x32xf32>) -> tensor<1x2x4x512xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %q = kiln.add %x, %y : (tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>) -> tensor<1x2x4x32xf32>
  %t = kiln.permute %k [0, 1, 3, 2] : tensor<1x2x512x32xf32> -> tensor<1x2x32x512xf32>
  %0 = kiln.matmul %q, %t : (tensor<1x2x4x32xf32>, tensor<1x2x32x512xf32>) -> tensor<1x2x4x512xf32>
  return %0 : tensor<1x2x4x512xf32>
}
