// RUN: tensor-opt %s --canonicalize --split-input-file | FileCheck %s

// Constant folding of small constants (lib/Dialect/Kiln/IR/KilnFolds.cpp).
// Where every op of a function has constant operands, the CHECK-NEXT lines
// require nothing but the folded constants before the return, so an op that
// does not fold fails the test.

// CHECK-LABEL: func.func @unary_float(
// CHECK-NEXT: kiln.constant dense<[-1.000000e+00, 2.000000e+00, -2.500000e-01]> : tensor<3xf32>
// CHECK-NEXT: kiln.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: kiln.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf64>
// CHECK-NEXT: kiln.constant dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return
func.func @unary_float() -> (tensor<3xf32>, tensor<f32>, tensor<2xf64>, tensor<2xf32>) {
  %c = kiln.constant dense<[1.0, -2.0, 0.25]> : tensor<3xf32>
  %0 = kiln.neg %c : tensor<3xf32>
  %s = kiln.constant dense<4.0> : tensor<f32>
  %1 = kiln.sqrt %s : tensor<f32>
  %z = kiln.constant dense<[0.0, -1.0e+400]> : tensor<2xf64>
  %2 = kiln.exp %z : tensor<2xf64>
  %h = kiln.constant dense<[2.5, -0.5]> : tensor<2xf32>
  %3 = kiln.floor %h : tensor<2xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<f32>, tensor<2xf64>, tensor<2xf32>
}

// -----

// Integer unary folds wrap like the hardware: -INT64_MIN is INT64_MIN.

// CHECK-LABEL: func.func @unary_int(
// CHECK-NEXT: kiln.constant dense<[5, 7]> : tensor<2xi32>
// CHECK-NEXT: kiln.constant dense<[-9223372036854775808, -3]> : tensor<2xi64>
// CHECK-NEXT: kiln.constant dense<[-9223372036854775808, 3]> : tensor<2xi64>
// CHECK-NEXT: kiln.constant dense<[0, 1, -1]> : tensor<3xi8>
// CHECK-NEXT: kiln.constant dense<[0, 5, 10]> : tensor<3xi16>
// CHECK-NEXT: return
func.func @unary_int() -> (tensor<2xi32>, tensor<2xi64>, tensor<2xi64>, tensor<3xi8>, tensor<3xi16>) {
  %i = kiln.constant dense<[5, -7]> : tensor<2xi32>
  %0 = kiln.abs %i : tensor<2xi32>
  %m = kiln.constant dense<[-9223372036854775808, 3]> : tensor<2xi64>
  %1 = kiln.neg %m : tensor<2xi64>
  %2 = kiln.abs %m : tensor<2xi64>
  %s = kiln.constant dense<[0, 100, -100]> : tensor<3xi8>
  %3 = kiln.sign %s : tensor<3xi8>
  %c = kiln.constant dense<[-3, 5, 300]> : tensor<3xi16>
  %4 = kiln.clamp %c [0.0, 10.0] : tensor<3xi16>
  return %0, %1, %2, %3, %4 : tensor<2xi32>, tensor<2xi64>, tensor<2xi64>, tensor<3xi8>, tensor<3xi16>
}

// -----

// Binary folds broadcast their operands; integer division and remainder
// round toward negative infinity, and INT64_MIN / -1 wraps.

// CHECK-LABEL: func.func @binary(
// CHECK-NEXT: kiln.constant dense<{{\[}}[1.100000e+01, 2.200000e+01, 3.300000e+01], [1.400000e+01, 2.500000e+01, 3.600000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT: kiln.constant dense<[-4, 3]> : tensor<2xi64>
// CHECK-NEXT: kiln.constant dense<1> : tensor<2xi64>
// CHECK-NEXT: kiln.constant dense<[-9223372036854775808, 0]> : tensor<2xi64>
// CHECK-NEXT: kiln.constant dense<0> : tensor<2xi64>
// CHECK-NEXT: kiln.constant dense<[0.000000e+00, 6.000000e+00]> : tensor<2xf16>
// CHECK-NEXT: kiln.constant dense<[-1, 2]> : tensor<2xi8>
// CHECK-NEXT: return
func.func @binary() -> (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xf16>, tensor<2xi8>) {
  %a = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = kiln.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %i = kiln.constant dense<[-7, 7]> : tensor<2xi64>
  %two = kiln.constant dense<2> : tensor<i64>
  %1 = kiln.div %i, %two : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %2 = kiln.rem %i, %two : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %m = kiln.constant dense<[-9223372036854775808, 0]> : tensor<2xi64>
  %neg1 = kiln.constant dense<-1> : tensor<i64>
  %3 = kiln.div %m, %neg1 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %4 = kiln.rem %m, %neg1 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %h = kiln.constant dense<[1.0, 3.0]> : tensor<2xf16>
  %5 = kiln.mul %h, %h : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %6 = kiln.sub %5, %h : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %p = kiln.constant dense<[127, -128]> : tensor<2xi8>
  %q = kiln.constant dense<[-128, -126]> : tensor<2xi8>
  %7 = kiln.add %p, %q : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %0, %1, %2, %3, %4, %6, %7 : tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xf16>, tensor<2xi8>
}

// -----

// CHECK-LABEL: func.func @compare(
// CHECK-NEXT: kiln.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-NEXT: kiln.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-NEXT: kiln.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-NEXT: kiln.constant dense<false> : tensor<2xi1>
// CHECK-NEXT: kiln.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: return
func.func @compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = kiln.constant dense<2.0> : tensor<f32>
  %0 = kiln.lt %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %1 = kiln.eq %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %2 = kiln.le %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %i = kiln.constant dense<[-1, 4]> : tensor<2xi32>
  %j = kiln.constant dense<[-1, 5]> : tensor<2xi32>
  %3 = kiln.ne %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %4 = kiln.gt %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %5 = kiln.not %3 : tensor<2xi1>
  return %0, %1, %2, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// Casts round floats to nearest, truncate floats to integers toward zero
// and saturate at the integer range (NaN becomes 0); integers wrap to a
// narrower integer. Anything but zero, NaN included, is true.

// CHECK-LABEL: func.func @cast(
// CHECK-NEXT: kiln.constant dense<[127, -128, 2, 0]> : tensor<4xi8>
// CHECK-NEXT: kiln.constant dense<[255, 0, 2, 0]> : tensor<4xui8>
// CHECK-NEXT: kiln.constant dense<[9223372036854775807, -9223372036854775808, 2, 0]> : tensor<4xi64>
// CHECK-NEXT: kiln.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: kiln.constant dense<[-3.000000e+00, 2.550000e+02]> : tensor<2xf32>
// CHECK-NEXT: kiln.constant dense<[-3, -1]> : tensor<2xi8>
// CHECK-NEXT: return
func.func @cast() -> (tensor<4xi8>, tensor<4xui8>, tensor<4xi64>, tensor<4xi1>, tensor<2xf32>, tensor<2xi8>) {
  %f = kiln.constant dense<[1.0e+10, -1.0e+10, 2.9, 0x7FF8000000000000]> : tensor<4xf64>
  %0 = kiln.cast %f : tensor<4xf64> -> tensor<4xi8>
  %1 = kiln.cast %f : tensor<4xf64> -> tensor<4xui8>
  %h = kiln.constant dense<[1.0e+30, -1.0e+30, 2.9, 0.0]> : tensor<4xf32>
  %2 = kiln.cast %h : tensor<4xf32> -> tensor<4xi64>
  %3 = kiln.cast %f : tensor<4xf64> -> tensor<4xi1>
  %i = kiln.constant dense<[-3, 255]> : tensor<2xi32>
  %4 = kiln.cast %i : tensor<2xi32> -> tensor<2xf32>
  %5 = kiln.cast %i : tensor<2xi32> -> tensor<2xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi8>, tensor<4xui8>, tensor<4xi64>, tensor<4xi1>, tensor<2xf32>, tensor<2xi8>
}

// -----

// kiln.full of a static shape is a splat; a dynamic shape stays.

// CHECK-LABEL: func.func @full(
// CHECK-DAG: kiln.constant dense<1.500000e+00> : tensor<2x2xf32>
// CHECK-DAG: kiln.constant dense<-3> : tensor<4xi32>
// CHECK-DAG: kiln.full 0.000000e+00{{ ?}}[%arg0] : tensor<?x4xf64>
// CHECK-NOT: kiln.full 1.5
func.func @full(%n: index) -> (tensor<2x2xf32>, tensor<4xi32>, tensor<?x4xf64>) {
  %0 = kiln.full 1.5 : tensor<2x2xf32>
  %1 = kiln.full -3.0 : tensor<4xi32>
  %2 = kiln.full 0.0 [%n] : tensor<?x4xf64>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<4xi32>, tensor<?x4xf64>
}

// -----

// A broadcast of a splat is a bigger splat; a reshape of a constant is the
// same data in the new shape.

// CHECK-LABEL: func.func @expand_splat(
// CHECK-DAG: kiln.constant dense<7> : tensor<3x4xi32>
// CHECK-DAG: kiln.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: kiln.expand %arg0 [2, 3]
// CHECK-NOT: kiln.reshape
func.func @expand_splat(%x: tensor<3xf32>) -> (tensor<3x4xi32>, tensor<2x2xf32>, tensor<2x3xf32>) {
  %c = kiln.constant dense<7> : tensor<4xi32>
  %0 = kiln.expand %c [3, 4] : tensor<4xi32> -> tensor<3x4xi32>
  %d = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = kiln.reshape %d [2, 2] : tensor<4xf32> -> tensor<2x2xf32>
  %2 = kiln.expand %x [2, 3] : tensor<3xf32> -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<3x4xi32>, tensor<2x2xf32>, tensor<2x3xf32>
}

// -----

// A constant condition picks a branch when no broadcast changes its type.

// CHECK-LABEL: func.func @where_constant(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[S:[^:]+]]: tensor<f32>
// CHECK: %[[W:.*]] = kiln.where %{{.*}}, %[[S]], %[[B]] : (tensor<i1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[A]], %[[B]], %[[W]]
func.func @where_constant(%a: tensor<4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = kiln.constant dense<true> : tensor<i1>
  %f = kiln.constant dense<false> : tensor<4xi1>
  %0 = kiln.where %t, %a, %b : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln.where %f, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // The scalar branch would need a broadcast: no fold.
  %2 = kiln.where %t, %s, %b : (tensor<i1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// More than kMaxFoldElements elements, not a splat: left alone.

// CHECK-LABEL: func.func @too_big(
// CHECK: kiln.neg
func.func @too_big(%x: tensor<300xf32>) -> tensor<300xf32> {
  %c = kiln.exp %x : tensor<300xf32>
  %0 = kiln.neg %c : tensor<300xf32>
  return %0 : tensor<300xf32>
}
