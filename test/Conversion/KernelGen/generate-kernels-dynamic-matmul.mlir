// The tiled matmul takes a dynamic M (and the K of a weight's gradient).
// So do rows [S, T] of a B without batch dims, and a batched product whose
// batch leads with S (below). A dynamic N, as here, it does not: by default the kernel still runs, as
// linalg loops; with generic-dynamic-matmuls=0 (what the Cpu backend asks,
// which then compiles the graph for its static sizes) it is an error that
// says why.
// RUN: tensor-opt %s --kiln-generate-kernels="vector-bits=512" | FileCheck %s
// RUN: not tensor-opt %s --kiln-generate-kernels="vector-bits=512 generic-dynamic-matmuls=0" 2>&1 | FileCheck %s --check-prefix=STRICT

// CHECK-LABEL: func.func @dyn_n__p0(
// CHECK-NOT: vector.fma
// CHECK: return
// STRICT: error: kiln-generate-kernels: the matmul kernel @dyn_n has dynamic dims that the tiled generator does not take (it takes a dynamic M, rows [S, T] of a B without batch dims, a leading batch dim S, or the K of a weight's gradient); compile it for static sizes
func.func private @dyn_n(%x: tensor<8x16xf32>, %w: tensor<16x?xf32>) -> tensor<8x?xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %x, %w : (tensor<8x16xf32>, tensor<16x?xf32>) -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// A dynamic M is tiled either way.
// CHECK-LABEL: func.func @dyn_m__p1(
// CHECK: vector.fma
func.func private @dyn_m(%x: tensor<?x16xf32>, %w: tensor<16x64xf32>) -> tensor<?x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %x, %w : (tensor<?x16xf32>, tensor<16x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// Rows [S, T] times a B without batch dims (a layer over a batch of
// sequences) are generated as S * T rows: the phases take the call's size
// times T (kiln.size_scale), and the epilogue's bias broadcasts as before.
// CHECK-LABEL: func.func @rows__p0(
// CHECK-SAME: kiln.size_scale = 12 : i64
// CHECK-SAME: kiln.units_per = array<i64: 1,
// CHECK-LABEL: func.func @rows__p1(
// CHECK-SAME: kiln.size_scale = 12 : i64
// CHECK: vector.fma
// CHECK-NOT: func.func @rows__rows
func.func private @rows(%x: tensor<?x12x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<?x12x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %x, %w : (tensor<?x12x16xf32>, tensor<16x64xf32>) -> tensor<?x12x64xf32>
  %1 = kiln.add %0, %b : (tensor<?x12x64xf32>, tensor<64xf32>) -> tensor<?x12x64xf32>
  return %1 : tensor<?x12x64xf32>
}

// A batched product whose leading batch dim is S (attention's over
// [S, H, T, d]) counts its batches at run time: S times the static ones
// (2 heads here) in each phase's units, and S packed As of workspace.
// CHECK-LABEL: func.func @heads__p0(
// CHECK-SAME: kiln.units_per = array<i64: 2, 1>
// CHECK-SAME: kiln.workspace_per = array<i64: {{[0-9]+}}, 1,
// CHECK-LABEL: func.func @heads__p1(
// CHECK-SAME: kiln.units_per = array<i64: 2, 1>
// CHECK: vector.fma
func.func private @heads(%q: tensor<?x2x16x8xf32>, %k: tensor<?x2x16x8xf32>) -> tensor<?x2x16x16xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.permute %k [0, 1, 3, 2] : tensor<?x2x16x8xf32> -> tensor<?x2x8x16xf32>
  %1 = kiln.matmul %q, %0 : (tensor<?x2x16x8xf32>, tensor<?x2x8x16xf32>) -> tensor<?x2x16x16xf32>
  return %1 : tensor<?x2x16x16xf32>
}

// A value laid out against part of the rows (a [T, N] table added to
// [S, T, N]) keeps them from merging: linalg loops, as for @dyn_n.
// CHECK-LABEL: func.func @rows_table__p0(
// CHECK-NOT: vector.fma
// CHECK: return
func.func private @rows_table(%x: tensor<?x12x16xf32>, %w: tensor<16x64xf32>, %t: tensor<12x64xf32>) -> tensor<?x12x64xf32>
    attributes {kiln.kernel = #kiln.kernel_kind<matmul>} {
  %0 = kiln.matmul %x, %w : (tensor<?x12x16xf32>, tensor<16x64xf32>) -> tensor<?x12x64xf32>
  %1 = kiln.add %0, %t : (tensor<?x12x64xf32>, tensor<12x64xf32>) -> tensor<?x12x64xf32>
  return %1 : tensor<?x12x64xf32>
}
