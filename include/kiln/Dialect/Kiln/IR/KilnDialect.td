//===- KilnDialect.td - The kiln dialect --------------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_TD
#define KILN_DIALECT_KILN_IR_KILNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::mlir::kiln";
  let summary = "Value-semantic tensor operations recorded by Kiln";
  let description = [{
    The `kiln` dialect is the graph form of a Kiln program. Every operation
    takes and returns builtin ranked tensors (static or dynamic dims) of the
    Kiln dtypes: `f64`, `f32`, `f16`, `bf16`, `i64`, `i32`, `i16`, `i8`,
    `ui8` and `i1` (bool). Quantized tensors are `i8` (q8) or `i4` (q4)
    tensors whose encoding is a `#kiln.quant` scheme.

    Binary operations follow numpy broadcasting. Axes are non-negative and
    in range; the C++ API normalizes negative axes before recording.
    Composite operations (softmax, layer_norm, cross_entropy, ...) are
    rewritten into primitives by `--kiln-decompose`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// DType constraints. A "plain" tensor carries no encoding; quantized tensors
// are only accepted where an op says so.
//===----------------------------------------------------------------------===//

def Kiln_Bool : I<1>;
def Kiln_FloatDType : AnyTypeOf<[F64, F32, F16, BF16]>;
def Kiln_SignedIntDType : AnyTypeOf<[I64, I32, I16, I8]>;
def Kiln_IndexDType : AnyTypeOf<[I64, I32]>;
def Kiln_NumericDType : AnyTypeOf<[F64, F32, F16, BF16, I64, I32, I16, I8, UI8]>;
def Kiln_DType : AnyTypeOf<[F64, F32, F16, BF16, I64, I32, I16, I8, UI8, I1]>;

class Kiln_TensorOf<list<Type> allowed, string what>
    : ConfinedType<RankedTensorOf<allowed>,
        [CPred<"!::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding()">],
        "ranked tensor of " # what,
        "::mlir::RankedTensorType">;

def Kiln_Tensor : Kiln_TensorOf<[Kiln_DType], "any kiln dtype">;
def Kiln_FloatTensor : Kiln_TensorOf<[Kiln_FloatDType], "f64/f32/f16/bf16">;
def Kiln_NumericTensor : Kiln_TensorOf<[Kiln_NumericDType], "a numeric (non-bool) dtype">;
def Kiln_SignedTensor
    : Kiln_TensorOf<[F64, F32, F16, BF16, I64, I32, I16, I8], "a signed dtype">;
def Kiln_BoolTensor : Kiln_TensorOf<[Kiln_Bool], "bool (i1)">;
def Kiln_IndexTensor : Kiln_TensorOf<[Kiln_IndexDType], "i64/i32 indices">;

def Kiln_QuantTensor : Type<
    CPred<"::mlir::kiln::isQuantizedTensorType($_self)">,
    "quantized tensor (i8 or i4 with a #kiln.quant encoding)",
    "::mlir::RankedTensorType">;

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_TD
