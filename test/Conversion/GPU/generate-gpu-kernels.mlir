// RUN: tensor-opt %s --kiln-fuse --kiln-generate-gpu-kernels=chip=sm_90 | FileCheck %s
// RUN: tensor-opt %s --kiln-fuse --kiln-generate-gpu-kernels=chip=sm_90 \
// RUN:   --gpu-kernel-outlining | FileCheck %s --check-prefix=OUTLINED

// Outlined, every kernel takes its buffers and nothing else: the runtime
// passes one pointer per buffer. (The constants of the math lowering stay
// inside the launches.)
// OUTLINED: gpu.launch_func @ew_kernel0_elementwise__gpu_kernel::{{.*}} args(%arg0 : memref<4096xf32>, %arg1 : memref<4096xf32>){{$}}
// OUTLINED: gpu.launch_func @rows_kernel0_reduction__gpu_kernel::{{.*}} args(%arg0 : memref<32768xf32>, %arg1 : memref<64xf32>){{$}}
// OUTLINED: gpu.launch_func @mm_kernel0_matmul__gpu_kernel::{{.*}} args(%arg0 : memref<8192xf32>, %arg1 : memref<8192xf32>, %arg2 : memref<16384xf32>){{$}}

// Each fused kernel gets a host function of flat buffers holding its
// gpu.launch; math is lowered so that no libdevice call is needed. The graph
// is kept by default and calls the kernel templates.

// An elementwise kernel: a grid-stride loop over the flat index.
// CHECK-LABEL: func.func @ew_kernel0_elementwise__gpu(
// CHECK-SAME: memref<4096xf32>, %{{.*}}: memref<4096xf32>
// CHECK-SAME: kiln.kernel_of = "ew_kernel0_elementwise"
// CHECK: gpu.launch blocks
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.sqrt"
// CHECK-NOT: math.sqrt
// CHECK: gpu.terminator
func.func @ew(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = kiln.sqrt %x : tensor<4096xf32>
  %1 = kiln.exp %0 : tensor<4096xf32>
  return %1 : tensor<4096xf32>
}

// A row reduction: one block per row, warp shuffles then shared memory.
// CHECK-LABEL: func.func @rows_kernel0_reduction__gpu(
// CHECK: gpu.launch blocks
// CHECK-SAME: workgroup(
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
func.func @rows(%x: tensor<64x512xf32>) -> tensor<64xf32> {
  %0 = kiln.sum %x [1] : tensor<64x512xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// A matmul: tiles in shared memory and tensor-core MMA on sm_90.
// CHECK-LABEL: func.func @mm_kernel0_matmul__gpu(
// CHECK: gpu.launch blocks
// CHECK: #gpu.address_space<workgroup>
// CHECK: nvgpu.mma.sync
func.func @mm(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %0 = kiln.matmul %a, %b : (tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
