//===- Passes.td - Kiln graph transformations ---------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_PASSES_TD
#define KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnDecompose : Pass<"kiln-decompose"> {
  let summary = "Rewrite composite kiln ops into primitive kiln ops";
  let description = [{
    Every op marked `Kiln_Composite` (softmax, log_softmax, logsumexp, mean,
    silu, layer_norm, cross_entropy, dropout, conv1d, mask_fill, embedding)
    becomes primitives that the backends and the fuser know. The max that
    stabilizes softmax and logsumexp is wrapped in `kiln.detach`, because
    the result does not depend on it and its gradient would be wasted work.

    Before:
    ```mlir
    %y = kiln.softmax %x axis = 1 : tensor<4x10xf32>
    ```
    After:
    ```mlir
    %m = kiln.reduce_max %x [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
    %d = kiln.detach %m : tensor<4x1xf32>
    %s = kiln.sub %x, %d : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
    %e = kiln.exp %s : tensor<4x10xf32>
    %t = kiln.sum %e [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
    %r = kiln.recip %t : tensor<4x1xf32>
    %y = kiln.mul %e, %r : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def KilnFuse : Pass<"kiln-fuse", "::mlir::ModuleOp"> {
  let summary = "Group kiln ops into fused kernels, outlined as functions";
  let description = [{
    Forms the kernels that a backend compiles, each outlined into a private
    function tagged `kiln.kernel = "<kind>"` and called from the original
    function:

    - `elementwise`: chains of elementwise and broadcast ops of one shape;
    - `reduction`: reductions over the same trailing axes, fused on read with
      elementwise producers and on write with elementwise consumers (softmax
      and layer_norm become one kernel per row);
    - `matmul`: a matmul with its elementwise epilogue (bias, activation,
      residual) and a dequantized right operand;
    - `generic`: any other op, alone.

    An op whose users are in different kernels is computed once, in its own
    kernel; nothing is recomputed. Layout ops and constants stay outside.

    Before:
    ```mlir
    %0 = kiln.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1 = kiln.exp %0 : tensor<8xf32>
    return %1 : tensor<8xf32>
    ```
    After:
    ```mlir
    func.func private @main_kernel0_elementwise(%a: tensor<8xf32>, %b: tensor<8xf32>)
        -> tensor<8xf32> attributes {kiln.kernel = "elementwise"} {
      %0 = kiln.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %1 = kiln.exp %0 : tensor<8xf32>
      return %1 : tensor<8xf32>
    }
    func.func @main(...) {
      %0 = call @main_kernel0_elementwise(%a, %b) : (...) -> tensor<8xf32>
      ...
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // KILN_TRANSFORMS_PASSES_TD
