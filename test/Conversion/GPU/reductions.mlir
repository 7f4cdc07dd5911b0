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

// Every reduction over rows, columns and a whole tensor (split over two
// launches), arg reductions, cumsum and the softmax family, per dtype.

// CHECK-LABEL: // PTX reduce_f64_kernel0_
func.func @reduce_f64(%x: tensor<8x300xf64>, %y: tensor<300x8xf64>, %z: tensor<262144xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<f64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x300xf64>, tensor<300x8xf64>, tensor<8x300xf64>, tensor<300x8xf64>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xf64> -> tensor<8xf64>
  %v1 = kiln.sum %y [0] : tensor<300x8xf64> -> tensor<8xf64>
  %v2 = kiln.prod %x [1] : tensor<8x300xf64> -> tensor<8xf64>
  %v3 = kiln.prod %y [0] : tensor<300x8xf64> -> tensor<8xf64>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xf64> -> tensor<8xf64>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xf64> -> tensor<8xf64>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xf64> -> tensor<8xf64>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xf64> -> tensor<8xf64>
  %v8 = kiln.sum %z [0] : tensor<262144xf64> -> tensor<f64>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xf64> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xf64> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xf64> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xf64> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xf64>
  %v14 = kiln.mean %x [1] : tensor<8x300xf64> -> tensor<8xf64>
  %v15 = kiln.mean %y [0] : tensor<300x8xf64> -> tensor<8xf64>
  %v16 = kiln.logsumexp %x [1] : tensor<8x300xf64> -> tensor<8xf64>
  %v17 = kiln.logsumexp %y [0] : tensor<300x8xf64> -> tensor<8xf64>
  %v18 = kiln.softmax %x axis = 1 : tensor<8x300xf64>
  %v19 = kiln.softmax %y axis = 0 : tensor<300x8xf64>
  %v20 = kiln.log_softmax %x axis = 1 : tensor<8x300xf64>
  %v21 = kiln.log_softmax %y axis = 0 : tensor<300x8xf64>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<f64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x300xf64>, tensor<300x8xf64>, tensor<8x300xf64>, tensor<300x8xf64>
}

// CHECK-LABEL: // PTX reduce_f32_kernel0_
func.func @reduce_f32(%x: tensor<8x300xf32>, %y: tensor<300x8xf32>, %z: tensor<262144xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x300xf32>, tensor<300x8xf32>, tensor<8x300xf32>, tensor<300x8xf32>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xf32> -> tensor<8xf32>
  %v1 = kiln.sum %y [0] : tensor<300x8xf32> -> tensor<8xf32>
  %v2 = kiln.prod %x [1] : tensor<8x300xf32> -> tensor<8xf32>
  %v3 = kiln.prod %y [0] : tensor<300x8xf32> -> tensor<8xf32>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xf32> -> tensor<8xf32>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xf32> -> tensor<8xf32>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xf32> -> tensor<8xf32>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xf32> -> tensor<8xf32>
  %v8 = kiln.sum %z [0] : tensor<262144xf32> -> tensor<f32>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xf32> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xf32> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xf32> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xf32> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xf32>
  %v14 = kiln.mean %x [1] : tensor<8x300xf32> -> tensor<8xf32>
  %v15 = kiln.mean %y [0] : tensor<300x8xf32> -> tensor<8xf32>
  %v16 = kiln.logsumexp %x [1] : tensor<8x300xf32> -> tensor<8xf32>
  %v17 = kiln.logsumexp %y [0] : tensor<300x8xf32> -> tensor<8xf32>
  %v18 = kiln.softmax %x axis = 1 : tensor<8x300xf32>
  %v19 = kiln.softmax %y axis = 0 : tensor<300x8xf32>
  %v20 = kiln.log_softmax %x axis = 1 : tensor<8x300xf32>
  %v21 = kiln.log_softmax %y axis = 0 : tensor<300x8xf32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x300xf32>, tensor<300x8xf32>, tensor<8x300xf32>, tensor<300x8xf32>
}

// CHECK-LABEL: // PTX reduce_f16_kernel0_
func.func @reduce_f16(%x: tensor<8x300xf16>, %y: tensor<300x8xf16>, %z: tensor<262144xf16>) -> (tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<f16>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8x300xf16>, tensor<300x8xf16>, tensor<8x300xf16>, tensor<300x8xf16>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xf16> -> tensor<8xf16>
  %v1 = kiln.sum %y [0] : tensor<300x8xf16> -> tensor<8xf16>
  %v2 = kiln.prod %x [1] : tensor<8x300xf16> -> tensor<8xf16>
  %v3 = kiln.prod %y [0] : tensor<300x8xf16> -> tensor<8xf16>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xf16> -> tensor<8xf16>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xf16> -> tensor<8xf16>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xf16> -> tensor<8xf16>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xf16> -> tensor<8xf16>
  %v8 = kiln.sum %z [0] : tensor<262144xf16> -> tensor<f16>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xf16> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xf16> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xf16> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xf16> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xf16>
  %v14 = kiln.mean %x [1] : tensor<8x300xf16> -> tensor<8xf16>
  %v15 = kiln.mean %y [0] : tensor<300x8xf16> -> tensor<8xf16>
  %v16 = kiln.logsumexp %x [1] : tensor<8x300xf16> -> tensor<8xf16>
  %v17 = kiln.logsumexp %y [0] : tensor<300x8xf16> -> tensor<8xf16>
  %v18 = kiln.softmax %x axis = 1 : tensor<8x300xf16>
  %v19 = kiln.softmax %y axis = 0 : tensor<300x8xf16>
  %v20 = kiln.log_softmax %x axis = 1 : tensor<8x300xf16>
  %v21 = kiln.log_softmax %y axis = 0 : tensor<300x8xf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21 : tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<f16>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8x300xf16>, tensor<300x8xf16>, tensor<8x300xf16>, tensor<300x8xf16>
}

// CHECK-LABEL: // PTX reduce_bf16_kernel0_
func.func @reduce_bf16(%x: tensor<8x300xbf16>, %y: tensor<300x8xbf16>, %z: tensor<262144xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<bf16>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8x300xbf16>, tensor<300x8xbf16>, tensor<8x300xbf16>, tensor<300x8xbf16>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xbf16> -> tensor<8xbf16>
  %v1 = kiln.sum %y [0] : tensor<300x8xbf16> -> tensor<8xbf16>
  %v2 = kiln.prod %x [1] : tensor<8x300xbf16> -> tensor<8xbf16>
  %v3 = kiln.prod %y [0] : tensor<300x8xbf16> -> tensor<8xbf16>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xbf16> -> tensor<8xbf16>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xbf16> -> tensor<8xbf16>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xbf16> -> tensor<8xbf16>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xbf16> -> tensor<8xbf16>
  %v8 = kiln.sum %z [0] : tensor<262144xbf16> -> tensor<bf16>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xbf16> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xbf16> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xbf16> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xbf16> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xbf16>
  %v14 = kiln.mean %x [1] : tensor<8x300xbf16> -> tensor<8xbf16>
  %v15 = kiln.mean %y [0] : tensor<300x8xbf16> -> tensor<8xbf16>
  %v16 = kiln.logsumexp %x [1] : tensor<8x300xbf16> -> tensor<8xbf16>
  %v17 = kiln.logsumexp %y [0] : tensor<300x8xbf16> -> tensor<8xbf16>
  %v18 = kiln.softmax %x axis = 1 : tensor<8x300xbf16>
  %v19 = kiln.softmax %y axis = 0 : tensor<300x8xbf16>
  %v20 = kiln.log_softmax %x axis = 1 : tensor<8x300xbf16>
  %v21 = kiln.log_softmax %y axis = 0 : tensor<300x8xbf16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<bf16>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8x300xbf16>, tensor<300x8xbf16>, tensor<8x300xbf16>, tensor<300x8xbf16>
}

// CHECK-LABEL: // PTX reduce_i64_kernel0_
func.func @reduce_i64(%x: tensor<8x300xi64>, %y: tensor<300x8xi64>, %z: tensor<262144xi64>) -> (tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<i64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi64>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xi64> -> tensor<8xi64>
  %v1 = kiln.sum %y [0] : tensor<300x8xi64> -> tensor<8xi64>
  %v2 = kiln.prod %x [1] : tensor<8x300xi64> -> tensor<8xi64>
  %v3 = kiln.prod %y [0] : tensor<300x8xi64> -> tensor<8xi64>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xi64> -> tensor<8xi64>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xi64> -> tensor<8xi64>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xi64> -> tensor<8xi64>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xi64> -> tensor<8xi64>
  %v8 = kiln.sum %z [0] : tensor<262144xi64> -> tensor<i64>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xi64> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xi64> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xi64> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xi64> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xi64>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13 : tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<i64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi64>
}

// CHECK-LABEL: // PTX reduce_i32_kernel0_
func.func @reduce_i32(%x: tensor<8x300xi32>, %y: tensor<300x8xi32>, %z: tensor<262144xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<i32>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi32>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xi32> -> tensor<8xi32>
  %v1 = kiln.sum %y [0] : tensor<300x8xi32> -> tensor<8xi32>
  %v2 = kiln.prod %x [1] : tensor<8x300xi32> -> tensor<8xi32>
  %v3 = kiln.prod %y [0] : tensor<300x8xi32> -> tensor<8xi32>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xi32> -> tensor<8xi32>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xi32> -> tensor<8xi32>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xi32> -> tensor<8xi32>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xi32> -> tensor<8xi32>
  %v8 = kiln.sum %z [0] : tensor<262144xi32> -> tensor<i32>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xi32> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xi32> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xi32> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xi32> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xi32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<i32>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi32>
}

// CHECK-LABEL: // PTX reduce_i16_kernel0_
func.func @reduce_i16(%x: tensor<8x300xi16>, %y: tensor<300x8xi16>, %z: tensor<262144xi16>) -> (tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<i16>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi16>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xi16> -> tensor<8xi16>
  %v1 = kiln.sum %y [0] : tensor<300x8xi16> -> tensor<8xi16>
  %v2 = kiln.prod %x [1] : tensor<8x300xi16> -> tensor<8xi16>
  %v3 = kiln.prod %y [0] : tensor<300x8xi16> -> tensor<8xi16>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xi16> -> tensor<8xi16>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xi16> -> tensor<8xi16>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xi16> -> tensor<8xi16>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xi16> -> tensor<8xi16>
  %v8 = kiln.sum %z [0] : tensor<262144xi16> -> tensor<i16>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xi16> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xi16> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xi16> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xi16> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xi16>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13 : tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<8xi16>, tensor<i16>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi16>
}

// CHECK-LABEL: // PTX reduce_i8_kernel0_
func.func @reduce_i8(%x: tensor<8x300xi8>, %y: tensor<300x8xi8>, %z: tensor<262144xi8>) -> (tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<i8>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi8>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xi8> -> tensor<8xi8>
  %v1 = kiln.sum %y [0] : tensor<300x8xi8> -> tensor<8xi8>
  %v2 = kiln.prod %x [1] : tensor<8x300xi8> -> tensor<8xi8>
  %v3 = kiln.prod %y [0] : tensor<300x8xi8> -> tensor<8xi8>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xi8> -> tensor<8xi8>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xi8> -> tensor<8xi8>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xi8> -> tensor<8xi8>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xi8> -> tensor<8xi8>
  %v8 = kiln.sum %z [0] : tensor<262144xi8> -> tensor<i8>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xi8> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xi8> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xi8> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xi8> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xi8>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13 : tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<8xi8>, tensor<i8>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xi8>
}

// CHECK-LABEL: // PTX reduce_ui8_kernel0_
func.func @reduce_ui8(%x: tensor<8x300xui8>, %y: tensor<300x8xui8>, %z: tensor<262144xui8>) -> (tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<ui8>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xui8>) {
  %v0 = kiln.sum %x [1] : tensor<8x300xui8> -> tensor<8xui8>
  %v1 = kiln.sum %y [0] : tensor<300x8xui8> -> tensor<8xui8>
  %v2 = kiln.prod %x [1] : tensor<8x300xui8> -> tensor<8xui8>
  %v3 = kiln.prod %y [0] : tensor<300x8xui8> -> tensor<8xui8>
  %v4 = kiln.reduce_max %x [1] : tensor<8x300xui8> -> tensor<8xui8>
  %v5 = kiln.reduce_max %y [0] : tensor<300x8xui8> -> tensor<8xui8>
  %v6 = kiln.reduce_min %x [1] : tensor<8x300xui8> -> tensor<8xui8>
  %v7 = kiln.reduce_min %y [0] : tensor<300x8xui8> -> tensor<8xui8>
  %v8 = kiln.sum %z [0] : tensor<262144xui8> -> tensor<ui8>
  %v9 = kiln.argmax %x axis = 1 : tensor<8x300xui8> -> tensor<8xi64>
  %v10 = kiln.argmax %y axis = 0 : tensor<300x8xui8> -> tensor<8xi64>
  %v11 = kiln.argmin %x axis = 1 : tensor<8x300xui8> -> tensor<8xi64>
  %v12 = kiln.argmin %y axis = 0 : tensor<300x8xui8> -> tensor<8xi64>
  %v13 = kiln.cumsum %x axis = 1 : tensor<8x300xui8>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13 : tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<ui8>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8x300xui8>
}

// CHECK-LABEL: // PTX reduce_i1_kernel0_
func.func @reduce_i1(%x: tensor<8x300xi1>, %y: tensor<300x8xi1>, %z: tensor<262144xi1>) -> (tensor<8xi1>, tensor<8xi1>, tensor<i1>, tensor<8xi1>, tensor<8xi1>, tensor<i1>) {
  %v0 = kiln.any %x [1] : tensor<8x300xi1> -> tensor<8xi1>
  %v1 = kiln.any %y [0] : tensor<300x8xi1> -> tensor<8xi1>
  %v2 = kiln.any %z [0] : tensor<262144xi1> -> tensor<i1>
  %v3 = kiln.all %x [1] : tensor<8x300xi1> -> tensor<8xi1>
  %v4 = kiln.all %y [0] : tensor<300x8xi1> -> tensor<8xi1>
  %v5 = kiln.all %z [0] : tensor<262144xi1> -> tensor<i1>
  return %v0, %v1, %v2, %v3, %v4, %v5 : tensor<8xi1>, tensor<8xi1>, tensor<i1>, tensor<8xi1>, tensor<8xi1>, tensor<i1>
}

