// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// Round trip of every op in KilnElementwiseOps.td: each op prints in its
// custom form and parses back, directly and through the generic form.
// op-coverage.mlir checks that no op of the dialect is missing here.

// CHECK-LABEL: func.func @unary_signed(
func.func @unary_signed(%a: tensor<4xf64>, %b: tensor<?x3xf32>, %c: tensor<2x2xf16>, %d: tensor<bf16>, %e: tensor<4xi64>, %f: tensor<?xi32>, %g: tensor<3xi16>, %h: tensor<2x?xi8>) {
  // CHECK: kiln.neg %arg0 : tensor<4xf64>
  %0 = kiln.neg %a : tensor<4xf64>
  // CHECK: kiln.neg %arg7 : tensor<2x?xi8>
  %1 = kiln.neg %h : tensor<2x?xi8>
  // CHECK: kiln.abs %arg1 : tensor<?x3xf32>
  %2 = kiln.abs %b : tensor<?x3xf32>
  // CHECK: kiln.abs %arg6 : tensor<3xi16>
  %3 = kiln.abs %g : tensor<3xi16>
  // CHECK: kiln.relu %arg2 : tensor<2x2xf16>
  %4 = kiln.relu %c : tensor<2x2xf16>
  // CHECK: kiln.relu %arg5 : tensor<?xi32>
  %5 = kiln.relu %f : tensor<?xi32>
  // CHECK: kiln.sign %arg3 : tensor<bf16>
  %6 = kiln.sign %d : tensor<bf16>
  // CHECK: kiln.sign %arg4 : tensor<4xi64>
  %7 = kiln.sign %e : tensor<4xi64>
  return
}
// CHECK-LABEL: func.func @unary_float(
func.func @unary_float(%a: tensor<4xf64>, %b: tensor<?x3xf32>, %c: tensor<2x2xf16>, %d: tensor<bf16>) {
  // CHECK: kiln.exp %arg0 : tensor<4xf64>
  %0 = kiln.exp %a : tensor<4xf64>
  // CHECK: kiln.log %arg1 : tensor<?x3xf32>
  %1 = kiln.log %b : tensor<?x3xf32>
  // CHECK: kiln.log1p %arg2 : tensor<2x2xf16>
  %2 = kiln.log1p %c : tensor<2x2xf16>
  // CHECK: kiln.sqrt %arg3 : tensor<bf16>
  %3 = kiln.sqrt %d : tensor<bf16>
  // CHECK: kiln.rsqrt %arg0 : tensor<4xf64>
  %4 = kiln.rsqrt %a : tensor<4xf64>
  // CHECK: kiln.recip %arg1 : tensor<?x3xf32>
  %5 = kiln.recip %b : tensor<?x3xf32>
  // CHECK: kiln.sin %arg2 : tensor<2x2xf16>
  %6 = kiln.sin %c : tensor<2x2xf16>
  // CHECK: kiln.cos %arg3 : tensor<bf16>
  %7 = kiln.cos %d : tensor<bf16>
  // CHECK: kiln.tanh %arg0 : tensor<4xf64>
  %8 = kiln.tanh %a : tensor<4xf64>
  // CHECK: kiln.tan %arg3 : tensor<bf16>
  %t = kiln.tan %d : tensor<bf16>
  // CHECK: kiln.sigmoid %arg1 : tensor<?x3xf32>
  %9 = kiln.sigmoid %b : tensor<?x3xf32>
  // CHECK: kiln.erf %arg2 : tensor<2x2xf16>
  %10 = kiln.erf %c : tensor<2x2xf16>
  // CHECK: kiln.silu %arg3 : tensor<bf16>
  %11 = kiln.silu %d : tensor<bf16>
  // CHECK: kiln.log_sigmoid %arg0 : tensor<4xf64>
  %ls = kiln.log_sigmoid %a : tensor<4xf64>
  // CHECK: kiln.hardswish %arg1 : tensor<?x3xf32>
  %hs = kiln.hardswish %b : tensor<?x3xf32>
  // CHECK: kiln.mish %arg2 : tensor<2x2xf16>
  %mi = kiln.mish %c : tensor<2x2xf16>
  // CHECK: kiln.leaky_relu %arg3 negative_slope = 2.000000e-01 : tensor<bf16>
  %lr = kiln.leaky_relu %d negative_slope = 0.2 : tensor<bf16>
  // CHECK: kiln.elu %arg0 alpha = 1.500000e+00 : tensor<4xf64>
  %el = kiln.elu %a alpha = 1.5 : tensor<4xf64>
  // CHECK: kiln.softplus %arg1 beta = 2.000000e+00 threshold = 2.000000e+01 : tensor<?x3xf32>
  %sp = kiln.softplus %b beta = 2.0 threshold = 20.0 : tensor<?x3xf32>
  // CHECK: kiln.floor %arg0 : tensor<4xf64>
  %12 = kiln.floor %a : tensor<4xf64>
  // CHECK: kiln.ceil %arg1 : tensor<?x3xf32>
  %13 = kiln.ceil %b : tensor<?x3xf32>
  // CHECK: kiln.round %arg2 : tensor<2x2xf16>
  %14 = kiln.round %c : tensor<2x2xf16>
  // CHECK: kiln.gelu %arg1 : tensor<?x3xf32>
  %15 = kiln.gelu %b : tensor<?x3xf32>
  // CHECK: kiln.gelu %arg2 approximate = tanh : tensor<2x2xf16>
  %16 = kiln.gelu %c approximate = tanh : tensor<2x2xf16>
  // CHECK: kiln.is_nan %arg1 : tensor<?x3xf32> -> tensor<?x3xi1>
  %17 = kiln.is_nan %b : tensor<?x3xf32> -> tensor<?x3xi1>
  // CHECK: kiln.is_nan %arg3 : tensor<bf16> -> tensor<i1>
  %18 = kiln.is_nan %d : tensor<bf16> -> tensor<i1>
  return
}
// CHECK-LABEL: func.func @clamp(
func.func @clamp(%a: tensor<4xf32>, %b: tensor<?xi32>, %c: tensor<3xui8>, %d: tensor<2xbf16>) {
  // CHECK: kiln.clamp %arg0[-1.000000e+00, 1.000000e+00] : tensor<4xf32>
  %0 = kiln.clamp %a [-1.0, 1.0] : tensor<4xf32>
  // CHECK: kiln.clamp %arg1[0.000000e+00, 1.000000e+01] : tensor<?xi32>
  %1 = kiln.clamp %b [0.0, 1.0e+01] : tensor<?xi32>
  // CHECK: kiln.clamp %arg2[1.000000e+00, 1.000000e+00] : tensor<3xui8>
  %2 = kiln.clamp %c [1.0, 1.0] : tensor<3xui8>
  // CHECK: kiln.clamp %arg3[-5.000000e-01, 2.500000e-01] : tensor<2xbf16>
  %3 = kiln.clamp %d [-5.0e-01, 2.5e-01] : tensor<2xbf16>
  return
}
// CHECK-LABEL: func.func @logic(
func.func @logic(%p: tensor<4xi1>, %q: tensor<?x4xi1>, %r: tensor<i1>) {
  // CHECK: kiln.not %arg0 : tensor<4xi1>
  %0 = kiln.not %p : tensor<4xi1>
  // CHECK: kiln.and %arg0, %arg1 : (tensor<4xi1>, tensor<?x4xi1>) -> tensor<?x4xi1>
  %1 = kiln.and %p, %q : (tensor<4xi1>, tensor<?x4xi1>) -> tensor<?x4xi1>
  // CHECK: kiln.or %arg2, %arg0 : (tensor<i1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = kiln.or %r, %p : (tensor<i1>, tensor<4xi1>) -> tensor<4xi1>
  return
}
// CHECK-LABEL: func.func @binary_numeric(
func.func @binary_numeric(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<?x1xf64>, %d: tensor<1x5xf64>, %e: tensor<4xi64>, %f: tensor<i64>, %g: tensor<?xi32>, %h: tensor<4xi16>, %i: tensor<4xi8>, %j: tensor<2x2xui8>, %k: tensor<8xf16>, %l: tensor<8xbf16>) {
  // CHECK: kiln.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.add %arg2, %arg3 : (tensor<?x1xf64>, tensor<1x5xf64>) -> tensor<?x5xf64>
  %1 = kiln.add %c, %d : (tensor<?x1xf64>, tensor<1x5xf64>) -> tensor<?x5xf64>
  // CHECK: kiln.sub %arg4, %arg5 : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  %2 = kiln.sub %e, %f : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  // CHECK: kiln.sub %arg10, %arg10 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %3 = kiln.sub %k, %k : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  // CHECK: kiln.mul %arg6, %arg6 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  %4 = kiln.mul %g, %g : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  // CHECK: kiln.mul %arg11, %arg11 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %5 = kiln.mul %l, %l : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  // CHECK: kiln.div %arg7, %arg7 : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  %6 = kiln.div %h, %h : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  // CHECK: kiln.div %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = kiln.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.max %arg8, %arg8 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %8 = kiln.max %i, %i : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK: kiln.max %arg2, %arg3 : (tensor<?x1xf64>, tensor<1x5xf64>) -> tensor<?x5xf64>
  %9 = kiln.max %c, %d : (tensor<?x1xf64>, tensor<1x5xf64>) -> tensor<?x5xf64>
  // CHECK: kiln.min %arg9, %arg9 : (tensor<2x2xui8>, tensor<2x2xui8>) -> tensor<2x2xui8>
  %10 = kiln.min %j, %j : (tensor<2x2xui8>, tensor<2x2xui8>) -> tensor<2x2xui8>
  // CHECK: kiln.min %arg10, %arg10 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %11 = kiln.min %k, %k : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  // CHECK: kiln.rem %arg4, %arg5 : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  %12 = kiln.rem %e, %f : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  // CHECK: kiln.rem %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %13 = kiln.rem %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
// CHECK-LABEL: func.func @binary_float(
func.func @binary_float(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<?xf64>, %d: tensor<4xf16>, %e: tensor<4xbf16>) {
  // CHECK: kiln.pow %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = kiln.pow %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.pow %arg2, %arg2 : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %1 = kiln.pow %c, %c : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  // CHECK: kiln.atan2 %arg3, %arg3 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %2 = kiln.atan2 %d, %d : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK: kiln.atan2 %arg4, %arg4 : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %3 = kiln.atan2 %e, %e : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return
}
// CHECK-LABEL: func.func @compare(
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<?xi64>, %d: tensor<4xui8>, %e: tensor<4xi1>, %f: tensor<2x1xbf16>, %g: tensor<1x?xbf16>, %h: tensor<i8>) {
  // CHECK: kiln.eq %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = kiln.eq %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: kiln.ne %arg2, %arg2 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
  %1 = kiln.ne %c, %c : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
  // CHECK: kiln.lt %arg3, %arg3 : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %2 = kiln.lt %d, %d : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  // CHECK: kiln.le %arg4, %arg4 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = kiln.le %e, %e : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: kiln.gt %arg5, %arg6 : (tensor<2x1xbf16>, tensor<1x?xbf16>) -> tensor<2x?xi1>
  %4 = kiln.gt %f, %g : (tensor<2x1xbf16>, tensor<1x?xbf16>) -> tensor<2x?xi1>
  // CHECK: kiln.ge %arg7, %arg7 : (tensor<i8>, tensor<i8>) -> tensor<i1>
  %5 = kiln.ge %h, %h : (tensor<i8>, tensor<i8>) -> tensor<i1>
  return
}
// CHECK-LABEL: func.func @where(
func.func @where(%p: tensor<4xi1>, %q: tensor<?x1xi1>, %a: tensor<4xf32>, %b: tensor<f32>, %c: tensor<3x4xi16>, %d: tensor<4xi1>) {
  // CHECK: kiln.where %arg0, %arg2, %arg3 : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %0 = kiln.where %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: kiln.where %arg1, %arg4, %arg4 : (tensor<?x1xi1>, tensor<3x4xi16>, tensor<3x4xi16>) -> tensor<3x4xi16>
  %1 = kiln.where %q, %c, %c : (tensor<?x1xi1>, tensor<3x4xi16>, tensor<3x4xi16>) -> tensor<3x4xi16>
  // CHECK: kiln.where %arg0, %arg5, %arg5 : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = kiln.where %p, %d, %d : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}
// CHECK-LABEL: func.func @cast(
func.func @cast(%a: tensor<4xf32>, %b: tensor<?x2xi64>, %c: tensor<4xi1>, %d: tensor<3xui8>, %e: tensor<bf16>) {
  // CHECK: kiln.cast %arg0 : tensor<4xf32> -> tensor<4xi32>
  %0 = kiln.cast %a : tensor<4xf32> -> tensor<4xi32>
  // CHECK: kiln.cast %arg0 : tensor<4xf32> -> tensor<4xf16>
  %1 = kiln.cast %a : tensor<4xf32> -> tensor<4xf16>
  // CHECK: kiln.cast %arg0 : tensor<4xf32> -> tensor<4xi1>
  %2 = kiln.cast %a : tensor<4xf32> -> tensor<4xi1>
  // CHECK: kiln.cast %arg1 : tensor<?x2xi64> -> tensor<?x2xf64>
  %3 = kiln.cast %b : tensor<?x2xi64> -> tensor<?x2xf64>
  // CHECK: kiln.cast %arg1 : tensor<?x2xi64> -> tensor<?x2xi8>
  %4 = kiln.cast %b : tensor<?x2xi64> -> tensor<?x2xi8>
  // CHECK: kiln.cast %arg2 : tensor<4xi1> -> tensor<4xbf16>
  %5 = kiln.cast %c : tensor<4xi1> -> tensor<4xbf16>
  // CHECK: kiln.cast %arg3 : tensor<3xui8> -> tensor<3xi16>
  %6 = kiln.cast %d : tensor<3xui8> -> tensor<3xi16>
  // CHECK: kiln.cast %arg4 : tensor<bf16> -> tensor<ui8>
  %7 = kiln.cast %e : tensor<bf16> -> tensor<ui8>
  // CHECK: kiln.cast %arg0 : tensor<4xf32> -> tensor<4xf32>
  %8 = kiln.cast %a : tensor<4xf32> -> tensor<4xf32>
  return
}
