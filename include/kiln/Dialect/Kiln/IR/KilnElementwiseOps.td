//===- KilnElementwiseOps.td - Elementwise ops --------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD
#define KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

def Kiln_NegOp : Kiln_UnaryOp<"neg", Kiln_SignedTensor, [Kiln_Diff]> {
  let summary = "-x";
  let hasFolder = 1;
}
def Kiln_AbsOp : Kiln_UnaryOp<"abs", Kiln_SignedTensor, [Kiln_Diff]> {
  let summary = "|x|";
  let hasFolder = 1;
}
def Kiln_ExpOp : Kiln_UnaryOp<"exp", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "e^x";
  let hasFolder = 1;
}
def Kiln_LogOp : Kiln_UnaryOp<"log", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "natural logarithm";
  let hasFolder = 1;
}
def Kiln_Log1pOp : Kiln_UnaryOp<"log1p", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "log(1 + x)";
  let hasFolder = 1;
}
def Kiln_SqrtOp : Kiln_UnaryOp<"sqrt", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "square root";
  let hasFolder = 1;
}
def Kiln_RsqrtOp : Kiln_UnaryOp<"rsqrt", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "1 / sqrt(x)";
  let hasFolder = 1;
}
def Kiln_RecipOp : Kiln_UnaryOp<"recip", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "1 / x";
  let hasFolder = 1;
}
def Kiln_SinOp : Kiln_UnaryOp<"sin", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "sine";
  let hasFolder = 1;
}
def Kiln_CosOp : Kiln_UnaryOp<"cos", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "cosine";
  let hasFolder = 1;
}
def Kiln_TanOp : Kiln_UnaryOp<"tan", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "tangent";
}
def Kiln_TanhOp : Kiln_UnaryOp<"tanh", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "hyperbolic tangent";
  let hasFolder = 1;
}
def Kiln_SigmoidOp : Kiln_UnaryOp<"sigmoid", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "1 / (1 + e^-x)";
  let hasFolder = 1;
}
def Kiln_ErfOp : Kiln_UnaryOp<"erf", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "Gauss error function";
  let hasFolder = 1;
}
def Kiln_ReluOp : Kiln_UnaryOp<"relu", Kiln_SignedTensor, [Kiln_Diff]> {
  let summary = "max(x, 0)";
  let hasFolder = 1;
}
def Kiln_GeluOp : Kiln_Op<"gelu", [Pure, Kiln_Elementwise,
    SameOperandsAndResultType, InferTypeOpInterface, Kiln_Diff]> {
  let summary = "Gaussian error linear unit (exact or tanh approximation)";
  let description = [{
    `approximate = none`: `0.5 x (1 + erf(x / sqrt(2)))`.
    `approximate = tanh`: `0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3)))`.

    ```mlir
    %y = kiln.gelu %x approximate = tanh : tensor<8xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       DefaultValuedAttr<Kiln_GeluApprox,
                         "::mlir::kiln::GeluApprox::None">:$approximate);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat =
      "$input (`approximate` `=` $approximate^)? attr-dict `:` type($input)";
}
def Kiln_SiluOp : Kiln_UnaryOp<"silu", Kiln_FloatTensor, [Kiln_Composite]> {
  let summary = "x * sigmoid(x) (composite)";
}
def Kiln_LogSigmoidOp
    : Kiln_UnaryOp<"log_sigmoid", Kiln_FloatTensor, [Kiln_Composite]> {
  let summary = "log(sigmoid(x)) = min(x, 0) - log1p(e^-|x|) (composite)";
}
def Kiln_HardswishOp
    : Kiln_UnaryOp<"hardswish", Kiln_FloatTensor, [Kiln_Composite]> {
  let summary = "x * clamp(x + 3, 0, 6) / 6 (composite)";
}
def Kiln_MishOp : Kiln_UnaryOp<"mish", Kiln_FloatTensor, [Kiln_Composite]> {
  let summary = "x * tanh(softplus(x)) (composite)";
}

// An activation with float parameters, rewritten into primitives.
class Kiln_ParamActivationOp<string mnemonic, dag params>
    : Kiln_Op<mnemonic, [Pure, Kiln_Elementwise, Kiln_Composite,
                         SameOperandsAndResultType, InferTypeOpInterface]> {
  let arguments = !con((ins Kiln_FloatTensor:$input), params);
  let results = (outs Kiln_FloatTensor:$result);
  let hasVerifier = 1;
}
def Kiln_LeakyReluOp : Kiln_ParamActivationOp<"leaky_relu",
    (ins F64Attr:$negative_slope)> {
  let summary = "x where x > 0, else negative_slope * x (composite)";
  let description = [{
    ```mlir
    %y = kiln.leaky_relu %x negative_slope = 1.000000e-02 : tensor<8xf32>
    ```
  }];
  let assemblyFormat = "$input `negative_slope` `=` $negative_slope attr-dict "
                       "`:` type($input)";
}
def Kiln_EluOp : Kiln_ParamActivationOp<"elu", (ins F64Attr:$alpha)> {
  let summary = "x where x > 0, else alpha * (e^x - 1) (composite)";
  let description = [{
    ```mlir
    %y = kiln.elu %x alpha = 1.000000e+00 : tensor<8xf32>
    ```
  }];
  let assemblyFormat = "$input `alpha` `=` $alpha attr-dict `:` type($input)";
}
def Kiln_SoftplusOp : Kiln_ParamActivationOp<"softplus",
    (ins F64Attr:$beta, F64Attr:$threshold)> {
  let summary = "log(1 + e^(beta x)) / beta, or x where beta x > threshold "
                "(composite)";
  let description = [{
    As PyTorch's softplus. It is computed as
    `(max(beta x, 0) + log1p(e^-|beta x|)) / beta`, which neither overflows
    nor loses the small values, and so has a finite gradient everywhere.

    ```mlir
    %y = kiln.softplus %x beta = 1.000000e+00 threshold = 2.000000e+01 : tensor<8xf32>
    ```
  }];
  let assemblyFormat = "$input `beta` `=` $beta `threshold` `=` $threshold "
                       "attr-dict `:` type($input)";
}
def Kiln_FloorOp : Kiln_UnaryOp<"floor", Kiln_FloatTensor> {
  let summary = "round toward -inf (no gradient)";
  let hasFolder = 1;
}
def Kiln_CeilOp : Kiln_UnaryOp<"ceil", Kiln_FloatTensor> {
  let summary = "round toward +inf (no gradient)";
  let hasFolder = 1;
}
def Kiln_RoundOp : Kiln_UnaryOp<"round", Kiln_FloatTensor> {
  let summary = "round half to even (no gradient)";
  let hasFolder = 1;
}
def Kiln_SignOp : Kiln_UnaryOp<"sign", Kiln_SignedTensor> {
  let summary = "-1, 0 or 1 (no gradient)";
  let hasFolder = 1;
}
def Kiln_ClampOp : Kiln_Op<"clamp", [Pure, Kiln_Elementwise,
    SameOperandsAndResultType, InferTypeOpInterface, Kiln_Diff]> {
  let summary = "min(max(x, min), max)";
  let description = [{
    ```mlir
    %y = kiln.clamp %x [-1.000000e+00, 1.000000e+00] : tensor<8xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat =
      "$input `[` $min `,` $max `]` attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}
def Kiln_IsNanOp : Kiln_Op<"is_nan", [Pure, Kiln_Elementwise,
    InferTypeOpAdaptor]> {
  let summary = "x != x, giving bool";
  let arguments = (ins Kiln_FloatTensor:$input);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferSameShapeBool">.inferBody;
}
def Kiln_NotOp : Kiln_UnaryOp<"not", Kiln_BoolTensor> {
  let summary = "logical not";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Binary, with numpy broadcasting
//===----------------------------------------------------------------------===//

def Kiln_AddOp : Kiln_BinaryOp<"add", Kiln_NumericTensor, [Commutative, Kiln_Diff]> {
  let summary = "x + y";
  let hasFolder = 1;
}
def Kiln_SubOp : Kiln_BinaryOp<"sub", Kiln_NumericTensor, [Kiln_Diff]> {
  let summary = "x - y";
  let hasFolder = 1;
}
def Kiln_MulOp : Kiln_BinaryOp<"mul", Kiln_NumericTensor, [Commutative, Kiln_Diff]> {
  let summary = "x * y";
  let hasFolder = 1;
}
def Kiln_DivOp : Kiln_BinaryOp<"div", Kiln_NumericTensor, [Kiln_Diff]> {
  let summary = "x / y (integers: floor division)";
  let description = [{
    Integer division never traps: `x / 0` is 0, and the minimum of a signed
    type divided by -1 (which overflows) wraps to the minimum, on every
    backend. Floats follow IEEE 754 (`1 / 0` is inf, `0 / 0` NaN).
  }];
  let hasFolder = 1;
}
def Kiln_PowOp : Kiln_BinaryOp<"pow", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "x ^ y";
  let hasFolder = 1;
}
def Kiln_MaxOp : Kiln_BinaryOp<"max", Kiln_NumericTensor, [Commutative, Kiln_Diff]> {
  let summary = "elementwise maximum (NaN propagates)";
  let hasFolder = 1;
}
def Kiln_MinOp : Kiln_BinaryOp<"min", Kiln_NumericTensor, [Commutative, Kiln_Diff]> {
  let summary = "elementwise minimum (NaN propagates)";
  let hasFolder = 1;
}
def Kiln_RemOp : Kiln_BinaryOp<"rem", Kiln_NumericTensor, [Kiln_Diff]> {
  let summary = "remainder with the sign of the divisor (numpy's %)";
  let description = [{
    For integers, `x % 0` is 0 and the minimum of a signed type % -1 is 0:
    neither traps, on any backend.
  }];
  let hasFolder = 1;
}
def Kiln_Atan2Op : Kiln_BinaryOp<"atan2", Kiln_FloatTensor, [Kiln_Diff]> {
  let summary = "atan2(y = lhs, x = rhs)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Comparison, logic, select, cast
//===----------------------------------------------------------------------===//

def Kiln_EqOp : Kiln_CompareOp<"eq"> { let hasFolder = 1; }
def Kiln_NeOp : Kiln_CompareOp<"ne"> { let hasFolder = 1; }
def Kiln_LtOp : Kiln_CompareOp<"lt"> { let hasFolder = 1; }
def Kiln_LeOp : Kiln_CompareOp<"le"> { let hasFolder = 1; }
def Kiln_GtOp : Kiln_CompareOp<"gt"> { let hasFolder = 1; }
def Kiln_GeOp : Kiln_CompareOp<"ge"> { let hasFolder = 1; }

def Kiln_AndOp : Kiln_BinaryOp<"and", Kiln_BoolTensor, [Commutative]> {
  let summary = "logical and";
  let hasFolder = 1;
}
def Kiln_OrOp : Kiln_BinaryOp<"or", Kiln_BoolTensor, [Commutative]> {
  let summary = "logical or";
  let hasFolder = 1;
}

def Kiln_WhereOp : Kiln_Op<"where", [Pure, Kiln_Elementwise,
    InferTypeOpAdaptor, Kiln_Diff]> {
  let summary = "cond ? x : y, with three-way broadcasting";
  let arguments = (ins Kiln_BoolTensor:$condition, Kiln_Tensor:$lhs,
                       Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$condition `,` $lhs `,` $rhs attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDefinition =
      Kiln_InferWith<"::mlir::kiln::inferWhere">.inferBody;
  let hasFolder = 1;
}

def Kiln_CastOp : Kiln_Op<"cast", [Pure, Kiln_Elementwise, Kiln_Diff]> {
  let summary = "convert between dtypes";
  let description = [{
    Float to integer truncates toward zero and saturates; to bool gives
    `x != 0`; bool to numbers gives 0 or 1.

    ```mlir
    %i = kiln.cast %x : tensor<4xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Type":$elementType)>
  ];
}

#endif // KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD
