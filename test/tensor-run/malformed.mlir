// A file that does not parse: the parser's diagnostic with file:line:col,
// then tensor-run's error, and exit status 1.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s 2>&1 | FileCheck %s
// CHECK: malformed.mlir:[[@LINE+3]]:{{[0-9]+}}: error: {{.+}}
// CHECK: tensor-run: error: cannot parse {{.*}}malformed.mlir (see the diagnostic above)
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %x, %x : (tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
