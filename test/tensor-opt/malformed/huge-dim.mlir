// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-opt %s 2>&1 | FileCheck %s

// A dim that does not fit in int64.
// CHECK: {{.*}}huge-dim.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}invalid dimension

func.func @f(%a: tensor<99999999999999999999xf32>) {
  return
}
