// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Indexing ops: data-dependent loads and (atomic or serial) scatters.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED

// CHECK-LABEL: // PTX gather_kernel0_
// CHECK: .visible .entry gather_kernel0_
func.func @gather(%x: tensor<2x5xf32>, %i: tensor<2x3xi64>, %y: tensor<4x5xf16>, %j: tensor<4x2xi32>) -> (tensor<2x3xf32>, tensor<4x2xf16>) {
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %1 = kiln.gather %y[%j] axis = 1 : (tensor<4x5xf16>, tensor<4x2xi32>) -> tensor<4x2xf16>
  return %0, %1 : tensor<2x3xf32>, tensor<4x2xf16>
}

// CHECK-LABEL: // PTX scatter_add_kernel0_
// CHECK: .visible .entry scatter_add_kernel0_
func.func @scatter_add(%u: tensor<3x2xf32>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>, %v: tensor<8xf16>, %y: tensor<8xf16>, %j: tensor<8xi64>) -> (tensor<4x2xf32>, tensor<8xf16>) {
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  %1 = kiln.scatter_add %v into %y[%j] axis = 0 : (tensor<8xf16>, tensor<8xf16>, tensor<8xi64>) -> tensor<8xf16>
  return %0, %1 : tensor<4x2xf32>, tensor<8xf16>
}

// CHECK-LABEL: // PTX index_select_kernel0_
func.func @index_select(%x: tensor<10x4xf32>, %i: tensor<3xi64>, %y: tensor<5x6xi32>, %j: tensor<2xi32>) -> (tensor<3x4xf32>, tensor<5x2xi32>) {
  %0 = kiln.index_select %x[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %1 = kiln.index_select %y[%j] axis = 1 : (tensor<5x6xi32>, tensor<2xi32>) -> tensor<5x2xi32>
  return %0, %1 : tensor<3x4xf32>, tensor<5x2xi32>
}

// CHECK-LABEL: // PTX one_hot_kernel0_
func.func @one_hot(%i: tensor<4xi64>, %j: tensor<7xi32>) -> (tensor<4x10xf32>, tensor<7x3xi1>) {
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<4x10xf32>
  %1 = kiln.one_hot %j : tensor<7xi32> -> tensor<7x3xi1>
  return %0, %1 : tensor<4x10xf32>, tensor<7x3xi1>
}

// CHECK-LABEL: // PTX mask_fill_kernel0_
func.func @mask_fill(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %0 = kiln.mask_fill %x, %m value -1.000000e+09 : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: // PTX embedding_kernel0_
func.func @embedding(%w: tensor<100x16xf32>, %i: tensor<4x8xi64>) -> tensor<4x8x16xf32> {
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// Every indexing op in every dtype, with i64 and i32 indices.

// CHECK-LABEL: // PTX indexing_f64_kernel0_
func.func @indexing_f64(%xi64: tensor<4x6xf64>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xf64>, %xi32: tensor<4x6xf64>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xf64>, %m: tensor<4x6xi1>) -> (tensor<4x3xf64>, tensor<3x6xf64>, tensor<4x3x6xf64>, tensor<3x5xf64>, tensor<4x6xf64>, tensor<4x3xf64>, tensor<3x6xf64>, tensor<4x3x6xf64>, tensor<3x5xf64>, tensor<4x6xf64>, tensor<4x6xf64>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xf64>, tensor<4x3xi64>) -> tensor<4x3xf64>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xf64>, tensor<3xi64>) -> tensor<3x6xf64>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xf64>, tensor<4x3xi64>) -> tensor<4x3x6xf64>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xf64>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xf64>, tensor<4x6xf64>, tensor<4x3xi64>) -> tensor<4x6xf64>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xf64>, tensor<4x3xi32>) -> tensor<4x3xf64>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xf64>, tensor<3xi32>) -> tensor<3x6xf64>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xf64>, tensor<4x3xi32>) -> tensor<4x3x6xf64>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xf64>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xf64>, tensor<4x6xf64>, tensor<4x3xi32>) -> tensor<4x6xf64>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xf64>, tensor<4x6xi1>) -> tensor<4x6xf64>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xf64>, tensor<3x6xf64>, tensor<4x3x6xf64>, tensor<3x5xf64>, tensor<4x6xf64>, tensor<4x3xf64>, tensor<3x6xf64>, tensor<4x3x6xf64>, tensor<3x5xf64>, tensor<4x6xf64>, tensor<4x6xf64>
}

// CHECK-LABEL: // PTX indexing_f32_kernel0_
func.func @indexing_f32(%xi64: tensor<4x6xf32>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xf32>, %xi32: tensor<4x6xf32>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xf32>, %m: tensor<4x6xi1>) -> (tensor<4x3xf32>, tensor<3x6xf32>, tensor<4x3x6xf32>, tensor<3x5xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<3x6xf32>, tensor<4x3x6xf32>, tensor<3x5xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<3x6xf32>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xf32>, tensor<4x3xi64>) -> tensor<4x3x6xf32>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xf32>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xf32>, tensor<4x6xf32>, tensor<4x3xi64>) -> tensor<4x6xf32>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xf32>, tensor<3xi32>) -> tensor<3x6xf32>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xf32>, tensor<4x3xi32>) -> tensor<4x3x6xf32>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xf32>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xf32>, tensor<4x6xf32>, tensor<4x3xi32>) -> tensor<4x6xf32>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xf32>, tensor<4x6xi1>) -> tensor<4x6xf32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xf32>, tensor<3x6xf32>, tensor<4x3x6xf32>, tensor<3x5xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<3x6xf32>, tensor<4x3x6xf32>, tensor<3x5xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: // PTX indexing_f16_kernel0_
func.func @indexing_f16(%xi64: tensor<4x6xf16>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xf16>, %xi32: tensor<4x6xf16>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xf16>, %m: tensor<4x6xi1>) -> (tensor<4x3xf16>, tensor<3x6xf16>, tensor<4x3x6xf16>, tensor<3x5xf16>, tensor<4x6xf16>, tensor<4x3xf16>, tensor<3x6xf16>, tensor<4x3x6xf16>, tensor<3x5xf16>, tensor<4x6xf16>, tensor<4x6xf16>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xf16>, tensor<4x3xi64>) -> tensor<4x3xf16>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xf16>, tensor<3xi64>) -> tensor<3x6xf16>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xf16>, tensor<4x3xi64>) -> tensor<4x3x6xf16>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xf16>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xf16>, tensor<4x6xf16>, tensor<4x3xi64>) -> tensor<4x6xf16>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xf16>, tensor<4x3xi32>) -> tensor<4x3xf16>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xf16>, tensor<3xi32>) -> tensor<3x6xf16>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xf16>, tensor<4x3xi32>) -> tensor<4x3x6xf16>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xf16>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xf16>, tensor<4x6xf16>, tensor<4x3xi32>) -> tensor<4x6xf16>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xf16>, tensor<4x6xi1>) -> tensor<4x6xf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xf16>, tensor<3x6xf16>, tensor<4x3x6xf16>, tensor<3x5xf16>, tensor<4x6xf16>, tensor<4x3xf16>, tensor<3x6xf16>, tensor<4x3x6xf16>, tensor<3x5xf16>, tensor<4x6xf16>, tensor<4x6xf16>
}

// CHECK-LABEL: // PTX indexing_bf16_kernel0_
func.func @indexing_bf16(%xi64: tensor<4x6xbf16>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xbf16>, %xi32: tensor<4x6xbf16>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xbf16>, %m: tensor<4x6xi1>) -> (tensor<4x3xbf16>, tensor<3x6xbf16>, tensor<4x3x6xbf16>, tensor<3x5xbf16>, tensor<4x6xbf16>, tensor<4x3xbf16>, tensor<3x6xbf16>, tensor<4x3x6xbf16>, tensor<3x5xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xbf16>, tensor<4x3xi64>) -> tensor<4x3xbf16>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xbf16>, tensor<3xi64>) -> tensor<3x6xbf16>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xbf16>, tensor<4x3xi64>) -> tensor<4x3x6xbf16>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xbf16>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xbf16>, tensor<4x6xbf16>, tensor<4x3xi64>) -> tensor<4x6xbf16>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xbf16>, tensor<4x3xi32>) -> tensor<4x3xbf16>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xbf16>, tensor<3xi32>) -> tensor<3x6xbf16>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xbf16>, tensor<4x3xi32>) -> tensor<4x3x6xbf16>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xbf16>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xbf16>, tensor<4x6xbf16>, tensor<4x3xi32>) -> tensor<4x6xbf16>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xbf16>, tensor<4x6xi1>) -> tensor<4x6xbf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xbf16>, tensor<3x6xbf16>, tensor<4x3x6xbf16>, tensor<3x5xbf16>, tensor<4x6xbf16>, tensor<4x3xbf16>, tensor<3x6xbf16>, tensor<4x3x6xbf16>, tensor<3x5xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>
}

// CHECK-LABEL: // PTX indexing_i64_kernel0_
func.func @indexing_i64(%xi64: tensor<4x6xi64>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xi64>, %xi32: tensor<4x6xi64>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xi64>, %m: tensor<4x6xi1>) -> (tensor<4x3xi64>, tensor<3x6xi64>, tensor<4x3x6xi64>, tensor<3x5xi64>, tensor<4x6xi64>, tensor<4x3xi64>, tensor<3x6xi64>, tensor<4x3x6xi64>, tensor<3x5xi64>, tensor<4x6xi64>, tensor<4x6xi64>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xi64>, tensor<4x3xi64>) -> tensor<4x3xi64>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xi64>, tensor<3xi64>) -> tensor<3x6xi64>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xi64>, tensor<4x3xi64>) -> tensor<4x3x6xi64>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xi64>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xi64>, tensor<4x6xi64>, tensor<4x3xi64>) -> tensor<4x6xi64>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xi64>, tensor<4x3xi32>) -> tensor<4x3xi64>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xi64>, tensor<3xi32>) -> tensor<3x6xi64>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xi64>, tensor<4x3xi32>) -> tensor<4x3x6xi64>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xi64>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xi64>, tensor<4x6xi64>, tensor<4x3xi32>) -> tensor<4x6xi64>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xi64>, tensor<4x6xi1>) -> tensor<4x6xi64>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xi64>, tensor<3x6xi64>, tensor<4x3x6xi64>, tensor<3x5xi64>, tensor<4x6xi64>, tensor<4x3xi64>, tensor<3x6xi64>, tensor<4x3x6xi64>, tensor<3x5xi64>, tensor<4x6xi64>, tensor<4x6xi64>
}

// CHECK-LABEL: // PTX indexing_i32_kernel0_
func.func @indexing_i32(%xi64: tensor<4x6xi32>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xi32>, %xi32: tensor<4x6xi32>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xi32>, %m: tensor<4x6xi1>) -> (tensor<4x3xi32>, tensor<3x6xi32>, tensor<4x3x6xi32>, tensor<3x5xi32>, tensor<4x6xi32>, tensor<4x3xi32>, tensor<3x6xi32>, tensor<4x3x6xi32>, tensor<3x5xi32>, tensor<4x6xi32>, tensor<4x6xi32>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xi32>, tensor<4x3xi64>) -> tensor<4x3xi32>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xi32>, tensor<3xi64>) -> tensor<3x6xi32>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xi32>, tensor<4x3xi64>) -> tensor<4x3x6xi32>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xi32>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xi32>, tensor<4x6xi32>, tensor<4x3xi64>) -> tensor<4x6xi32>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xi32>, tensor<4x3xi32>) -> tensor<4x3xi32>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xi32>, tensor<3xi32>) -> tensor<3x6xi32>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xi32>, tensor<4x3xi32>) -> tensor<4x3x6xi32>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xi32>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xi32>, tensor<4x6xi32>, tensor<4x3xi32>) -> tensor<4x6xi32>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xi32>, tensor<4x6xi1>) -> tensor<4x6xi32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xi32>, tensor<3x6xi32>, tensor<4x3x6xi32>, tensor<3x5xi32>, tensor<4x6xi32>, tensor<4x3xi32>, tensor<3x6xi32>, tensor<4x3x6xi32>, tensor<3x5xi32>, tensor<4x6xi32>, tensor<4x6xi32>
}

// CHECK-LABEL: // PTX indexing_i16_kernel0_
func.func @indexing_i16(%xi64: tensor<4x6xi16>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xi16>, %xi32: tensor<4x6xi16>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xi16>, %m: tensor<4x6xi1>) -> (tensor<4x3xi16>, tensor<3x6xi16>, tensor<4x3x6xi16>, tensor<3x5xi16>, tensor<4x6xi16>, tensor<4x3xi16>, tensor<3x6xi16>, tensor<4x3x6xi16>, tensor<3x5xi16>, tensor<4x6xi16>, tensor<4x6xi16>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xi16>, tensor<4x3xi64>) -> tensor<4x3xi16>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xi16>, tensor<3xi64>) -> tensor<3x6xi16>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xi16>, tensor<4x3xi64>) -> tensor<4x3x6xi16>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xi16>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xi16>, tensor<4x6xi16>, tensor<4x3xi64>) -> tensor<4x6xi16>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xi16>, tensor<4x3xi32>) -> tensor<4x3xi16>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xi16>, tensor<3xi32>) -> tensor<3x6xi16>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xi16>, tensor<4x3xi32>) -> tensor<4x3x6xi16>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xi16>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xi16>, tensor<4x6xi16>, tensor<4x3xi32>) -> tensor<4x6xi16>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xi16>, tensor<4x6xi1>) -> tensor<4x6xi16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xi16>, tensor<3x6xi16>, tensor<4x3x6xi16>, tensor<3x5xi16>, tensor<4x6xi16>, tensor<4x3xi16>, tensor<3x6xi16>, tensor<4x3x6xi16>, tensor<3x5xi16>, tensor<4x6xi16>, tensor<4x6xi16>
}

// CHECK-LABEL: // PTX indexing_i8_kernel0_
func.func @indexing_i8(%xi64: tensor<4x6xi8>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xi8>, %xi32: tensor<4x6xi8>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xi8>, %m: tensor<4x6xi1>) -> (tensor<4x3xi8>, tensor<3x6xi8>, tensor<4x3x6xi8>, tensor<3x5xi8>, tensor<4x6xi8>, tensor<4x3xi8>, tensor<3x6xi8>, tensor<4x3x6xi8>, tensor<3x5xi8>, tensor<4x6xi8>, tensor<4x6xi8>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xi8>, tensor<4x3xi64>) -> tensor<4x3xi8>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xi8>, tensor<3xi64>) -> tensor<3x6xi8>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xi8>, tensor<4x3xi64>) -> tensor<4x3x6xi8>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xi8>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xi8>, tensor<4x6xi8>, tensor<4x3xi64>) -> tensor<4x6xi8>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xi8>, tensor<4x3xi32>) -> tensor<4x3xi8>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xi8>, tensor<3xi32>) -> tensor<3x6xi8>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xi8>, tensor<4x3xi32>) -> tensor<4x3x6xi8>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xi8>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xi8>, tensor<4x6xi8>, tensor<4x3xi32>) -> tensor<4x6xi8>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xi8>, tensor<4x6xi1>) -> tensor<4x6xi8>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xi8>, tensor<3x6xi8>, tensor<4x3x6xi8>, tensor<3x5xi8>, tensor<4x6xi8>, tensor<4x3xi8>, tensor<3x6xi8>, tensor<4x3x6xi8>, tensor<3x5xi8>, tensor<4x6xi8>, tensor<4x6xi8>
}

// CHECK-LABEL: // PTX indexing_ui8_kernel0_
func.func @indexing_ui8(%xi64: tensor<4x6xui8>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %ui64: tensor<4x3xui8>, %xi32: tensor<4x6xui8>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %ui32: tensor<4x3xui8>, %m: tensor<4x6xi1>) -> (tensor<4x3xui8>, tensor<3x6xui8>, tensor<4x3x6xui8>, tensor<3x5xui8>, tensor<4x6xui8>, tensor<4x3xui8>, tensor<3x6xui8>, tensor<4x3x6xui8>, tensor<3x5xui8>, tensor<4x6xui8>, tensor<4x6xui8>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xui8>, tensor<4x3xi64>) -> tensor<4x3xui8>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xui8>, tensor<3xi64>) -> tensor<3x6xui8>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xui8>, tensor<4x3xi64>) -> tensor<4x3x6xui8>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xui8>
  %v4 = kiln.scatter_add %ui64 into %xi64[%ii64] axis = 1 : (tensor<4x3xui8>, tensor<4x6xui8>, tensor<4x3xi64>) -> tensor<4x6xui8>
  %v5 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xui8>, tensor<4x3xi32>) -> tensor<4x3xui8>
  %v6 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xui8>, tensor<3xi32>) -> tensor<3x6xui8>
  %v7 = kiln.embedding %xi32[%ii32] : (tensor<4x6xui8>, tensor<4x3xi32>) -> tensor<4x3x6xui8>
  %v8 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xui8>
  %v9 = kiln.scatter_add %ui32 into %xi32[%ii32] axis = 1 : (tensor<4x3xui8>, tensor<4x6xui8>, tensor<4x3xi32>) -> tensor<4x6xui8>
  %v10 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xui8>, tensor<4x6xi1>) -> tensor<4x6xui8>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10 : tensor<4x3xui8>, tensor<3x6xui8>, tensor<4x3x6xui8>, tensor<3x5xui8>, tensor<4x6xui8>, tensor<4x3xui8>, tensor<3x6xui8>, tensor<4x3x6xui8>, tensor<3x5xui8>, tensor<4x6xui8>, tensor<4x6xui8>
}

// CHECK-LABEL: // PTX indexing_i1_kernel0_
func.func @indexing_i1(%xi64: tensor<4x6xi1>, %ii64: tensor<4x3xi64>, %ji64: tensor<3xi64>, %xi32: tensor<4x6xi1>, %ii32: tensor<4x3xi32>, %ji32: tensor<3xi32>, %m: tensor<4x6xi1>) -> (tensor<4x3xi1>, tensor<3x6xi1>, tensor<4x3x6xi1>, tensor<3x5xi1>, tensor<4x3xi1>, tensor<3x6xi1>, tensor<4x3x6xi1>, tensor<3x5xi1>, tensor<4x6xi1>) {
  %v0 = kiln.gather %xi64[%ii64] axis = 1 : (tensor<4x6xi1>, tensor<4x3xi64>) -> tensor<4x3xi1>
  %v1 = kiln.index_select %xi64[%ji64] axis = 0 : (tensor<4x6xi1>, tensor<3xi64>) -> tensor<3x6xi1>
  %v2 = kiln.embedding %xi64[%ii64] : (tensor<4x6xi1>, tensor<4x3xi64>) -> tensor<4x3x6xi1>
  %v3 = kiln.one_hot %ji64 : tensor<3xi64> -> tensor<3x5xi1>
  %v4 = kiln.gather %xi32[%ii32] axis = 1 : (tensor<4x6xi1>, tensor<4x3xi32>) -> tensor<4x3xi1>
  %v5 = kiln.index_select %xi32[%ji32] axis = 0 : (tensor<4x6xi1>, tensor<3xi32>) -> tensor<3x6xi1>
  %v6 = kiln.embedding %xi32[%ii32] : (tensor<4x6xi1>, tensor<4x3xi32>) -> tensor<4x3x6xi1>
  %v7 = kiln.one_hot %ji32 : tensor<3xi32> -> tensor<3x5xi1>
  %v8 = kiln.mask_fill %xi64, %m value 1.000000e+00 : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8 : tensor<4x3xi1>, tensor<3x6xi1>, tensor<4x3x6xi1>, tensor<3x5xi1>, tensor<4x3xi1>, tensor<3x6xi1>, tensor<4x3x6xi1>, tensor<3x5xi1>, tensor<4x6xi1>
}

