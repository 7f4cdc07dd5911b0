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

    The passes and the code generators talk through the dialect's
    discardable attributes, the kernel contract:

    - from autodiff and checkpointing: `kiln.backward` (an op of the backward
      graph), `kiln.saved` (a forward value the backward graph reads as
      saved), `kiln.recomputed` (a forward op cloned into the backward graph
      instead of saving its value), `kiln.strategy` (on `kiln.grad`: the
      checkpointing strategy) and `kiln.donated` (on a graph function's
      argument: the run gives its buffer up, so it dies at its last reader);
    - from fusion: `kiln.kernel` (an outlined kernel function and its kind:
      elementwise, reduction, matmul, generic) and `kiln.reduced_axes` (the
      trailing axes a reduction kernel reduces);
    - from kernel generation, read by the runtime: `kiln.kernel_of` and
      `kiln.phase` (a phase function and the kernel it belongs to),
      `kiln.units` and `kiln.grain` (its parallel units and the fewest worth
      a thread), `kiln.workspace` (scratch bytes it needs) and
      `kiln.in_place` (the input whose buffer an output may take when the
      input dies at the call), `kiln.vector_code` (the phase is explicit
      vector code already: the Cpu JIT gives it a short LLVM pipeline
      without the loop vectorizer); for kernels of dynamic shape, `kiln.sizes`
      (the phase takes the values of the dynamic sizes as a last buffer of
      i64), `kiln.units_per` = [a, b] (the phase has ceil(S * a / b)
      units for the dynamic size S, in place of `kiln.units`) and
      `kiln.workspace_per` = [p, r, c] (ceil(S / r) * p + c bytes of
      scratch, in place of `kiln.workspace`) and `kiln.size_scale` = n (the
      phase's size is n times the call's: a matmul over [S, T, K] rows
      generated as one of S * T rows; S above is then that product).
  }];
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$backward,
    "::mlir::UnitAttr":$saved,
    "::mlir::UnitAttr":$recomputed,
    "::mlir::StringAttr":$strategy,
    "::mlir::UnitAttr":$donated,
    "::mlir::kiln::KernelKindAttr":$kernel,
    "::mlir::DenseI64ArrayAttr":$reduced_axes,
    "::mlir::StringAttr":$kernel_of,
    "::mlir::IntegerAttr":$phase,
    "::mlir::IntegerAttr":$units,
    "::mlir::IntegerAttr":$grain,
    "::mlir::IntegerAttr":$workspace,
    "::mlir::IntegerAttr":$in_place,
    "::mlir::UnitAttr":$sizes,
    "::mlir::DenseI64ArrayAttr":$units_per,
    "::mlir::DenseI64ArrayAttr":$workspace_per,
    "::mlir::IntegerAttr":$size_scale,
    "::mlir::UnitAttr":$vector_code
  );
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
}

// Every tensor an op reads or makes has an element count, and a size in
// bytes, that fit in 64 bits.
def Kiln_SizedTensors : NativeOpTrait<"SizedTensors"> {
  let cppNamespace = "::mlir::kiln::OpTrait";
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, !listconcat([Kiln_SizedTensors], traits)>;

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

// `dtypes` and `what` are also read by the op signature table
// (KilnOpSignatures.inc), from which the C++ API checks operand dtypes at
// the line that records an op.
class Kiln_TensorOf<list<Type> allowed, string what, Pred extra = TruePred,
                    string shape = "">
    : ConfinedType<RankedTensorOf<allowed>,
        [CPred<"!::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding()">,
         extra],
        shape # "ranked tensor of " # what,
        "::mlir::RankedTensorType"> {
  list<Type> dtypes = allowed;
  string dtypesSummary = what;
}

def Kiln_Tensor : Kiln_TensorOf<[Kiln_DType], "any kiln dtype">;
def Kiln_FloatTensor
    : Kiln_TensorOf<[Kiln_FloatDType], "a float dtype (f64/f32/f16/bf16)">;
def Kiln_NumericTensor : Kiln_TensorOf<[Kiln_NumericDType], "a numeric (non-bool) dtype">;
def Kiln_SignedTensor
    : Kiln_TensorOf<[F64, F32, F16, BF16, I64, I32, I16, I8], "a signed dtype">;
def Kiln_BoolTensor : Kiln_TensorOf<[Kiln_Bool], "bool (i1)">;
def Kiln_IndexTensor : Kiln_TensorOf<[Kiln_IndexDType], "i64/i32 indices">;
def Kiln_I64Scalar : Kiln_TensorOf<[I64], "i64",
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 0">,
    "rank-0 ">;

def Kiln_QuantTensor : Type<
    CPred<"::mlir::kiln::isQuantizedTensorType($_self)">,
    "quantized tensor (i8 or i4 with a #kiln.quant encoding)",
    "::mlir::RankedTensorType">;

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_TD
