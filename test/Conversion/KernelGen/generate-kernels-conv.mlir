// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=256" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512" -split-input-file | FileCheck %s --check-prefix=AVX512

// A matmul whose right operand is the columns of a convolution's windows
// packs them from the input: with windows that step by 1 along a row,
// each output row a panel spans is one masked load of the input (rows of
// 8: up to 3 of them in 16 lanes, up to 5 in 32 lanes), and no column is
// ever stored. (The 64 columns are 4 panels of 16 lanes or 2 of 32, and
// the weight is read in place: the kernel has one phase, which only packs
// B. So have the products below; @mid shows where that ends.) The output
// rows (8) are narrower than the input's (10): the windows are packed, not
// read in place (@same, below).
// CHECK-LABEL: func.func @conv__p0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// CHECK: memref.alloc
// CHECK-COUNT-3: vector.maskedload %[[X]]
// CHECK-NOT: vector.maskedload %[[X]]
// CHECK-NOT: vector.gather
// CHECK: return
// AVX512-LABEL: func.func @conv__p0(
// AVX512-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// AVX512-COUNT-5: vector.maskedload %[[X]]
// AVX512-NOT: vector.maskedload %[[X]]
// AVX512-NOT: vector.gather
// AVX512: return
func.func @conv(%x: tensor<2x3x10x10xf32>, %w: tensor<4x27xf32>) -> tensor<2x4x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<2x3x10x10xf32> -> tensor<2x27x64xf32>
  %1 = kiln.matmul %w, %0 : (tensor<4x27xf32>, tensor<2x27x64xf32>) -> tensor<2x4x64xf32>
  return %1 : tensor<2x4x64xf32>
}

// -----

// Windows that step by 1 over output rows as wide as the input's (8): row
// (c, i, j) of the columns is plane c shifted by (i - 1) * 8 + j - 1, so
// nothing is packed for B (the only buffer is none) and the micro-kernel
// loads its lanes from the input: a loop over the 3 channels, each with
// its 9 taps unrolled, each tap two half-width loads at plane + offset and
// plane + offset + half: -9 and -1 for the first tap (8 lanes a half), -9
// and 7 on 32 lanes (16 a half). A full panel whose rows have all their
// taps' input rows inside the plane takes the first loop: its lanes are
// masked by column only, and the taps of the middle column (-8, 0, 8) are
// plain loads. Every other panel takes the second loop, where each tap's
// two loads are masked (the lanes whose window leaves the plane are off).
// CHECK-LABEL: func.func @same__p1(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.if %{{.*}} -> (vector<16xf32>,
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c1{{[_0-9]*}} iter_args
// CHECK: %[[M9:.*]] = arith.constant -9 : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[PLANE:.*]], %[[M9]] : index
// CHECK-NEXT: vector.maskedload %[[X]][%[[AT]]], %{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NEXT: %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT: %[[AT2:.*]] = arith.addi %[[PLANE]], %[[M1]] : index
// CHECK-NEXT: vector.maskedload %[[X]][%[[AT2]]], %{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32>
// CHECK: %[[M8:.*]] = arith.constant -8 : index
// CHECK-NEXT: %[[AT3:.*]] = arith.addi %[[PLANE]], %[[M8]] : index
// CHECK-NEXT: vector.load %[[X]][%[[AT3]]] : memref<?xf32>, vector<8xf32>
// CHECK-COUNT-10: vector.maskedload %[[X]]{{.*}} vector<8xf32>
// CHECK-NOT: vector.maskedload %[[X]]
// CHECK: } else {
// CHECK: scf.for %{{.*}} iter_args
// CHECK-COUNT-18: vector.maskedload %[[X]]{{.*}} vector<8xf32>
// CHECK-NOT: vector.maskedload %[[X]]
// CHECK-NOT: vector.load %[[X]]
// CHECK-NOT: vector.gather
// CHECK: return
// AVX512-LABEL: func.func @same__p0(
// AVX512-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// AVX512-NOT: memref.alloc
// AVX512: scf.if %{{.*}} -> (vector<32xf32>,
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{[_0-9]*}} iter_args
// AVX512: %[[M9:.*]] = arith.constant -9 : index
// AVX512-NEXT: %[[AT:.*]] = arith.addi %[[PLANE:.*]], %[[M9]] : index
// AVX512-NEXT: vector.maskedload %[[X]][%[[AT]]]{{.*}} vector<16xf32>
// AVX512-NEXT: %[[P7:.*]] = arith.constant 7 : index
// AVX512-NEXT: %[[AT2:.*]] = arith.addi %[[PLANE]], %[[P7]] : index
// AVX512-NEXT: vector.maskedload %[[X]][%[[AT2]]]{{.*}} vector<16xf32>
// AVX512-COUNT-10: vector.maskedload %[[X]]{{.*}} vector<16xf32>
// AVX512-NOT: vector.maskedload %[[X]]
// AVX512: } else {
// AVX512-COUNT-18: vector.maskedload %[[X]]{{.*}} vector<16xf32>
// AVX512-NOT: vector.maskedload %[[X]]
// AVX512: return
func.func @same(%x: tensor<2x3x8x8xf32>, %w: tensor<4x27xf32>) -> tensor<2x4x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
  %1 = kiln.matmul %w, %0 : (tensor<4x27xf32>, tensor<2x27x64xf32>) -> tensor<2x4x64xf32>
  return %1 : tensor<2x4x64xf32>
}

// -----

// 72 output channels, up to 256: on 512-bit vectors too the windows are
// read in place (nothing is packed for B), each tap two half-width loads
// of the input (masked by column only in the loop of the inner panels).
// AVX512-LABEL: func.func @same_mid__p0(
// AVX512-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// AVX512-NOT: memref.alloc
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{[_0-9]*}} iter_args
// AVX512-COUNT-12: vector.maskedload %[[X]]{{.*}} vector<16xf32>
// AVX512-NOT: vector.maskedload %[[X]]
// AVX512: } else {
// AVX512-COUNT-18: vector.maskedload %[[X]]{{.*}} vector<16xf32>
// AVX512-NOT: vector.maskedload %[[X]]
// AVX512: return
func.func @same_mid(%x: tensor<2x3x8x8xf32>, %w: tensor<72x27xf32>) -> tensor<2x72x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
  %1 = kiln.matmul %w, %0 : (tensor<72x27xf32>, tensor<2x27x64xf32>) -> tensor<2x72x64xf32>
  return %1 : tensor<2x72x64xf32>
}

// -----

// More than 256 output channels: on 512-bit vectors, whose tap loads
// nearly all straddle two cache lines, the windows are packed (a packed
// panel serves the 33 row panels), each row of a panel one masked load of
// the shifted plane whatever output rows its 32 lanes span; on 256-bit
// vectors they are still read in place.
// CHECK-LABEL: func.func @same_wide__p1(
// CHECK-NOT: memref.alloc
// CHECK-COUNT-18: vector.maskedload %{{.*}} vector<8xf32>
// CHECK: return
// AVX512-LABEL: func.func @same_wide__p0(
// AVX512: memref.alloc
// AVX512: vector.maskedload %arg2{{.*}} vector<32xf32>
// AVX512-NEXT: vector.store %{{.*}}, %alloc
// AVX512-NOT: vector.maskedload %arg2
// AVX512: return
func.func @same_wide(%x: tensor<2x3x8x8xf32>, %w: tensor<264x27xf32>) -> tensor<2x264x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
  %1 = kiln.matmul %w, %0 : (tensor<264x27xf32>, tensor<2x27x64xf32>) -> tensor<2x264x64xf32>
  return %1 : tensor<2x264x64xf32>
}

// -----

// A convolution's weight is read in place against at most 32 panels of
// packed columns: 1024 columns are 32 panels of 32 lanes (one phase), but
// 64 of 16 lanes, past which phase 0 packs the weight (two phases).
// CHECK-LABEL: func.func @mid__p0(
// CHECK: func.func @mid__p1(
// AVX512-LABEL: func.func @mid__p0(
// AVX512: return
// AVX512-NOT: func.func @mid__p1(
func.func @mid(%x: tensor<1x3x34x34xf32>, %w: tensor<16x27xf32>) -> tensor<1x16x1024xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<1x3x34x34xf32> -> tensor<1x27x1024xf32>
  %1 = kiln.matmul %w, %0 : (tensor<16x27xf32>, tensor<1x27x1024xf32>) -> tensor<1x16x1024xf32>
  return %1 : tensor<1x16x1024xf32>
}

// -----

// Windows that step by 2 along a row: each lane is gathered.
// CHECK-LABEL: func.func @strided__p0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// CHECK-NOT: vector.maskedload %[[X]]
// CHECK: vector.gather %[[X]]
// CHECK: return
func.func @strided(%x: tensor<2x3x8x8xf32>, %w: tensor<4x27xf32>) -> tensor<2x4x16xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x16xf32>
  %1 = kiln.matmul %w, %0 : (tensor<4x27xf32>, tensor<2x27x16xf32>) -> tensor<2x4x16xf32>
  return %1 : tensor<2x4x16xf32>
}

// -----

// The transposed columns (a weight's gradient): a row of a panel runs
// across rows (c, i, j) of the columns at one pixel. A whole panel (16
// columns) is packed as two 8 x 8 blocks per 8 pixels, each row of a
// block (a row of the columns at 8 pixels) one masked load of a shifted
// plane (the output rows are as wide as the input's); the lanes of the
// partial panel (columns 16 to 26) are gathered from the input. A row's
// mask tests each of its input row and column with one unsigned compare
// (a lane before the plane wraps around above its bound).
// CHECK-LABEL: func.func @transposed__p0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// CHECK-NOT: arith.cmpi sge
// CHECK: %[[IH:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-NEXT: arith.constant dense<8> : vector<8xi32>
// CHECK-NEXT: %[[IW:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-NEXT: arith.andi %[[IH]], %[[IW]] : vector<8xi1>
// CHECK-NOT: arith.cmpi sge
// CHECK-COUNT-16: vector.maskedload %[[X]]{{.*}} vector<8xf32>
// CHECK-NOT: vector.maskedload %[[X]]
// CHECK: vector.gather %[[X]]
// CHECK: return
func.func @transposed(%x: tensor<2x3x8x8xf32>, %g: tensor<2x4x64xf32>) -> tensor<2x4x27xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
  %1 = kiln.permute %0 [0, 2, 1] : tensor<2x27x64xf32> -> tensor<2x64x27xf32>
  %2 = kiln.matmul %g, %1 : (tensor<2x4x64xf32>, tensor<2x64x27xf32>) -> tensor<2x4x27xf32>
  return %2 : tensor<2x4x27xf32>
}

// -----

// The columns of several images as one matrix (images_in_columns): column
// c is pixel c % 16 of image c / 16, so each lane's plane is (c / 16) * C
// planes further on. Panels run across images: the lanes are gathered.
// CHECK-LABEL: func.func @images__p0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// CHECK: %[[P:.*]] = arith.constant dense<16> : vector<16xi32>
// CHECK: %[[N:.*]] = arith.divui %{{.*}}, %[[P]] : vector<16xi32>
// CHECK: %[[C:.*]] = arith.constant dense<3> : vector<16xi32>
// CHECK: %[[PLANE:.*]] = arith.muli %[[N]], %[[C]] : vector<16xi32>
// CHECK: %[[HW:.*]] = arith.constant dense<64> : vector<16xi32>
// CHECK: arith.muli %[[PLANE]], %[[HW]] : vector<16xi32>
// CHECK: vector.gather %[[X]]
// CHECK-NOT: vector.maskedload %[[X]]
// CHECK: return
func.func @images(%x: tensor<2x3x8x8xf32>, %w: tensor<4x27xf32>) -> tensor<4x32xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x32xf32>
  %1 = kiln.matmul %w, %0 : (tensor<4x27xf32>, tensor<27x32xf32>) -> tensor<4x32xf32>
  return %1 : tensor<4x32xf32>
}

// -----

// Their transpose (a weight's gradient over all images): a row of a panel
// is one pixel p, of image p / 16, whose input starts 192 elements
// (3 x 8 x 8) per image further on.
// CHECK-LABEL: func.func @images_transposed__p0(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %[[X:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>
// CHECK: %[[N:.*]] = arith.divui %{{.*}}, %c16{{.*}} : index
// CHECK-NEXT: %[[IMG:.*]] = arith.constant 192 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[N]], %[[IMG]] : index
// CHECK: %[[BASE:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: vector.gather %[[X]][%[[BASE]]]
// CHECK: return
func.func @images_transposed(%x: tensor<2x3x8x8xf32>, %g: tensor<4x32xf32>) -> tensor<4x27xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.unfold %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x3x8x8xf32> -> tensor<27x32xf32>
  %1 = kiln.permute %0 [1, 0] : tensor<27x32xf32> -> tensor<32x27xf32>
  %2 = kiln.matmul %g, %1 : (tensor<4x32xf32>, tensor<32x27xf32>) -> tensor<4x27xf32>
  return %2 : tensor<4x27xf32>
}
