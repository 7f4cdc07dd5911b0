// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// Creation ops are constants, fills, and generics that compute each element
// from its row-major index (the random ops with Random.h's i64 mixing).

// CHECK-LABEL: func.func @constant()
// CHECK-SAME: -> (tensor<2xf32>, tensor<3xi8>)
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// ui8 keeps its bits in i8 storage: 200 and 255 read back as -56 and -1.
// CHECK-DAG: arith.constant dense<[1, -56, -1]> : tensor<3xi8>
// CHECK-NOT: kiln.
func.func @constant() -> (tensor<2xf32>, tensor<3xui8>) {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = kiln.constant dense<[1, 200, 255]> : tensor<3xui8>
  return %0, %1 : tensor<2xf32>, tensor<3xui8>
}

// CHECK-LABEL: func.func @full(
// CHECK-SAME: %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK: %[[V:.*]] = arith.constant -2 : i32
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xi32>
// CHECK: linalg.fill ins(%[[V]] : i32) outs(%[[E]] : tensor<?x4xi32>)
// CHECK: %[[H:.*]] = arith.constant 5.000000e-01 : f16
// CHECK: %[[F:.*]] = tensor.empty(%[[M]]) : tensor<?xf16>
// CHECK: linalg.fill ins(%[[H]] : f16) outs(%[[F]] : tensor<?xf16>)
// CHECK-NOT: kiln.
func.func @full(%n: index, %m: index) -> (tensor<?x4xi32>, tensor<?xf16>) {
  %0 = kiln.full -2.000000e+00 [%n] : tensor<?x4xi32>
  %1 = kiln.full 5.000000e-01 [%m] : tensor<?xf16>
  return %0, %1 : tensor<?x4xi32>, tensor<?xf16>
}

// start + i * step in f64, then converted with cast semantics.
// CHECK-LABEL: func.func @arange()
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<5xi64>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: kiln.
func.func @arange() -> (tensor<5xi64>, tensor<4xf32>) {
  %0 = kiln.arange 0.000000e+00, 1.000000e+00 : tensor<5xi64>
  %1 = kiln.arange 1.000000e+00, 5.000000e-01 : tensor<4xf32>
  return %0, %1 : tensor<5xi64>, tensor<4xf32>
}

// CHECK-LABEL: func.func @eye()
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[D:.*]] = arith.cmpi eq, %[[R]], %[[C]] : index
// CHECK: arith.select %[[D]]
// CHECK-NOT: kiln.
func.func @eye() -> tensor<3x4xf32> {
  %0 = kiln.eye : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// bits = splitmix64(seed * golden + i) >> 32; u = (bits >> 8) * 2^-24.
// CHECK-LABEL: func.func @rand(
// CHECK-SAME: %[[N:.*]]: index)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : index to i64
// 7 * 0x9E3779B97F4A7C15 mod 2^64:
// CHECK: %[[K:.*]] = arith.constant 6018027440424182931 : i64
// CHECK: arith.addi %[[K]], %[[I]] : i64
// CHECK: arith.shrui %{{.*}}, %{{.*}} : i64
// CHECK: arith.xori
// CHECK: arith.muli
// CHECK: arith.uitofp %{{.*}} : i64 to f64
// CHECK: arith.constant 5.9604644775390625E-8 : f64
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f64 to f32
// A value that rounded up onto high becomes the largest f32 below 1.0.
// CHECK: %[[OVER:.*]] = arith.cmpf oge
// CHECK: %[[CAP:.*]] = arith.constant 0.99999994 : f32
// CHECK: arith.select %[[OVER]], %[[CAP]], %[[R]] : f32
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf64>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<?xf64>)
// CHECK-NOT: kiln.
func.func @rand(%n: index) -> (tensor<3x4xf32>, tensor<?xf64>) {
  %0 = kiln.rand seed = 7, 0.000000e+00, 1.000000e+00 : tensor<3x4xf32>
  %1 = kiln.rand seed = 1, -1.000000e+00, 1.000000e+00 [%n] : tensor<?xf64>
  return %0, %1 : tensor<3x4xf32>, tensor<?xf64>
}

// With a run-time offset (an input of the generic) the seed is
// (7 + offset) * golden.
// CHECK-LABEL: func.func @rand_offset(
// CHECK-SAME: %[[O:.*]]: tensor<i64>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[O]] : tensor<i64>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[S:.*]] = arith.addi %[[V]], %{{.*}} : i64
// CHECK: %[[K:.*]] = arith.muli %[[S]], %{{.*}} : i64
// CHECK: arith.addi %[[K]], %[[I]] : i64
// CHECK-NOT: kiln.
func.func @rand_offset(%o: tensor<i64>) -> tensor<4xf32> {
  %0 = kiln.rand seed = 7 offset %o : tensor<i64>, 0.0, 1.0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Box-Muller over elements 2i and 2i + 1, rounded once to bf16.
// CHECK-LABEL: func.func @randn(
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<?x2xbf16>)
// CHECK: math.log %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: math.cos %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to bf16
// CHECK-NOT: kiln.
func.func @randn(%n: index) -> tensor<?x2xbf16> {
  %0 = kiln.randn seed = 7, 0.000000e+00, 2.000000e+00 [%n] : tensor<?x2xbf16>
  return %0 : tensor<?x2xbf16>
}

// LLVM: llvm.func @constant(
// LLVM: llvm.func @randn(
