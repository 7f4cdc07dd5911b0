// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// The file ends in the middle of a #kiln.quant encoding.
// CHECK: {{.*}}truncated-mid-quant.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}unbalanced '<' character in pretty dialect name

func.func @f(%x: tensor<4x64xf32>) {
  %0 = kiln.quantize %x : tensor<4x64xf32> -> tensor<4x64xi8, #kiln.quant<q8, symm