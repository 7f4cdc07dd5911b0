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
//   Kiln_View             a layout op (reshape, permute, slice, ...): it
//                         stays outside kernels and becomes a runtime view.
//   Kiln_OwnKernel        elementwise, but never fused into a chain: it runs
//                         as a kernel of its own (a dequantize reads packed
//                         values; dropout and mask_fill decompose later).
//   Kiln_NeedsElements    a reduction with no value over nothing (max, min,
//                         argmax, argmin): an empty reduced axis is an error,
//                         as in numpy. Sums and products give the identity.
//   Kiln_ChecksIndices    reads or writes at indices that may be known only
//                         at run time (gather, index_select, embedding,
//                         scatter_add, cross_entropy's labels): one outside
//                         [0, size) is an error, at record time when the
//                         indices are known, else when the graph runs
//                         (kiln/Support/IndexCheck.h). The Cuda backend
//                         clamps such indices instead.
//   Kiln_Collective       a collective over the ranks of a job (all_reduce
//                         and its start and wait): it stays outside kernels
//                         as a runtime step, so it is a barrier for fusion,
//                         and it is never recomputed, merged or removed
//                         (every rank must make the same calls in the same
//                         order).
//   Kiln_HostStep         no kernel generator writes it (argsort's comparison
//                         sort): it stays outside kernels and runs as a
//                         runtime step on the host backends (Flex, Cpu), so
//                         it is a barrier for fusion; Cuda has no such step.
//   Kiln_DifferentiableOp the op has a vector-Jacobian product. Ops without
//                         it pass no gradient to their operands.
//   Kiln_ReductionOp      a reduction with a combine (sum, prod, max, min,
//                         any, all): its identity, combine and accumulator
//                         type, for every generator and for Flex. These are
//                         the reductions that fuse with their producers and
//                         consumers.
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
def Kiln_View : Kiln_Fact<"View">;
def Kiln_OwnKernel : Kiln_Fact<"OwnKernel">;
def Kiln_NeedsElements : Kiln_Fact<"NeedsElements">;
def Kiln_ChecksIndices : Kiln_Fact<"ChecksIndices">;
def Kiln_Collective : Kiln_Fact<"Collective">;
def Kiln_HostStep : Kiln_Fact<"HostStep">;

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

def Kiln_ReductionOp : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    A reduction with a combine. Its semantics are `kiln::ReductionKind`'s
    (kiln/Support/Reduction.h); the methods build them as IR, so that every
    code generator reduces the same way.
  }];
  let methods = [
    InterfaceMethod<"What the reduction combines with.",
      "::kiln::ReductionKind", "getReductionKind">,
    InterfaceMethod<
      "The type a compiled reduction of `storage` elements accumulates in.",
      "::mlir::Type", "getAccumulatorType", (ins "::mlir::Type":$storage),
      [{}], [{
        return ::mlir::kiln::reductionAccumulatorType(
            $_op.getReductionKind(), storage);
      }]>,
    InterfaceMethod<
      "The type within a block of kiln::kReductionBlock elements (see "
      "kiln::reductionBlockAccumulator); the accumulator type when the "
      "reduction is not blocked.",
      "::mlir::Type", "getBlockAccumulatorType", (ins "::mlir::Type":$storage),
      [{}], [{
        return ::mlir::kiln::reductionBlockAccumulatorType(
            $_op.getReductionKind(), storage);
      }]>,
    InterfaceMethod<"The identity of the reduction in type `acc`.",
      "::mlir::Value", "buildIdentity",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Type":$acc),
      [{}], [{
        return ::mlir::kiln::buildReductionIdentity(
            b, loc, $_op.getReductionKind(), acc,
            ::mlir::kiln::hasUnsignedInput($_op));
      }]>,
    InterfaceMethod<
      "`acc` combined with `v` (scalars or vectors of the accumulator type).",
      "::mlir::Value", "buildCombine",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Value":$acc, "::mlir::Value":$v),
      [{}], [{
        return ::mlir::kiln::buildReductionCombine(
            b, loc, $_op.getReductionKind(), acc, v,
            ::mlir::kiln::hasUnsignedInput($_op));
      }]>
  ];
}

#endif // KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
