//===- KilnOpBase.td - Shared op classes of the kiln dialect -*- tablegen -*-=//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPBASE_TD
#define KILN_DIALECT_KILN_IR_KILNOPBASE_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "kiln/Dialect/Kiln/IR/KilnInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

defvar Kiln_Diff = DeclareOpInterfaceMethods<Kiln_DifferentiableOp>;

// Result type inference shared by a family of ops: the body calls one C++
// helper so that the rule is written once.
class Kiln_InferWith<string helper> {
  code inferBody = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return }] # helper # [{($cppClass::getOperationName(), context,
          location, adaptor, inferred);
    }
  }];
}

// y = f(x), same type in and out.
class Kiln_UnaryOp<string mnemonic, Type type, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat([Pure, Kiln_Elementwise,
                                     SameOperandsAndResultType,
                                     InferTypeOpInterface], traits)> {
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// z = f(x, y) with numpy broadcasting. Both operands share a dtype.
class Kiln_BinaryOp<string mnemonic, Type type, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat([Pure, Kiln_Elementwise, InferTypeOpAdaptor],
                                    traits)> {
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferBroadcastSameDType">.inferBody;
}

// Comparisons broadcast like binary ops and give bool.
class Kiln_CompareOp<string mnemonic>
    : Kiln_Op<mnemonic, [Pure, Kiln_Elementwise, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison (" # mnemonic # "), giving bool";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferBroadcastBool">.inferBody;
}

// Reduction over a set of axes, with or without keeping them as size 1.
// `kind` names its kiln::ReductionKind when it has a combine (composites such
// as mean have none).
class Kiln_ReduceOp<string mnemonic, Type inType, Type outType,
                    string helper, list<Trait> traits = [], string kind = "">
    : Kiln_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor],
                                    !if(!empty(kind), [], [Kiln_ReductionOp]),
                                    traits)> {
  let extraClassDeclaration = !if(!empty(kind), "",
      "::kiln::ReductionKind getReductionKind() { return "
      "::kiln::ReductionKind::" # kind # "; }");
  let arguments = (ins inType:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdim);
  let results = (outs outType:$result);
  let assemblyFormat = "$input $axes (`keepdim` $keepdim^)? attr-dict `:` "
                       "type($input) `->` type($result)";
  let extraClassDefinition = Kiln_InferWith<helper>.inferBody;
}

// Reduction along one axis that gives an index (argmax, argmin).
class Kiln_ArgReduceOp<string mnemonic>
    : Kiln_Op<mnemonic, [Pure, Kiln_ComputeBound, Kiln_NeedsElements,
                         InferTypeOpAdaptor]> {
  let arguments = (ins Kiln_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keepdim);
  let results = (outs Kiln_TensorOf<[I64], "i64">:$result);
  let assemblyFormat = "$input `axis` `=` $axis (`keepdim` $keepdim^)? "
                       "attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferArgReduce">.inferBody;
}

// Row-wise op along one axis with the input's type (softmax, cumsum).
class Kiln_AxisOp<string mnemonic, Type type, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                     InferTypeOpInterface], traits)> {
  let arguments = (ins type:$input, I64Attr:$axis);
  let results = (outs type:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNOPBASE_TD
