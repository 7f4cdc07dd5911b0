// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Matmul tiles through shared memory onto tensor cores (mma.sync); other
// element types and shapes go through the generic path.

// SM80-NOT: FAILED
// SM80: matmul_kernel0_matmul__gpu_kernel: ptxas sm_80 ok
// CHECK-NOT: FAILED

// CHECK-LABEL: // PTX matmul_kernel0_matmul__gpu_kernel
// CHECK: ld.shared
// CHECK: mma.sync.aligned
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %0 = kiln.matmul %a, %b : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// The bias and gelu are fused into the matmul kernel's epilogue.
// CHECK-LABEL: // PTX epilogue_kernel0_matmul__gpu_kernel
// CHECK: mma.sync.aligned
func.func @epilogue(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>, %c: tensor<64xf32>) -> tensor<64x64xf32> {
  %0 = kiln.matmul %a, %b : (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
  %1 = kiln.add %0, %c : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %2 = kiln.gelu %1 : tensor<64x64xf32>
  return %2 : tensor<64x64xf32>
}

// CHECK-LABEL: // PTX odd_kernel0_matmul__gpu_kernel
func.func @odd(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// CHECK-LABEL: // PTX batch_kernel0_matmul__gpu_kernel
func.func @batch(%a: tensor<5x32x16xf32>, %b: tensor<5x16x32xf32>) -> tensor<5x32x32xf32> {
  %0 = kiln.matmul %a, %b : (tensor<5x32x16xf32>, tensor<5x16x32xf32>) -> tensor<5x32x32xf32>
  return %0 : tensor<5x32x32xf32>
}

// CHECK-LABEL: // PTX broadcast_kernel0_matmul__gpu_kernel
func.func @broadcast(%a: tensor<8x1x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32> {
  %0 = kiln.matmul %a, %b : (tensor<8x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<8x5x2x4xf32>
  return %0 : tensor<8x5x2x4xf32>
}

// CHECK-LABEL: // PTX half_kernel0_matmul__gpu_kernel
func.func @half(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %0 = kiln.matmul %a, %b : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  return %0 : tensor<64x64xf16>
}

// CHECK-LABEL: // PTX others_kernel0_matmul__gpu_kernel
func.func @others(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<8x8xf64>, %d: tensor<8x8xf64>, %i: tensor<8x8xi32>, %j: tensor<8x8xi32>) -> (tensor<16x16xbf16>, tensor<8x8xf64>, tensor<8x8xi32>) {
  %0 = kiln.matmul %a, %b : (tensor<16x16xbf16>, tensor<16x16xbf16>) -> tensor<16x16xbf16>
  %1 = kiln.matmul %c, %d : (tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64>
  %2 = kiln.matmul %i, %j : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
  return %0, %1, %2 : tensor<16x16xbf16>, tensor<8x8xf64>, tensor<8x8xi32>
}

// Matmuls of every numeric dtype, batched and broadcast (generic path
// except f32/f16/bf16).

// CHECK-LABEL: // PTX every_dtype_kernel0_
func.func @every_dtype(%af64: tensor<3x5x7xf64>, %bf64: tensor<7x9xf64>, %af32: tensor<3x5x7xf32>, %bf32: tensor<7x9xf32>, %af16: tensor<3x5x7xf16>, %bf16: tensor<7x9xf16>, %abf16: tensor<3x5x7xbf16>, %bbf16: tensor<7x9xbf16>, %ai64: tensor<3x5x7xi64>, %bi64: tensor<7x9xi64>, %ai32: tensor<3x5x7xi32>, %bi32: tensor<7x9xi32>, %ai16: tensor<3x5x7xi16>, %bi16: tensor<7x9xi16>, %ai8: tensor<3x5x7xi8>, %bi8: tensor<7x9xi8>, %aui8: tensor<3x5x7xui8>, %bui8: tensor<7x9xui8>) -> (tensor<3x5x9xf64>, tensor<3x5x9xf32>, tensor<3x5x9xf16>, tensor<3x5x9xbf16>, tensor<3x5x9xi64>, tensor<3x5x9xi32>, tensor<3x5x9xi16>, tensor<3x5x9xi8>, tensor<3x5x9xui8>) {
  %v0 = kiln.matmul %af64, %bf64 : (tensor<3x5x7xf64>, tensor<7x9xf64>) -> tensor<3x5x9xf64>
  %v1 = kiln.matmul %af32, %bf32 : (tensor<3x5x7xf32>, tensor<7x9xf32>) -> tensor<3x5x9xf32>
  %v2 = kiln.matmul %af16, %bf16 : (tensor<3x5x7xf16>, tensor<7x9xf16>) -> tensor<3x5x9xf16>
  %v3 = kiln.matmul %abf16, %bbf16 : (tensor<3x5x7xbf16>, tensor<7x9xbf16>) -> tensor<3x5x9xbf16>
  %v4 = kiln.matmul %ai64, %bi64 : (tensor<3x5x7xi64>, tensor<7x9xi64>) -> tensor<3x5x9xi64>
  %v5 = kiln.matmul %ai32, %bi32 : (tensor<3x5x7xi32>, tensor<7x9xi32>) -> tensor<3x5x9xi32>
  %v6 = kiln.matmul %ai16, %bi16 : (tensor<3x5x7xi16>, tensor<7x9xi16>) -> tensor<3x5x9xi16>
  %v7 = kiln.matmul %ai8, %bi8 : (tensor<3x5x7xi8>, tensor<7x9xi8>) -> tensor<3x5x9xi8>
  %v8 = kiln.matmul %aui8, %bui8 : (tensor<3x5x7xui8>, tensor<7x9xui8>) -> tensor<3x5x9xui8>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8 : tensor<3x5x9xf64>, tensor<3x5x9xf32>, tensor<3x5x9xf16>, tensor<3x5x9xbf16>, tensor<3x5x9xi64>, tensor<3x5x9xi32>, tensor<3x5x9xi16>, tensor<3x5x9xi8>, tensor<3x5x9xui8>
}

