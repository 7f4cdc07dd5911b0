// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Reductions over rows (the last axis) and columns, for every reduction op:
// block-wide reductions use warp shuffles and shared memory.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED
// CHECK-NOT: __nv_

// CHECK-LABEL: // PTX rows_kernel0_reduction__gpu_kernel
// CHECK: shfl.sync.bfly
// CHECK: st.shared
// CHECK: bar.sync
// CHECK: ld.shared
func.func @rows(%x: tensor<64x512xf32>, %b: tensor<64x512xi1>, %i: tensor<64x512xi32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi64>, tensor<64xi64>, tensor<64xi1>, tensor<64xi1>, tensor<64xi32>) {
  %0 = kiln.sum %x [1] : tensor<64x512xf32> -> tensor<64xf32>
  %1 = kiln.mean %x [1] : tensor<64x512xf32> -> tensor<64xf32>
  %2 = kiln.prod %x [1] : tensor<64x512xf32> -> tensor<64xf32>
  %3 = kiln.reduce_max %x [1] : tensor<64x512xf32> -> tensor<64xf32>
  %4 = kiln.reduce_min %x [1] : tensor<64x512xf32> -> tensor<64xf32>
  %5 = kiln.argmax %x axis = 1 : tensor<64x512xf32> -> tensor<64xi64>
  %6 = kiln.argmin %x axis = 1 : tensor<64x512xf32> -> tensor<64xi64>
  %7 = kiln.any %b [1] : tensor<64x512xi1> -> tensor<64xi1>
  %8 = kiln.all %b [1] : tensor<64x512xi1> -> tensor<64xi1>
  %9 = kiln.reduce_max %i [1] : tensor<64x512xi32> -> tensor<64xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi64>, tensor<64xi64>, tensor<64xi1>, tensor<64xi1>, tensor<64xi32>
}

// CHECK-LABEL: // PTX columns_kernel0_reduction__gpu_kernel
// CHECK: .visible .entry columns_kernel0_reduction__gpu_kernel
func.func @columns(%x: tensor<512x64xf32>, %u: tensor<512x64xui8>) -> (tensor<64xf32>, tensor<1x64xf32>, tensor<64xi64>, tensor<64xui8>, tensor<f32>) {
  %0 = kiln.sum %x [0] : tensor<512x64xf32> -> tensor<64xf32>
  %1 = kiln.reduce_max %x [0] keepdim : tensor<512x64xf32> -> tensor<1x64xf32>
  %2 = kiln.argmax %x axis = 0 : tensor<512x64xf32> -> tensor<64xi64>
  %3 = kiln.reduce_min %u [0] : tensor<512x64xui8> -> tensor<64xui8>
  %4 = kiln.sum %x [0, 1] : tensor<512x64xf32> -> tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<64xf32>, tensor<1x64xf32>, tensor<64xi64>, tensor<64xui8>, tensor<f32>
}

// CHECK-LABEL: // PTX middle_kernel0_reduction__gpu_kernel
func.func @middle(%x: tensor<4x32x16xf32>) -> (tensor<4x16xf32>, tensor<32xf32>) {
  %0 = kiln.sum %x [1] : tensor<4x32x16xf32> -> tensor<4x16xf32>
  %1 = kiln.reduce_max %x [0, 2] : tensor<4x32x16xf32> -> tensor<32xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<32xf32>
}

// CHECK-LABEL: // PTX half_kernel0_reduction__gpu_kernel
// CHECK: shfl.sync.bfly
func.func @half(%x: tensor<8x256xf16>, %y: tensor<8x256xbf16>, %d: tensor<8x256xf64>) -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xf64>) {
  %0 = kiln.sum %x [1] : tensor<8x256xf16> -> tensor<8xf16>
  %1 = kiln.reduce_max %y [1] : tensor<8x256xbf16> -> tensor<8xbf16>
  %2 = kiln.sum %d [1] : tensor<8x256xf64> -> tensor<8xf64>
  return %0, %1, %2 : tensor<8xf16>, tensor<8xbf16>, tensor<8xf64>
}

// CHECK-LABEL: // PTX cumsum_kernel0_
func.func @cumsum(%x: tensor<16x128xf32>, %i: tensor<64xi32>) -> (tensor<16x128xf32>, tensor<64xi32>) {
  %0 = kiln.cumsum %x axis = 1 : tensor<16x128xf32>
  %1 = kiln.cumsum %i axis = 0 : tensor<64xi32>
  return %0, %1 : tensor<16x128xf32>, tensor<64xi32>
}

// CHECK-LABEL: // PTX composites_kernel0_
// CHECK: shfl.sync.bfly
func.func @composites(%x: tensor<32x1000xf32>) -> (tensor<32x1000xf32>, tensor<32x1000xf32>, tensor<32xf32>) {
  %0 = kiln.softmax %x axis = 1 : tensor<32x1000xf32>
  %1 = kiln.log_softmax %x axis = 1 : tensor<32x1000xf32>
  %2 = kiln.logsumexp %x [1] : tensor<32x1000xf32> -> tensor<32xf32>
  return %0, %1, %2 : tensor<32x1000xf32>, tensor<32x1000xf32>, tensor<32xf32>
}

// CHECK-LABEL: // PTX softmax_cols_kernel0_
func.func @softmax_cols(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %0 = kiln.softmax %x axis = 0 : tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}
