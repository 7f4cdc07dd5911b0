// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Reads are generics that tensor.extract at an index clamped into range;
// scatter_add is an scf.for read-modify-write that skips bad indices.

// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[D0:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[D1:.+]] = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:.*]]: tensor<2x5xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[Y:.*]]: tensor<?x5xf32>, %[[J:.*]]: tensor<?x2xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], {{.*}} ins(%[[I]] : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[K:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[K]], %{{.*}} : index
// CHECK: %[[C:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: tensor.extract %[[X]][%[[R]], %[[C]]] : tensor<2x5xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[J]], %{{.*}} : tensor<?x2xi32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x2xf32>
// CHECK: tensor.extract %[[Y]]
// CHECK-NOT: kiln.
func.func @gather(%x: tensor<2x5xf32>, %i: tensor<2x3xi64>, %y: tensor<?x5xf32>, %j: tensor<?x2xi32>) -> (tensor<2x3xf32>, tensor<?x2xf32>) {
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %1 = kiln.gather %y[%j] axis = 1 : (tensor<?x5xf32>, tensor<?x2xi32>) -> tensor<?x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<?x2xf32>
}

// f16 accumulates in f32 and rounds once, as Flex does.
// CHECK-LABEL: func.func @scatter_add(
// CHECK-SAME: %[[U:.*]]: tensor<3x2xf32>, %[[X:.*]]: tensor<4x2xf32>, %[[I:.*]]: tensor<3x2xi64>
// CHECK: scf.for %[[A:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T0:.*]] = %[[X]]) -> (tensor<4x2xf32>)
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %[[T0]]) -> (tensor<4x2xf32>)
// CHECK: %[[UV:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]]
// CHECK: %[[IV:.*]] = tensor.extract %[[I]][%[[A]], %[[B]]]
// CHECK: %[[K:.*]] = arith.index_cast %[[IV]] : i64 to index
// CHECK: %[[CUR:.*]] = tensor.extract %[[T]][%[[AT:.*]], %[[B]]]
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[SUM:.*]] = arith.addf %[[CUR]], %[[UV]] : f32
// CHECK: %[[NEW:.*]] = arith.select %[[OK]], %[[SUM]], %[[CUR]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[T]][%[[AT]], %[[B]]]
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: scf.for
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: kiln.
func.func @scatter_add(%u: tensor<3x2xf32>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>, %v: tensor<?xf16>, %y: tensor<?xf16>, %j: tensor<?xi64>) -> (tensor<4x2xf32>, tensor<?xf16>) {
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  %1 = kiln.scatter_add %v into %y[%j] axis = 0 : (tensor<?xf16>, tensor<?xf16>, tensor<?xi64>) -> tensor<?xf16>
  return %0, %1 : tensor<4x2xf32>, tensor<?xf16>
}

// CHECK-LABEL: func.func @index_select(
// CHECK-SAME: %[[X:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<3xi64>, %[[Y:.*]]: tensor<?x?xi32>, %[[J:.*]]: tensor<?xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[D0]], #[[ID2]]], {{.*}} ins(%[[I]] : tensor<3xi64>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[R:.*]] = arith.minsi
// CHECK: tensor.extract %[[X]][%[[R]], %[[C]]] : tensor<10x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[D1]], #[[ID2]]], {{.*}} ins(%[[J]] : tensor<?xi32>) outs(%{{.*}} : tensor<?x?xi32>)
// CHECK-NOT: kiln.
func.func @index_select(%x: tensor<10x4xf32>, %i: tensor<3xi64>, %y: tensor<?x?xi32>, %j: tensor<?xi32>) -> (tensor<3x4xf32>, tensor<?x?xi32>) {
  %0 = kiln.index_select %x[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %1 = kiln.index_select %y[%j] axis = 1 : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  return %0, %1 : tensor<3x4xf32>, tensor<?x?xi32>
}

// An index out of range never equals a class: a zero row.
// CHECK-LABEL: func.func @one_hot(
// CHECK: linalg.generic {indexing_maps = [#[[D0]], #[[ID2]]], {{.*}} outs(%{{.*}} : tensor<4x10xf32>)
// CHECK: %[[K:.*]] = arith.index_cast
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[K]], %[[C]] : index
// CHECK: arith.select %[[HIT]]
// CHECK: outs(%{{.*}} : tensor<?x3xi1>)
// CHECK-NOT: kiln.
func.func @one_hot(%i: tensor<4xi64>, %j: tensor<?xi32>) -> (tensor<4x10xf32>, tensor<?x3xi1>) {
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<4x10xf32>
  %1 = kiln.one_hot %j : tensor<?xi32> -> tensor<?x3xi1>
  return %0, %1 : tensor<4x10xf32>, tensor<?x3xi1>
}

// mask_fill decomposes into where.
// CHECK-LABEL: func.func @mask_fill(
// CHECK: linalg.generic
// CHECK: arith.select
// CHECK-NOT: kiln.
func.func @mask_fill(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %0 = kiln.mask_fill %x, %m value -1.000000e+09 : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// embedding: rows of the table picked by clamped indices.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[W:.*]]: tensor<100x16xf32>
// CHECK: tensor.extract %[[W]]
// CHECK: outs(%{{.*}} : tensor<?x?x16xf32>)
// CHECK: tensor.extract %[[W]]
// CHECK-NOT: kiln.
func.func @embedding(%w: tensor<100x16xf32>, %i: tensor<4x8xi64>, %j: tensor<?x?xi64>) -> (tensor<4x8x16xf32>, tensor<?x?x16xf32>) {
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<4x8x16xf32>
  %1 = kiln.embedding %w[%j] : (tensor<100x16xf32>, tensor<?x?xi64>) -> tensor<?x?x16xf32>
  return %0, %1 : tensor<4x8x16xf32>, tensor<?x?x16xf32>
}

// LLVM: llvm.func @gather(
// LLVM: llvm.func @embedding(
