// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg %lower-to-llvm | FileCheck %s --check-prefix=LLVM %not-lowered

// A quantized tensor becomes (values: tensor<Kxi8>, scales, one index per
// dynamic dim), in signatures and calls too. quantize computes the block
// scales and levels in f64; q4 packs element 2k low and 2k + 1 high.

// CHECK-LABEL: func.func @q8(
// CHECK-SAME: %[[X:.*]]: tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<4x64xf32> into tensor<256xf32>
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [8, 32] : tensor<256xf32> into tensor<8x32xf32>
// max|x| per block, NaN ignored:
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<8x32xf32>) outs(%{{.*}} : tensor<8xf64>)
// CHECK: math.absf
// CHECK: arith.maxnumf
// The stored scale, 1 where it is 0 or not finite:
// CHECK: %[[SC:.*]]:2 = linalg.generic {{.*}} ins(%[[MAX]] : tensor<8xf64>) outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf64>)
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// Levels: round half to even, clamp to [-127, 127], NaN to 0.
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[BLOCKS]], %[[SC]]#1 : tensor<8x32xf32>, tensor<8xf64>) outs(%{{.*}} : tensor<8x32xi8>)
// CHECK: math.roundeven
// CHECK: arith.constant -1.270000e+02 : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i8
// CHECK: %[[V:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1]] : tensor<8x32xi8> into tensor<256xi8>
// dequantize reads value e and scale e / 32:
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x64xf32>)
// CHECK: tensor.extract %[[V]][%[[E:.*]]] : tensor<256xi8>
// CHECK: %[[B:.*]] = arith.divui %[[E]]
// CHECK: tensor.extract %[[SC]]#0[%[[B]]] : tensor<8xf32>
// CHECK: arith.sitofp %{{.*}} : i8 to f32
// CHECK: arith.mulf
// CHECK-NOT: kiln.
func.func @q8(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %q = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>>
  %d = kiln.dequantize %q : tensor<4x64xi8, #kiln.quant<q8, symmetric, block = 32, scale = f32>> -> tensor<4x64xf32>
  return %d : tensor<4x64xf32>
}

// CHECK-LABEL: func.func @q4(
// CHECK-SAME: %{{.*}}: tensor<15xf16>) -> (tensor<8xi8>, tensor<1xf16>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.constant -7.000000e+00 : f64
// CHECK: %[[L:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x15xi8> into tensor<15xi8>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi8>)
// CHECK: %[[K:.*]] = linalg.index 0 : index
// CHECK: %[[EVEN:.*]] = arith.muli %[[K]]
// CHECK: %[[LO:.*]] = tensor.extract %[[L]][%[[EVEN]]] : tensor<15xi8>
// CHECK: %[[HI:.*]] = arith.select
// CHECK: %[[LOW:.*]] = arith.andi %[[LO]], %{{.*}} : i8
// CHECK: %[[HIGH:.*]] = arith.shli %[[HI]], %{{.*}} : i8
// CHECK: arith.ori %[[LOW]], %[[HIGH]] : i8
// CHECK: return %[[P]], %{{.*}} : tensor<8xi8>, tensor<1xf16>
// CHECK-NOT: kiln.
func.func @q4(%y: tensor<15xf16>) -> tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> {
  %q = kiln.quantize %y : tensor<15xf16> -> tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
  return %q : tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
}

// A q4 value is its nibble, sign-extended by shifting it to the top and
// back down arithmetically.
// CHECK-LABEL: func.func @dequant_arg(
// CHECK-SAME: %[[V:.*]]: tensor<8xi8>, %[[S:.*]]: tensor<1xf16>) -> tensor<15xbf16>
// CHECK: %[[E:.*]] = linalg.index 0 : index
// CHECK: %[[BYTE:.*]] = tensor.extract %[[V]][%{{.*}}] : tensor<8xi8>
// CHECK: %[[UP:.*]] = arith.shli %[[BYTE]]
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[BYTE]], %[[UP]] : i8
// CHECK: arith.shrsi %[[SEL]]
// CHECK: tensor.extract %[[S]]
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: kiln.
func.func @dequant_arg(%q: tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>) -> tensor<15xbf16> {
  %d = kiln.dequantize %q : tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>> -> tensor<15xbf16>
  return %d : tensor<15xbf16>
}

// A dynamic dim travels as an index next to the flat buffers.
// CHECK-LABEL: func.func @dynamic_result(
// CHECK-SAME: %[[Z:.*]]: tensor<?x32xbf16>) -> (tensor<?xi8>, tensor<?xbf16>, index)
// CHECK: %[[D:.*]] = tensor.dim %[[Z]], %{{.*}} : tensor<?x32xbf16>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%{{.*}}, 16] : tensor<?xbf16> into tensor<?x16xbf16>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi8>, tensor<?xbf16>, index
// CHECK-NOT: kiln.
func.func @dynamic_result(%z: tensor<?x32xbf16>) -> tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>> {
  %q = kiln.quantize %z : tensor<?x32xbf16> -> tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>>
  return %q : tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>>
}

// CHECK-LABEL: func.func @dynamic_arg(
// CHECK-SAME: %{{.*}}: tensor<?xi8>, %{{.*}}: tensor<?xbf16>, %[[N:.*]]: index) -> tensor<?x32xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x32xf32>
// CHECK-NOT: kiln.
func.func @dynamic_arg(%q: tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>>) -> tensor<?x32xf32> {
  %d = kiln.dequantize %q : tensor<?x32xi4, #kiln.quant<q4, symmetric, block = 16, scale = bf16>> -> tensor<?x32xf32>
  return %d : tensor<?x32xf32>
}

// CHECK-LABEL: func.func @call(
// CHECK-SAME: %[[X:.*]]: tensor<15xf16>) -> tensor<15xbf16>
// CHECK: %[[Q:.*]]:2 = call @q4(%[[X]]) : (tensor<15xf16>) -> (tensor<8xi8>, tensor<1xf16>)
// CHECK: call @dequant_arg(%[[Q]]#0, %[[Q]]#1) : (tensor<8xi8>, tensor<1xf16>) -> tensor<15xbf16>
// CHECK-NOT: kiln.
func.func @call(%x: tensor<15xf16>) -> tensor<15xbf16> {
  %q = call @q4(%x) : (tensor<15xf16>) -> tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>
  %d = call @dequant_arg(%q) : (tensor<15xi4, #kiln.quant<q4, symmetric, tensor, scale = f16>>) -> tensor<15xbf16>
  return %d : tensor<15xbf16>
}

// LLVM: llvm.func @q8(
// LLVM: llvm.func @call(
