// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Every elementwise op becomes one linalg.generic whose body is the
// ElementwiseEmitter's arithmetic; operands are read through numpy
// broadcast maps (a static size-1 dim reads index 0, a rank-0 operand has
// an empty map).

// CHECK-DAG: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[BCAST0:.+]] = affine_map<(d0, d1) -> (0, d1)>

// CHECK-LABEL: func.func @unary(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.log1p
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: arith.divf
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.tanh
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: math.erf
// CHECK: arith.cmpf olt
// CHECK: math.tanh
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: math.roundeven
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf olt
// CHECK: math.absi
// CHECK: arith.cmpf uno
// CHECK-NOT: kiln.
func.func @unary(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>) {
  %0 = kiln.neg %x : tensor<4xf32>
  %1 = kiln.abs %x : tensor<4xf32>
  %2 = kiln.exp %x : tensor<4xf32>
  %3 = kiln.log %x : tensor<4xf32>
  %4 = kiln.log1p %x : tensor<4xf32>
  %5 = kiln.sqrt %x : tensor<4xf32>
  %6 = kiln.rsqrt %x : tensor<4xf32>
  %7 = kiln.recip %x : tensor<4xf32>
  %8 = kiln.sin %x : tensor<4xf32>
  %9 = kiln.cos %x : tensor<4xf32>
  %10 = kiln.tanh %x : tensor<4xf32>
  %11 = kiln.sigmoid %x : tensor<4xf32>
  %12 = kiln.erf %x : tensor<4xf32>
  %13 = kiln.relu %x : tensor<4xf32>
  %14 = kiln.gelu %x approximate = tanh : tensor<4xf32>
  %15 = kiln.floor %x : tensor<4xf32>
  %16 = kiln.ceil %x : tensor<4xf32>
  %17 = kiln.round %x : tensor<4xf32>
  %18 = kiln.sign %x : tensor<4xf32>
  %19 = kiln.clamp %x [-1.000000e+00, 1.000000e+00] : tensor<4xf32>
  %20 = kiln.abs %i : tensor<4xi32>
  %21 = kiln.is_nan %x : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>
}

// CHECK-LABEL: func.func @binary(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[SCALAR]], #[[ID2]]], {{.*}} ins(%[[X]], %[[S]] : tensor<2x3xf32>, tensor<f32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: math.powf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.remf
// CHECK: math.atan2
// CHECK-NOT: kiln.
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.sub %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = kiln.mul %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = kiln.div %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = kiln.pow %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = kiln.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = kiln.min %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = kiln.rem %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = kiln.atan2 %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Integer division is floor division and never traps; ui8 is stored as i8
// and keeps its unsigned semantics.
// CHECK-LABEL: func.func @integer(
// CHECK-SAME: tensor<4xi32>, %{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<4xi8>)
// CHECK: arith.floordivsi
// CHECK: arith.remsi
// CHECK: arith.divui
// CHECK: arith.maxui
// CHECK-NOT: kiln.
func.func @integer(%a: tensor<4xi32>, %b: tensor<4xi32>, %u: tensor<4xui8>, %v: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xui8>) {
  %0 = kiln.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = kiln.rem %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = kiln.div %u, %v : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %3 = kiln.max %u, %v : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xui8>
}

// CHECK-LABEL: func.func @compare(
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi ult
// CHECK-NOT: kiln.
func.func @compare(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %u: tensor<3xui8>, %w: tensor<3xui8>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<3xi1>) {
  %0 = kiln.eq %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = kiln.ne %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = kiln.lt %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = kiln.le %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = kiln.gt %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %5 = kiln.ge %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %6 = kiln.lt %u, %w : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<3xi1>
}

// CHECK-LABEL: func.func @logic(
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #{{.*}}, #[[ID1]]]
// CHECK: arith.select
// CHECK-NOT: kiln.
func.func @logic(%a: tensor<4xi1>, %b: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = kiln.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = kiln.or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = kiln.not %a : tensor<4xi1>
  %3 = kiln.where %a, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// Float to integer saturates through f64; ui8 converts unsigned.
// CHECK-LABEL: func.func @cast(
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.trunc
// CHECK: arith.fptosi %{{.*}} : f64 to i32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.cmpf une
// CHECK: arith.uitofp %{{.*}} : i1 to f64
// CHECK-NOT: kiln.
func.func @cast(%x: tensor<4xf32>, %u: tensor<4xui8>, %b: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xf16>, tensor<4xf32>, tensor<4xi1>, tensor<4xf64>) {
  %0 = kiln.cast %x : tensor<4xf32> -> tensor<4xi32>
  %1 = kiln.cast %x : tensor<4xf32> -> tensor<4xf16>
  %2 = kiln.cast %u : tensor<4xui8> -> tensor<4xf32>
  %3 = kiln.cast %x : tensor<4xf32> -> tensor<4xi1>
  %4 = kiln.cast %b : tensor<4xi1> -> tensor<4xf64>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xf16>, tensor<4xf32>, tensor<4xi1>, tensor<4xf64>
}

// Dynamic result dims come from an operand that is dynamic there.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>, %[[Y:.*]]: tensor<?xf32>, %[[Z:.*]]: tensor<1x?xf32>)
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ID2]]], {{.*}} ins(%[[X]], %[[Y]] : tensor<?x?xf32>, tensor<?xf32>) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[BCAST0]], #[[ID2]]], {{.*}} ins(%[[SUM]], %[[Z]] : tensor<?x?xf32>, tensor<1x?xf32>)
// CHECK: math.exp
// CHECK-NOT: kiln.
func.func @dynamic(%x: tensor<?x?xf32>, %y: tensor<?xf32>, %z: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.add %x, %y : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = kiln.mul %0, %z : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.silu %1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// LLVM: llvm.func @unary(
// LLVM: llvm.func @dynamic(
