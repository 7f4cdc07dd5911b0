// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Reductions are generics with reduction iterators into a fill of the
// identity, in the accumulator type of the op's reduction interface (a float
// product in f64, as the Cpu kernels and Flex do); argmax/argmin carry
// (value, index); cumsum is an scf.for scan.

// CHECK-DAG: #[[IN3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEEP02:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KEEPDIM:.+]] = affine_map<(d0, d1, d2) -> (0, d1, 0)>
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COLS:.+]] = affine_map<(d0, d1) -> (0, d1)>

// CHECK-LABEL: func.func @reduce(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x3xi1>, %[[I:.*]]: tensor<5xi32>, %[[U:.*]]: tensor<5xi8>)
// Float sums accumulate in f64 and round once.
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf64>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%[[E]] : tensor<2x4xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[IN3]], #[[KEEP02]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf64>)
// CHECK: ^bb0(%[[SIN:.*]]: f32, %[[SACC:.*]]: f64):
// CHECK: %[[SW:.*]] = arith.extf %[[SIN]] : f32 to f64
// CHECK: arith.addf %[[SACC]], %[[SW]] fastmath<reassoc> : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// The f32 product accumulates in f64 and rounds once.
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[PE:.*]] = tensor.empty() : tensor<1x3x1xf64>
// CHECK: %[[PINIT:.*]] = linalg.fill ins(%[[ONE]] : f64) outs(%[[PE]] : tensor<1x3x1xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[IN3]], #[[KEEPDIM]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[PINIT]] : tensor<1x3x1xf64>)
// CHECK: ^bb0(%[[PIN:.*]]: f32, %[[PACC:.*]]: f64):
// CHECK: %[[PW:.*]] = arith.extf %[[PIN]] : f32 to f64
// CHECK: arith.mulf %[[PACC]], %[[PW]] fastmath<reassoc> : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.minimumf
// CHECK: arith.constant false
// CHECK: arith.ori
// CHECK: arith.constant true
// CHECK: arith.andi
// CHECK: arith.addi %{{.*}} : i32
// ui8 extremes: the identities 0 and 255 (-1 as i8), unsigned compares.
// CHECK: arith.constant 0 : i8
// CHECK: arith.maxui
// CHECK: arith.constant -1 : i8
// CHECK: arith.minui
// CHECK-NOT: kiln.
func.func @reduce(%x: tensor<2x3x4xf32>, %b: tensor<2x3xi1>, %i: tensor<5xi32>, %u: tensor<5xui8>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2xi1>, tensor<3xi1>, tensor<i32>, tensor<ui8>, tensor<ui8>) {
  %0 = kiln.sum %x [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %1 = kiln.prod %x [0, 2] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %2 = kiln.reduce_max %x [1, 2] : tensor<2x3x4xf32> -> tensor<2xf32>
  %3 = kiln.reduce_min %x [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %4 = kiln.any %b [1] : tensor<2x3xi1> -> tensor<2xi1>
  %5 = kiln.all %b [0] : tensor<2x3xi1> -> tensor<3xi1>
  %6 = kiln.sum %i [0] : tensor<5xi32> -> tensor<i32>
  %7 = kiln.reduce_max %u [0] : tensor<5xui8> -> tensor<ui8>
  %8 = kiln.reduce_min %u [0] : tensor<5xui8> -> tensor<ui8>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2xi1>, tensor<3xi1>, tensor<i32>, tensor<ui8>, tensor<ui8>
}

// f16 sums too accumulate in f64 and round once.
// CHECK-LABEL: func.func @half(
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<8xf64>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %[[ACC:.*]]: f64):
// CHECK: %[[W:.*]] = arith.extf %[[IN]] : f16 to f64
// CHECK: arith.addf %[[ACC]], %[[W]] fastmath<reassoc> : f64
// CHECK: arith.truncf %{{.*}} : f64 to f16
// CHECK-NOT: kiln.
func.func @half(%x: tensor<8x16xf16>) -> tensor<8xf16> {
  %0 = kiln.sum %x [1] : tensor<8x16xf16> -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?xf64>
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: tensor.empty(%{{.*}}) : tensor<?x1xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #{{.*}}], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK-NOT: kiln.
func.func @dynamic(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x1xf32>) {
  %0 = kiln.sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = kiln.reduce_max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  return %0, %1 : tensor<?xf32>, tensor<?x1xf32>
}

// (value, index) pairs: NaN wins, then the larger value, then the earlier
// index; the index result is returned.
// CHECK-LABEL: func.func @arg(
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[ID2]], #[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xi64>)
// CHECK: %[[AT:.*]] = linalg.index 1 : index
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[COLS]], #[[COLS]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.cmpf olt
// CHECK: arith.cmpi sgt
// CHECK: return %[[R]]#1,
// CHECK-NOT: kiln.
func.func @arg(%x: tensor<3x5xf32>, %i: tensor<?x4xi32>) -> (tensor<3xi64>, tensor<1x5xi64>, tensor<?xi64>) {
  %0 = kiln.argmax %x axis = 1 : tensor<3x5xf32> -> tensor<3xi64>
  %1 = kiln.argmin %x axis = 0 keepdim : tensor<3x5xf32> -> tensor<1x5xi64>
  %2 = kiln.argmax %i axis = 1 : tensor<?x4xi32> -> tensor<?xi64>
  return %0, %1, %2 : tensor<3xi64>, tensor<1x5xi64>, tensor<?xi64>
}

// The scan carries the result and the running sum (f64 for floats) of one
// slice; the running sum is updated in place.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME: %[[X:.*]]: tensor<3x4xf32>, %[[I:.*]]: tensor<?xi32>)
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[SUM0:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<3x1xf64>)
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[RES:.*]] = %[[OUT]], %[[ACC:.*]] = %[[SUM0]])
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, %[[K]]] [3, 1] [1, 1]
// CHECK: %[[STEP:.*]]:2 = linalg.generic {{.*}} ins(%[[S]] : tensor<3x1xf32>) outs(%[[ACC]], %{{.*}} : tensor<3x1xf64>, tensor<3x1xf32>)
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[STEP]]#1 into %[[RES]][0, %[[K]]] [3, 1] [1, 1]
// CHECK: scf.yield %[[INS]], %[[STEP]]#0
// CHECK: %[[N:.*]] = tensor.dim %[[I]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK: arith.addi
// CHECK-NOT: kiln.
func.func @cumsum(%x: tensor<3x4xf32>, %i: tensor<?xi32>) -> (tensor<3x4xf32>, tensor<?xi32>) {
  %0 = kiln.cumsum %x axis = 1 : tensor<3x4xf32>
  %1 = kiln.cumsum %i axis = 0 : tensor<?xi32>
  return %0, %1 : tensor<3x4xf32>, tensor<?xi32>
}

// A scan over no elements is an empty tensor: no loop, no slice.
// CHECK-LABEL: func.func @cumsum_empty(
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK-NEXT: return %[[E]]
func.func @cumsum_empty(%x: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %0 = kiln.cumsum %x axis = 1 : tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// Composites are decomposed first, then lowered like any primitive.
// CHECK-LABEL: func.func @composites(
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: math.log
// CHECK-NOT: kiln.
func.func @composites(%x: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.softmax %x axis = 1 : tensor<4x10xf32>
  %1 = kiln.log_softmax %x axis = 1 : tensor<4x10xf32>
  %2 = kiln.logsumexp %x [1] : tensor<4x10xf32> -> tensor<4xf32>
  %3 = kiln.mean %x [1] : tensor<4x10xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4x10xf32>, tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>
}

// LLVM: llvm.func @reduce(
// LLVM: llvm.func @cumsum(
