// RUN: tensor-opt %s --kiln-generate-kernels -split-input-file -verify-diagnostics

// Regression (kiln-mlir-fuzzer): a kernel template that takes a dynamic
// size as an index argument crashed the ABI builder, which reads every
// argument as a tensor.
// expected-error@+1 {{kiln-generate-kernels: the generic kernel @full_kernel takes or returns a value that is not a ranked tensor}}
func.func private @full_kernel(%n: index) -> tensor<?x4xf64>
    attributes {kiln.kernel = "generic"} {
  %0 = kiln.full 0.0 [%n] : tensor<?x4xf64>
  return %0 : tensor<?x4xf64>
}

// -----

// Regression (kiln-mlir-fuzzer): the row generator multiplied a dynamic
// dim into the row length (signed overflow); a dynamic reduction now falls
// back to the generic path, which says that it takes static shapes.
// expected-error@+1 {{the generic lowering of @dynsum takes a buffer that is not a static row-major memref}}
func.func private @dynsum(%x: tensor<2x?xbf16>) -> tensor<1x1xbf16>
    attributes {kiln.kernel = "reduction", kiln.reduced_axes = array<i64: 0, 1>} {
  %0 = kiln.sum %x [0, 1] keepdim : tensor<2x?xbf16> -> tensor<1x1xbf16>
  return %0 : tensor<1x1xbf16>
}
