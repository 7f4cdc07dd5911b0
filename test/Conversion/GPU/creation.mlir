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
