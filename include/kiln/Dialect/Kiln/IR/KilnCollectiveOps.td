//===- KilnCollectiveOps.td - Collectives over ranks --------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The collectives of data-parallel training. Every rank of a job runs the
// same graph, so every rank makes the same collectives in the same order;
// the ops therefore have side effects (nothing merges, moves across another
// collective or removes them) and stay outside kernels (Kiln_Collective).
// They run on the communicator of the thread that runs the graph
// (kiln/Runtime/Communicator.h); with none, the job is one rank and they
// are identities.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNCOLLECTIVEOPS_TD
#define KILN_DIALECT_KILN_IR_KILNCOLLECTIVEOPS_TD

include "kiln/Dialect/Kiln/IR/KilnOpBase.td"

// The dtypes the communicators reduce.
def Kiln_CollectiveTensor
    : Kiln_TensorOf<[F64, F32, I64, I32], "f64, f32, i64 or i32">;

def Kiln_AllReduceOp : Kiln_Op<"all_reduce", [Kiln_Collective, Kiln_Diff,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "sum or mean of a tensor over the ranks of the job";
  let description = [{
    Every rank gets the same bits. `mean` takes float tensors. The gradient
    is the all-reduce of the gradient (of the same kind).
    `--kiln-bucket-gradients` packs the all-reduces of a step into buckets
    and `--kiln-split-all-reduce` turns each into a start and a wait.

    ```mlir
    %g = kiln.all_reduce mean %x : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_CollectiveTensor:$input, Kiln_AllReduceKind:$kind);
  let results = (outs Kiln_CollectiveTensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kiln_AllReduceStartOp : Kiln_Op<"all_reduce_start", [Kiln_Collective,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "starts an all-reduce; its result is the token of the wait";
  let description = [{
    Hands the tensor to the communicator, which reduces it while the graph
    goes on. The result, the token, is the buffer being reduced: only one
    `kiln.all_reduce_wait` may read it, and its value is the reduction.

    ```mlir
    %t = kiln.all_reduce_start sum %x : tensor<1024xf32>
    ```
  }];
  let arguments = (ins Kiln_CollectiveTensor:$input, Kiln_AllReduceKind:$kind);
  let results = (outs Kiln_CollectiveTensor:$token);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kiln_AllReduceWaitOp : Kiln_Op<"all_reduce_wait", [Kiln_Collective,
    SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "waits for the all-reduce a start began; gives its result";
  let description = [{
    `--kiln-split-all-reduce` places it just before the first reader of the
    result, so that everything between the start and the wait overlaps the
    communication.

    ```mlir
    %r = kiln.all_reduce_wait %t : tensor<1024xf32>
    ```
  }];
  let arguments = (ins Kiln_CollectiveTensor:$token);
  let results = (outs Kiln_CollectiveTensor:$result);
  let assemblyFormat = "$token attr-dict `:` type($token)";
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNCOLLECTIVEOPS_TD
