// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Creation ops that leave a kernel: arange, eye, full, rand, randn.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED
// CHECK-NOT: __nv_

// CHECK-LABEL: // PTX creation_kernel0_
// CHECK: .visible .entry creation_kernel0_
func.func @creation(%x: tensor<3x4xf32>) -> (tensor<5xi64>, tensor<4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<8x2xbf16>, tensor<6xf64>) {
  %0 = kiln.arange 0.000000e+00, 1.000000e+00 : tensor<5xi64>
  %1 = kiln.arange 1.000000e+00, 5.000000e-01 : tensor<4xf32>
  %2 = kiln.eye : tensor<3x4xf32>
  %f = kiln.full -2.000000e+00 : tensor<3x4xf32>
  %3 = kiln.add %f, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = kiln.rand seed = 7, 0.000000e+00, 1.000000e+00 : tensor<3x4xf32>
  %5 = kiln.randn seed = 7, 0.000000e+00, 2.000000e+00 : tensor<8x2xbf16>
  %6 = kiln.rand seed = 1, -1.000000e+00, 1.000000e+00 : tensor<6xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<5xi64>, tensor<4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<8x2xbf16>, tensor<6xf64>
}

// Creation ops and constants in every dtype they accept.

// CHECK-LABEL: // PTX create_f64_kernel0_
func.func @create_f64(%x: tensor<5x7xf64>, %y: tensor<2x2xf64>) -> (tensor<5x7xi1>, tensor<5x7xf64>, tensor<2x2xi1>, tensor<17xf64>, tensor<5x7xf64>, tensor<5x7xf64>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xf64>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xf64>, tensor<5x7xf64>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xf64>
  %v3 = kiln.constant dense<[[1.500000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : tensor<2x2xf64>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xf64>
  %v6 = kiln.rand seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xf64>
  %v7 = kiln.randn seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xf64>
  return %v1, %v2, %v4, %v5, %v6, %v7 : tensor<5x7xi1>, tensor<5x7xf64>, tensor<2x2xi1>, tensor<17xf64>, tensor<5x7xf64>, tensor<5x7xf64>
}

// CHECK-LABEL: // PTX create_f32_kernel0_
func.func @create_f32(%x: tensor<5x7xf32>, %y: tensor<2x2xf32>) -> (tensor<5x7xi1>, tensor<5x7xf32>, tensor<2x2xi1>, tensor<17xf32>, tensor<5x7xf32>, tensor<5x7xf32>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xf32>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xf32>
  %v3 = kiln.constant dense<[[1.500000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : tensor<2x2xf32>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xf32>
  %v6 = kiln.rand seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xf32>
  %v7 = kiln.randn seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xf32>
  return %v1, %v2, %v4, %v5, %v6, %v7 : tensor<5x7xi1>, tensor<5x7xf32>, tensor<2x2xi1>, tensor<17xf32>, tensor<5x7xf32>, tensor<5x7xf32>
}

// CHECK-LABEL: // PTX create_f16_kernel0_
func.func @create_f16(%x: tensor<5x7xf16>, %y: tensor<2x2xf16>) -> (tensor<5x7xi1>, tensor<5x7xf16>, tensor<2x2xi1>, tensor<17xf16>, tensor<5x7xf16>, tensor<5x7xf16>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xf16>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xf16>, tensor<5x7xf16>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xf16>
  %v3 = kiln.constant dense<[[1.500000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : tensor<2x2xf16>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xf16>
  %v6 = kiln.rand seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xf16>
  %v7 = kiln.randn seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xf16>
  return %v1, %v2, %v4, %v5, %v6, %v7 : tensor<5x7xi1>, tensor<5x7xf16>, tensor<2x2xi1>, tensor<17xf16>, tensor<5x7xf16>, tensor<5x7xf16>
}

// CHECK-LABEL: // PTX create_bf16_kernel0_
func.func @create_bf16(%x: tensor<5x7xbf16>, %y: tensor<2x2xbf16>) -> (tensor<5x7xi1>, tensor<5x7xbf16>, tensor<2x2xi1>, tensor<17xbf16>, tensor<5x7xbf16>, tensor<5x7xbf16>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xbf16>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xbf16>, tensor<5x7xbf16>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xbf16>
  %v3 = kiln.constant dense<[[1.500000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : tensor<2x2xbf16>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xbf16>
  %v6 = kiln.rand seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xbf16>
  %v7 = kiln.randn seed = 3, 0.000000e+00, 1.000000e+00 : tensor<5x7xbf16>
  return %v1, %v2, %v4, %v5, %v6, %v7 : tensor<5x7xi1>, tensor<5x7xbf16>, tensor<2x2xi1>, tensor<17xbf16>, tensor<5x7xbf16>, tensor<5x7xbf16>
}

// CHECK-LABEL: // PTX create_i64_kernel0_
func.func @create_i64(%x: tensor<5x7xi64>, %y: tensor<2x2xi64>) -> (tensor<5x7xi1>, tensor<5x7xi64>, tensor<2x2xi1>, tensor<17xi64>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xi64>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xi64>
  %v3 = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xi64>
  return %v1, %v2, %v4, %v5 : tensor<5x7xi1>, tensor<5x7xi64>, tensor<2x2xi1>, tensor<17xi64>
}

// CHECK-LABEL: // PTX create_i32_kernel0_
func.func @create_i32(%x: tensor<5x7xi32>, %y: tensor<2x2xi32>) -> (tensor<5x7xi1>, tensor<5x7xi32>, tensor<2x2xi1>, tensor<17xi32>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xi32>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xi32>, tensor<5x7xi32>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xi32>
  %v3 = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xi32>
  return %v1, %v2, %v4, %v5 : tensor<5x7xi1>, tensor<5x7xi32>, tensor<2x2xi1>, tensor<17xi32>
}

// CHECK-LABEL: // PTX create_i16_kernel0_
func.func @create_i16(%x: tensor<5x7xi16>, %y: tensor<2x2xi16>) -> (tensor<5x7xi1>, tensor<5x7xi16>, tensor<2x2xi1>, tensor<17xi16>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xi16>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xi16>, tensor<5x7xi16>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xi16>
  %v3 = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xi16>, tensor<2x2xi16>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xi16>
  return %v1, %v2, %v4, %v5 : tensor<5x7xi1>, tensor<5x7xi16>, tensor<2x2xi1>, tensor<17xi16>
}

// CHECK-LABEL: // PTX create_i8_kernel0_
func.func @create_i8(%x: tensor<5x7xi8>, %y: tensor<2x2xi8>) -> (tensor<5x7xi1>, tensor<5x7xi8>, tensor<2x2xi1>, tensor<17xi8>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xi8>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xi8>, tensor<5x7xi8>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xi8>
  %v3 = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xi8>, tensor<2x2xi8>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xi8>
  return %v1, %v2, %v4, %v5 : tensor<5x7xi1>, tensor<5x7xi8>, tensor<2x2xi1>, tensor<17xi8>
}

// CHECK-LABEL: // PTX create_ui8_kernel0_
func.func @create_ui8(%x: tensor<5x7xui8>, %y: tensor<2x2xui8>) -> (tensor<5x7xi1>, tensor<5x7xui8>, tensor<2x2xi1>, tensor<17xui8>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xui8>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xui8>, tensor<5x7xui8>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xui8>
  %v3 = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui8>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xui8>, tensor<2x2xui8>) -> tensor<2x2xi1>
  %v5 = kiln.arange 1.000000e+00, 2.000000e+00 : tensor<17xui8>
  return %v1, %v2, %v4, %v5 : tensor<5x7xi1>, tensor<5x7xui8>, tensor<2x2xi1>, tensor<17xui8>
}

// CHECK-LABEL: // PTX create_i1_kernel0_
func.func @create_i1(%x: tensor<5x7xi1>, %y: tensor<2x2xi1>) -> (tensor<5x7xi1>, tensor<5x7xi1>, tensor<2x2xi1>) {
  %v0 = kiln.full 1.000000e+00 : tensor<5x7xi1>
  %v1 = kiln.ne %v0, %x : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  %v2 = kiln.eye : tensor<5x7xi1>
  %v3 = kiln.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %v4 = kiln.ne %v3, %y : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return %v1, %v2, %v4 : tensor<5x7xi1>, tensor<5x7xi1>, tensor<2x2xi1>
}

