// REQUIRES: ptxas
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_90 \
// RUN:   | %check-ptx --arch sm_90 --print - | FileCheck %s
// RUN: tensor-opt %s --kiln-decompose --kiln-fuse --kiln-gpu-to-ptx=chip=sm_80 \
// RUN:   | %check-ptx --arch sm_80 - | FileCheck %s --check-prefix=SM80

// quantize/dequantize: per-block q8 (fused round trip), per-tensor q4 and a
// quantized argument.

// SM80-NOT: FAILED
// CHECK-NOT: FAILED

// CHECK-LABEL: // PTX q8_kernel0_
// CHECK: cvt.rni
func.func @q8(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %q = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  %d = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf32>
  return %d : tensor<4x64xf32>
}

// CHECK-LABEL: // PTX dequant_arg_kernel0_
func.func @dequant_arg(%q: tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>) -> tensor<15xbf16> {
  %d = kiln.dequantize %q : tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<15xbf16>
  return %d : tensor<15xbf16>
}
