// RUN: tensor-opt %s --kiln-generate-kernels -split-input-file -verify-diagnostics

// Regression (kiln-mlir-fuzzer): a kernel template that takes a dynamic
// size as an index argument crashed the ABI builder, which reads every
// argument as a tensor.
// expected-error@+1 {{kiln-generate-kernels: the generic kernel @full_kernel takes or returns a value that is not a ranked tensor}}
func.func private @full_kernel(%n: index) -> tensor<?x4xf64>
    attributes {kiln.kernel = #kiln.kernel_kind<generic>} {
  %0 = kiln.full 0.0 [%n] : tensor<?x4xf64>
  return %0 : tensor<?x4xf64>
}
