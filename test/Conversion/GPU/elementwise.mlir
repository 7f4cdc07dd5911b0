// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// Every elementwise op, for each float type and the integer types, gives
// PTX that ptxas accepts for sm_90 and sm_80. Transcendentals are
// approximated in the kernel (no libdevice call may be left behind).

// SM80-NOT: FAILED
// CHECK-NOT: FAILED
// CHECK-NOT: __nv_

// CHECK-LABEL: // PTX unary_f32_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry unary_f32_kernel0_elementwise__gpu_kernel
// CHECK: sqrt.rn.f32
// CHECK: cvt.rmi.f32.f32
// CHECK: cvt.rpi.f32.f32
// CHECK: cvt.rni.f32.f32
func.func @unary_f32(%x: tensor<1024xf32>, %i: tensor<1024xi32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xi32>, tensor<1024xi1>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = kiln.neg %x : tensor<1024xf32>
  %1 = kiln.abs %x : tensor<1024xf32>
  %2 = kiln.exp %x : tensor<1024xf32>
  %3 = kiln.log %x : tensor<1024xf32>
  %4 = kiln.log1p %x : tensor<1024xf32>
  %5 = kiln.sqrt %x : tensor<1024xf32>
  %6 = kiln.rsqrt %x : tensor<1024xf32>
  %7 = kiln.recip %x : tensor<1024xf32>
  %8 = kiln.sin %x : tensor<1024xf32>
  %9 = kiln.cos %x : tensor<1024xf32>
  %10 = kiln.tanh %x : tensor<1024xf32>
  %11 = kiln.sigmoid %x : tensor<1024xf32>
  %12 = kiln.erf %x : tensor<1024xf32>
  %13 = kiln.relu %x : tensor<1024xf32>
  %14 = kiln.gelu %x approximate = tanh : tensor<1024xf32>
  %15 = kiln.floor %x : tensor<1024xf32>
  %16 = kiln.ceil %x : tensor<1024xf32>
  %17 = kiln.round %x : tensor<1024xf32>
  %18 = kiln.sign %x : tensor<1024xf32>
  %19 = kiln.clamp %x [-1.000000e+00, 1.000000e+00] : tensor<1024xf32>
  %20 = kiln.abs %i : tensor<1024xi32>
  %21 = kiln.is_nan %x : tensor<1024xf32> -> tensor<1024xi1>
  %22 = kiln.gelu %x : tensor<1024xf32>
  %23 = kiln.silu %x : tensor<1024xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xi32>, tensor<1024xi1>, tensor<1024xf32>, tensor<1024xf32>
}

// CHECK-LABEL: // PTX unary_f16_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry unary_f16_kernel0_elementwise__gpu_kernel
func.func @unary_f16(%x: tensor<256xf16>) -> (tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>) {
  %0 = kiln.exp %x : tensor<256xf16>
  %1 = kiln.log %x : tensor<256xf16>
  %2 = kiln.sqrt %x : tensor<256xf16>
  %3 = kiln.tanh %x : tensor<256xf16>
  %4 = kiln.erf %x : tensor<256xf16>
  %5 = kiln.abs %x : tensor<256xf16>
  %6 = kiln.floor %x : tensor<256xf16>
  %7 = kiln.sigmoid %x : tensor<256xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<256xf16>
}

// CHECK-LABEL: // PTX unary_bf16_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry unary_bf16_kernel0_elementwise__gpu_kernel
func.func @unary_bf16(%x: tensor<256xbf16>) -> (tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>) {
  %0 = kiln.exp %x : tensor<256xbf16>
  %1 = kiln.rsqrt %x : tensor<256xbf16>
  %2 = kiln.sin %x : tensor<256xbf16>
  %3 = kiln.cos %x : tensor<256xbf16>
  %4 = kiln.abs %x : tensor<256xbf16>
  %5 = kiln.round %x : tensor<256xbf16>
  %6 = kiln.gelu %x : tensor<256xbf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>, tensor<256xbf16>
}

// CHECK-LABEL: // PTX unary_f64_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry unary_f64_kernel0_elementwise__gpu_kernel
// CHECK: sqrt.rn.f64
func.func @unary_f64(%x: tensor<256xf64>, %y: tensor<256xf64>) -> (tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>) {
  %0 = kiln.exp %x : tensor<256xf64>
  %1 = kiln.log %x : tensor<256xf64>
  %2 = kiln.sqrt %x : tensor<256xf64>
  %3 = kiln.tanh %x : tensor<256xf64>
  %4 = kiln.abs %x : tensor<256xf64>
  %5 = kiln.floor %x : tensor<256xf64>
  %6 = kiln.pow %x, %y : (tensor<256xf64>, tensor<256xf64>) -> tensor<256xf64>
  %7 = kiln.rem %x, %y : (tensor<256xf64>, tensor<256xf64>) -> tensor<256xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>
}

// CHECK-LABEL: // PTX binary_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry binary_kernel0_elementwise__gpu_kernel
func.func @binary(%x: tensor<64x32xf32>, %y: tensor<32xf32>, %s: tensor<f32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = kiln.add %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %1 = kiln.sub %x, %s : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %2 = kiln.mul %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %3 = kiln.div %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %4 = kiln.pow %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %5 = kiln.max %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %6 = kiln.min %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %7 = kiln.rem %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %8 = kiln.atan2 %x, %y : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}

// CHECK-LABEL: // PTX compare_kernel0_elementwise__gpu_kernel
// CHECK: setp.
func.func @compare(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %u: tensor<3xui8>, %w: tensor<3xui8>, %h: tensor<3xf16>, %g: tensor<3xf16>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = kiln.eq %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = kiln.ne %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = kiln.lt %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = kiln.le %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = kiln.gt %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %5 = kiln.ge %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %6 = kiln.lt %u, %w : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  %7 = kiln.gt %h, %g : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>
}

// CHECK-LABEL: // PTX logic_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry logic_kernel0_elementwise__gpu_kernel
func.func @logic(%a: tensor<4xi1>, %b: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = kiln.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = kiln.or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = kiln.not %a : tensor<4xi1>
  %3 = kiln.where %a, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// CHECK-LABEL: // PTX cast_kernel0_elementwise__gpu_kernel
// CHECK: cvt.
func.func @cast(%x: tensor<64xf32>, %u: tensor<64xui8>, %b: tensor<64xi1>, %h: tensor<64xf16>, %g: tensor<64xbf16>, %l: tensor<64xi64>) -> (tensor<64xi32>, tensor<64xf16>, tensor<64xf32>, tensor<64xi1>, tensor<64xf64>, tensor<64xbf16>, tensor<64xf32>, tensor<64xf16>, tensor<64xui8>, tensor<64xf32>) {
  %0 = kiln.cast %x : tensor<64xf32> -> tensor<64xi32>
  %1 = kiln.cast %x : tensor<64xf32> -> tensor<64xf16>
  %2 = kiln.cast %u : tensor<64xui8> -> tensor<64xf32>
  %3 = kiln.cast %x : tensor<64xf32> -> tensor<64xi1>
  %4 = kiln.cast %b : tensor<64xi1> -> tensor<64xf64>
  %5 = kiln.cast %h : tensor<64xf16> -> tensor<64xbf16>
  %6 = kiln.cast %g : tensor<64xbf16> -> tensor<64xf32>
  %7 = kiln.cast %l : tensor<64xi64> -> tensor<64xf16>
  %8 = kiln.cast %g : tensor<64xbf16> -> tensor<64xui8>
  %9 = kiln.cast %l : tensor<64xi64> -> tensor<64xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<64xi32>, tensor<64xf16>, tensor<64xf32>, tensor<64xi1>, tensor<64xf64>, tensor<64xbf16>, tensor<64xf32>, tensor<64xf16>, tensor<64xui8>, tensor<64xf32>
}

// CHECK-LABEL: // PTX integer_kernel0_elementwise__gpu_kernel
// CHECK: div.s32
func.func @integer(%a: tensor<64xi32>, %b: tensor<64xi32>, %u: tensor<64xui8>, %v: tensor<64xui8>, %l: tensor<64xi64>, %m: tensor<64xi64>) -> (tensor<64xi32>, tensor<64xi32>, tensor<64xui8>, tensor<64xui8>, tensor<64xi64>, tensor<64xi64>) {
  %0 = kiln.div %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %1 = kiln.rem %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %2 = kiln.div %u, %v : (tensor<64xui8>, tensor<64xui8>) -> tensor<64xui8>
  %3 = kiln.max %u, %v : (tensor<64xui8>, tensor<64xui8>) -> tensor<64xui8>
  %4 = kiln.mul %l, %m : (tensor<64xi64>, tensor<64xi64>) -> tensor<64xi64>
  %5 = kiln.abs %l : tensor<64xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<64xi32>, tensor<64xi32>, tensor<64xui8>, tensor<64xui8>, tensor<64xi64>, tensor<64xi64>
}

// Every elementwise op in every dtype it accepts (f64, f32, f16, bf16, the
// signed integers, ui8, bool), and casts between every pair of dtypes.

// CHECK-LABEL: // PTX all_f64_kernel0_
// CHECK: .visible .entry all_f64_kernel0_
func.func @all_f64(%x: tensor<4x8xf64>, %y: tensor<4x8xf64>, %c: tensor<4x8xi1>) -> (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.exp %x : tensor<4x8xf64>
  %v1 = kiln.log %x : tensor<4x8xf64>
  %v2 = kiln.log1p %x : tensor<4x8xf64>
  %v3 = kiln.sqrt %x : tensor<4x8xf64>
  %v4 = kiln.rsqrt %x : tensor<4x8xf64>
  %v5 = kiln.recip %x : tensor<4x8xf64>
  %v6 = kiln.sin %x : tensor<4x8xf64>
  %v7 = kiln.cos %x : tensor<4x8xf64>
  %v8 = kiln.tanh %x : tensor<4x8xf64>
  %v9 = kiln.sigmoid %x : tensor<4x8xf64>
  %v10 = kiln.erf %x : tensor<4x8xf64>
  %v11 = kiln.floor %x : tensor<4x8xf64>
  %v12 = kiln.ceil %x : tensor<4x8xf64>
  %v13 = kiln.round %x : tensor<4x8xf64>
  %v14 = kiln.silu %x : tensor<4x8xf64>
  %v15 = kiln.gelu %x : tensor<4x8xf64>
  %v16 = kiln.gelu %x approximate = tanh : tensor<4x8xf64>
  %v17 = kiln.is_nan %x : tensor<4x8xf64> -> tensor<4x8xi1>
  %v18 = kiln.pow %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v19 = kiln.atan2 %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v20 = kiln.neg %x : tensor<4x8xf64>
  %v21 = kiln.abs %x : tensor<4x8xf64>
  %v22 = kiln.relu %x : tensor<4x8xf64>
  %v23 = kiln.sign %x : tensor<4x8xf64>
  %v24 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xf64>
  %v25 = kiln.add %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v26 = kiln.sub %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v27 = kiln.mul %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v28 = kiln.div %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v29 = kiln.max %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v30 = kiln.min %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v31 = kiln.rem %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v32 = kiln.eq %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v33 = kiln.ne %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v34 = kiln.lt %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v35 = kiln.le %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v36 = kiln.gt %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v37 = kiln.ge %x, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v38 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  %v39 = kiln.detach %x : tensor<4x8xf64>
  %v40 = kiln.ne %v39, %y : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %v41 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xf32>
  %v42 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xf16>
  %v43 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xbf16>
  %v44 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xi64>
  %v45 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xi32>
  %v46 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xi16>
  %v47 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xi8>
  %v48 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xui8>
  %v49 = kiln.cast %x : tensor<4x8xf64> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29, %v30, %v31, %v32, %v33, %v34, %v35, %v36, %v37, %v38, %v40, %v41, %v42, %v43, %v44, %v45, %v46, %v47, %v48, %v49 : tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_f32_kernel0_
// CHECK: .visible .entry all_f32_kernel0_
func.func @all_f32(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %c: tensor<4x8xi1>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.exp %x : tensor<4x8xf32>
  %v1 = kiln.log %x : tensor<4x8xf32>
  %v2 = kiln.log1p %x : tensor<4x8xf32>
  %v3 = kiln.sqrt %x : tensor<4x8xf32>
  %v4 = kiln.rsqrt %x : tensor<4x8xf32>
  %v5 = kiln.recip %x : tensor<4x8xf32>
  %v6 = kiln.sin %x : tensor<4x8xf32>
  %v7 = kiln.cos %x : tensor<4x8xf32>
  %v8 = kiln.tanh %x : tensor<4x8xf32>
  %v9 = kiln.sigmoid %x : tensor<4x8xf32>
  %v10 = kiln.erf %x : tensor<4x8xf32>
  %v11 = kiln.floor %x : tensor<4x8xf32>
  %v12 = kiln.ceil %x : tensor<4x8xf32>
  %v13 = kiln.round %x : tensor<4x8xf32>
  %v14 = kiln.silu %x : tensor<4x8xf32>
  %v15 = kiln.gelu %x : tensor<4x8xf32>
  %v16 = kiln.gelu %x approximate = tanh : tensor<4x8xf32>
  %v17 = kiln.is_nan %x : tensor<4x8xf32> -> tensor<4x8xi1>
  %v18 = kiln.pow %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v19 = kiln.atan2 %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v20 = kiln.neg %x : tensor<4x8xf32>
  %v21 = kiln.abs %x : tensor<4x8xf32>
  %v22 = kiln.relu %x : tensor<4x8xf32>
  %v23 = kiln.sign %x : tensor<4x8xf32>
  %v24 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xf32>
  %v25 = kiln.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v26 = kiln.sub %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v27 = kiln.mul %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v28 = kiln.div %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v29 = kiln.max %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v30 = kiln.min %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v31 = kiln.rem %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v32 = kiln.eq %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v33 = kiln.ne %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v34 = kiln.lt %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v35 = kiln.le %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v36 = kiln.gt %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v37 = kiln.ge %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v38 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %v39 = kiln.detach %x : tensor<4x8xf32>
  %v40 = kiln.ne %v39, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %v41 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xf64>
  %v42 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xf16>
  %v43 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  %v44 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xi64>
  %v45 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xi32>
  %v46 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xi16>
  %v47 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xi8>
  %v48 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xui8>
  %v49 = kiln.cast %x : tensor<4x8xf32> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29, %v30, %v31, %v32, %v33, %v34, %v35, %v36, %v37, %v38, %v40, %v41, %v42, %v43, %v44, %v45, %v46, %v47, %v48, %v49 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_f16_kernel0_
// CHECK: .visible .entry all_f16_kernel0_
func.func @all_f16(%x: tensor<4x8xf16>, %y: tensor<4x8xf16>, %c: tensor<4x8xi1>) -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.exp %x : tensor<4x8xf16>
  %v1 = kiln.log %x : tensor<4x8xf16>
  %v2 = kiln.log1p %x : tensor<4x8xf16>
  %v3 = kiln.sqrt %x : tensor<4x8xf16>
  %v4 = kiln.rsqrt %x : tensor<4x8xf16>
  %v5 = kiln.recip %x : tensor<4x8xf16>
  %v6 = kiln.sin %x : tensor<4x8xf16>
  %v7 = kiln.cos %x : tensor<4x8xf16>
  %v8 = kiln.tanh %x : tensor<4x8xf16>
  %v9 = kiln.sigmoid %x : tensor<4x8xf16>
  %v10 = kiln.erf %x : tensor<4x8xf16>
  %v11 = kiln.floor %x : tensor<4x8xf16>
  %v12 = kiln.ceil %x : tensor<4x8xf16>
  %v13 = kiln.round %x : tensor<4x8xf16>
  %v14 = kiln.silu %x : tensor<4x8xf16>
  %v15 = kiln.gelu %x : tensor<4x8xf16>
  %v16 = kiln.gelu %x approximate = tanh : tensor<4x8xf16>
  %v17 = kiln.is_nan %x : tensor<4x8xf16> -> tensor<4x8xi1>
  %v18 = kiln.pow %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v19 = kiln.atan2 %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v20 = kiln.neg %x : tensor<4x8xf16>
  %v21 = kiln.abs %x : tensor<4x8xf16>
  %v22 = kiln.relu %x : tensor<4x8xf16>
  %v23 = kiln.sign %x : tensor<4x8xf16>
  %v24 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xf16>
  %v25 = kiln.add %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v26 = kiln.sub %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v27 = kiln.mul %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v28 = kiln.div %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v29 = kiln.max %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v30 = kiln.min %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v31 = kiln.rem %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v32 = kiln.eq %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v33 = kiln.ne %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v34 = kiln.lt %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v35 = kiln.le %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v36 = kiln.gt %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v37 = kiln.ge %x, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v38 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %v39 = kiln.detach %x : tensor<4x8xf16>
  %v40 = kiln.ne %v39, %y : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xi1>
  %v41 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xf64>
  %v42 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xf32>
  %v43 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xbf16>
  %v44 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xi64>
  %v45 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xi32>
  %v46 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xi16>
  %v47 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xi8>
  %v48 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xui8>
  %v49 = kiln.cast %x : tensor<4x8xf16> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29, %v30, %v31, %v32, %v33, %v34, %v35, %v36, %v37, %v38, %v40, %v41, %v42, %v43, %v44, %v45, %v46, %v47, %v48, %v49 : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_bf16_kernel0_
// CHECK: .visible .entry all_bf16_kernel0_
func.func @all_bf16(%x: tensor<4x8xbf16>, %y: tensor<4x8xbf16>, %c: tensor<4x8xi1>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.exp %x : tensor<4x8xbf16>
  %v1 = kiln.log %x : tensor<4x8xbf16>
  %v2 = kiln.log1p %x : tensor<4x8xbf16>
  %v3 = kiln.sqrt %x : tensor<4x8xbf16>
  %v4 = kiln.rsqrt %x : tensor<4x8xbf16>
  %v5 = kiln.recip %x : tensor<4x8xbf16>
  %v6 = kiln.sin %x : tensor<4x8xbf16>
  %v7 = kiln.cos %x : tensor<4x8xbf16>
  %v8 = kiln.tanh %x : tensor<4x8xbf16>
  %v9 = kiln.sigmoid %x : tensor<4x8xbf16>
  %v10 = kiln.erf %x : tensor<4x8xbf16>
  %v11 = kiln.floor %x : tensor<4x8xbf16>
  %v12 = kiln.ceil %x : tensor<4x8xbf16>
  %v13 = kiln.round %x : tensor<4x8xbf16>
  %v14 = kiln.silu %x : tensor<4x8xbf16>
  %v15 = kiln.gelu %x : tensor<4x8xbf16>
  %v16 = kiln.gelu %x approximate = tanh : tensor<4x8xbf16>
  %v17 = kiln.is_nan %x : tensor<4x8xbf16> -> tensor<4x8xi1>
  %v18 = kiln.pow %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v19 = kiln.atan2 %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v20 = kiln.neg %x : tensor<4x8xbf16>
  %v21 = kiln.abs %x : tensor<4x8xbf16>
  %v22 = kiln.relu %x : tensor<4x8xbf16>
  %v23 = kiln.sign %x : tensor<4x8xbf16>
  %v24 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xbf16>
  %v25 = kiln.add %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v26 = kiln.sub %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v27 = kiln.mul %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v28 = kiln.div %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v29 = kiln.max %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v30 = kiln.min %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v31 = kiln.rem %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v32 = kiln.eq %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v33 = kiln.ne %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v34 = kiln.lt %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v35 = kiln.le %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v36 = kiln.gt %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v37 = kiln.ge %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v38 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %v39 = kiln.detach %x : tensor<4x8xbf16>
  %v40 = kiln.ne %v39, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %v41 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xf64>
  %v42 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  %v43 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xf16>
  %v44 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xi64>
  %v45 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xi32>
  %v46 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xi16>
  %v47 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xi8>
  %v48 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xui8>
  %v49 = kiln.cast %x : tensor<4x8xbf16> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29, %v30, %v31, %v32, %v33, %v34, %v35, %v36, %v37, %v38, %v40, %v41, %v42, %v43, %v44, %v45, %v46, %v47, %v48, %v49 : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xbf16>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_i64_kernel0_
// CHECK: .visible .entry all_i64_kernel0_
func.func @all_i64(%x: tensor<4x8xi64>, %y: tensor<4x8xi64>, %c: tensor<4x8xi1>) -> (tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.neg %x : tensor<4x8xi64>
  %v1 = kiln.abs %x : tensor<4x8xi64>
  %v2 = kiln.relu %x : tensor<4x8xi64>
  %v3 = kiln.sign %x : tensor<4x8xi64>
  %v4 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xi64>
  %v5 = kiln.add %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v6 = kiln.sub %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v7 = kiln.mul %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v8 = kiln.div %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v9 = kiln.max %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v10 = kiln.min %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v11 = kiln.rem %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v12 = kiln.eq %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v13 = kiln.ne %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v14 = kiln.lt %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v15 = kiln.le %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v16 = kiln.gt %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v17 = kiln.ge %x, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v18 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %v19 = kiln.detach %x : tensor<4x8xi64>
  %v20 = kiln.ne %v19, %y : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %v21 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xf64>
  %v22 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xf32>
  %v23 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xf16>
  %v24 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xbf16>
  %v25 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xi32>
  %v26 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xi16>
  %v27 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xi8>
  %v28 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xui8>
  %v29 = kiln.cast %x : tensor<4x8xi64> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29 : tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi64>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_i32_kernel0_
// CHECK: .visible .entry all_i32_kernel0_
func.func @all_i32(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>, %c: tensor<4x8xi1>) -> (tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi32>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.neg %x : tensor<4x8xi32>
  %v1 = kiln.abs %x : tensor<4x8xi32>
  %v2 = kiln.relu %x : tensor<4x8xi32>
  %v3 = kiln.sign %x : tensor<4x8xi32>
  %v4 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xi32>
  %v5 = kiln.add %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v6 = kiln.sub %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v7 = kiln.mul %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v8 = kiln.div %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v9 = kiln.max %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v10 = kiln.min %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v11 = kiln.rem %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v12 = kiln.eq %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v13 = kiln.ne %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v14 = kiln.lt %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v15 = kiln.le %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v16 = kiln.gt %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v17 = kiln.ge %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v18 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %v19 = kiln.detach %x : tensor<4x8xi32>
  %v20 = kiln.ne %v19, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %v21 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xf64>
  %v22 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xf32>
  %v23 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xf16>
  %v24 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xbf16>
  %v25 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xi64>
  %v26 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xi16>
  %v27 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xi8>
  %v28 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xui8>
  %v29 = kiln.cast %x : tensor<4x8xi32> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29 : tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi32>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_i16_kernel0_
// CHECK: .visible .entry all_i16_kernel0_
func.func @all_i16(%x: tensor<4x8xi16>, %y: tensor<4x8xi16>, %c: tensor<4x8xi1>) -> (tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi16>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.neg %x : tensor<4x8xi16>
  %v1 = kiln.abs %x : tensor<4x8xi16>
  %v2 = kiln.relu %x : tensor<4x8xi16>
  %v3 = kiln.sign %x : tensor<4x8xi16>
  %v4 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xi16>
  %v5 = kiln.add %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v6 = kiln.sub %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v7 = kiln.mul %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v8 = kiln.div %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v9 = kiln.max %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v10 = kiln.min %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v11 = kiln.rem %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v12 = kiln.eq %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v13 = kiln.ne %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v14 = kiln.lt %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v15 = kiln.le %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v16 = kiln.gt %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v17 = kiln.ge %x, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v18 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi16>
  %v19 = kiln.detach %x : tensor<4x8xi16>
  %v20 = kiln.ne %v19, %y : (tensor<4x8xi16>, tensor<4x8xi16>) -> tensor<4x8xi1>
  %v21 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xf64>
  %v22 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xf32>
  %v23 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xf16>
  %v24 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xbf16>
  %v25 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xi64>
  %v26 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xi32>
  %v27 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xi8>
  %v28 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xui8>
  %v29 = kiln.cast %x : tensor<4x8xi16> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29 : tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi16>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi16>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi8>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_i8_kernel0_
// CHECK: .visible .entry all_i8_kernel0_
func.func @all_i8(%x: tensor<4x8xi8>, %y: tensor<4x8xi8>, %c: tensor<4x8xi1>) -> (tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xui8>, tensor<4x8xi1>) {
  %v0 = kiln.neg %x : tensor<4x8xi8>
  %v1 = kiln.abs %x : tensor<4x8xi8>
  %v2 = kiln.relu %x : tensor<4x8xi8>
  %v3 = kiln.sign %x : tensor<4x8xi8>
  %v4 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xi8>
  %v5 = kiln.add %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v6 = kiln.sub %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v7 = kiln.mul %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v8 = kiln.div %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v9 = kiln.max %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v10 = kiln.min %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v11 = kiln.rem %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v12 = kiln.eq %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v13 = kiln.ne %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v14 = kiln.lt %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v15 = kiln.le %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v16 = kiln.gt %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v17 = kiln.ge %x, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v18 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi8>
  %v19 = kiln.detach %x : tensor<4x8xi8>
  %v20 = kiln.ne %v19, %y : (tensor<4x8xi8>, tensor<4x8xi8>) -> tensor<4x8xi1>
  %v21 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xf64>
  %v22 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xf32>
  %v23 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xf16>
  %v24 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xbf16>
  %v25 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xi64>
  %v26 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xi32>
  %v27 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xi16>
  %v28 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xui8>
  %v29 = kiln.cast %x : tensor<4x8xi8> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29 : tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xui8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_ui8_kernel0_
// CHECK: .visible .entry all_ui8_kernel0_
func.func @all_ui8(%x: tensor<4x8xui8>, %y: tensor<4x8xui8>, %c: tensor<4x8xi1>) -> (tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xui8>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xi1>) {
  %v0 = kiln.clamp %x [1.000000e+00, 5.000000e+00] : tensor<4x8xui8>
  %v1 = kiln.add %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v2 = kiln.sub %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v3 = kiln.mul %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v4 = kiln.div %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v5 = kiln.max %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v6 = kiln.min %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v7 = kiln.rem %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v8 = kiln.eq %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v9 = kiln.ne %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v10 = kiln.lt %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v11 = kiln.le %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v12 = kiln.gt %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v13 = kiln.ge %x, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v14 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xui8>
  %v15 = kiln.detach %x : tensor<4x8xui8>
  %v16 = kiln.ne %v15, %y : (tensor<4x8xui8>, tensor<4x8xui8>) -> tensor<4x8xi1>
  %v17 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xf64>
  %v18 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xf32>
  %v19 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xf16>
  %v20 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xbf16>
  %v21 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xi64>
  %v22 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xi32>
  %v23 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xi16>
  %v24 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xi8>
  %v25 = kiln.cast %x : tensor<4x8xui8> -> tensor<4x8xi1>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23, %v24, %v25 : tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xui8>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xi1>
}

// CHECK-LABEL: // PTX all_i1_kernel0_
// CHECK: .visible .entry all_i1_kernel0_
func.func @all_i1(%x: tensor<4x8xi1>, %y: tensor<4x8xi1>, %c: tensor<4x8xi1>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>) {
  %v0 = kiln.and %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v1 = kiln.or %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v2 = kiln.not %x : tensor<4x8xi1>
  %v3 = kiln.eq %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v4 = kiln.ne %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v5 = kiln.lt %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v6 = kiln.le %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v7 = kiln.gt %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v8 = kiln.ge %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v9 = kiln.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v10 = kiln.detach %x : tensor<4x8xi1>
  %v11 = kiln.ne %v10, %y : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %v12 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xf64>
  %v13 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xf32>
  %v14 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xf16>
  %v15 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xbf16>
  %v16 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xi64>
  %v17 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xi32>
  %v18 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xi16>
  %v19 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xi8>
  %v20 = kiln.cast %x : tensor<4x8xi1> -> tensor<4x8xui8>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<4x8xi16>, tensor<4x8xi8>, tensor<4x8xui8>
}


// tan is sin / cos, in every float type.
// CHECK-LABEL: // PTX tan_kernel0_elementwise__gpu_kernel
// CHECK: .visible .entry tan_kernel0_elementwise__gpu_kernel
// CHECK: div.rn.f32
// CHECK-LABEL: // PTX tan_kernel1_elementwise__gpu_kernel
// CHECK: div.rn.f64
func.func @tan(%x: tensor<256xf32>, %y: tensor<256xf64>) -> (tensor<256xf32>, tensor<256xf64>) {
  %0 = kiln.tan %x : tensor<256xf32>
  %1 = kiln.tan %y : tensor<256xf64>
  return %0, %1 : tensor<256xf32>, tensor<256xf64>
}
