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
