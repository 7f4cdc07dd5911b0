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
