//===- KilnLinalgOps.td - Linear algebra --------------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNLINALGOPS_TD
#define KILN_DIALECT_KILN_IR_KILNLINALGOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

def Kiln_MatmulOp : Kiln_Op<"matmul", [Pure, Kiln_ComputeBound,
    InferTypeOpAdaptor, Kiln_Diff]> {
  let summary = "batched matrix product with broadcast batch dims";
  let description = [{
    Both operands have rank >= 2. The last two dims multiply as
    `[m, k] x [k, n] -> [m, n]`; the leading (batch) dims broadcast.

    ```mlir
    %c = kiln.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferMatmul">.inferBody;
}

#endif // KILN_DIALECT_KILN_IR_KILNLINALGOPS_TD
