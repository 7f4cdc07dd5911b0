// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// The kind of a kernel is one of the dialect's kernel kinds.
// expected-error @+1 {{'func.func' op 'kiln.kernel' must be a #kiln.kernel_kind (elementwise, reduction, matmul or generic), got "elementwise"}}
func.func private @k(%a: tensor<4xf32>) -> tensor<4xf32>
    attributes {kiln.kernel = "elementwise"} {
  return %a : tensor<4xf32>
}

// -----

func.func private @k(%a: tensor<4xf32>) -> tensor<4xf32>
    // expected-error @+2 {{expected ::mlir::kiln::KernelKind to be one of: elementwise, reduction, matmul, generic}}
    // expected-error @+1 {{failed to parse Kiln_KernelKindAttr parameter 'value'}}
    attributes {kiln.kernel = #kiln.kernel_kind<convolution>} {
  return %a : tensor<4xf32>
}

// -----

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.exp' op 'kiln.kernel' marks a kernel function, not this op}}
  %0 = kiln.exp %a {kiln.kernel = #kiln.kernel_kind<elementwise>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
