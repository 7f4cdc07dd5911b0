//===- KilnInterfaces.td - Per-op facts of the kiln dialect -*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every fact that a pass asks of an op lives here, attached to the op in ODS:
//
//   Kiln_Elementwise      one output element depends on the input elements at
//                         the same (broadcast) index; fusible in a chain.
//   Kiln_ComputeBound     the op does more arithmetic than memory traffic
//                         (matmul, conv, reductions, gather/scatter). Balanced
//                         checkpointing saves these and recomputes the rest.
//   Kiln_Composite        rewritten into primitives by --kiln-decompose.
//   Kiln_DifferentiableOp the op has a vector-Jacobian product. Ops without
//                         it pass no gradient to their operands.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
#define KILN_DIALECT_KILN_IR_KILNINTERFACES_TD

include "mlir/IR/OpBase.td"

class Kiln_Fact<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::kiln::OpTrait";
}

def Kiln_Elementwise : Kiln_Fact<"Elementwise">;
def Kiln_ComputeBound : Kiln_Fact<"ComputeBound">;
def Kiln_Composite : Kiln_Fact<"Composite">;

def Kiln_DifferentiableOp : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    Reverse-mode rule of an op. `buildVJP` is given one cotangent per result
    (a null value where that result receives no gradient) and appends one
    cotangent per operand to `operandGrads` (null where no gradient flows,
    e.g. integer indices). Each cotangent already has the operand's shape:
    the rule reduces broadcast dimensions itself.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Builds the vector-Jacobian product of this op.",
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"buildVJP",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::mlir::ValueRange":$resultGrads,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

#endif // KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
