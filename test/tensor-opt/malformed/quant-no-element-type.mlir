// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// Regression (fuzzing): a quantized tensor type without an element type.
// The parser verifies the #kiln.quant encoding before it checks that an
// element type was parsed, and the verifier read the null type.
// CHECK: {{.*}}quant-no-element-type.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}expected non-function type

func.func @f(%q: tensor<4x, #kiln.quant<q8, symmetric, tensor, scale = f32>>) {
  return
}
