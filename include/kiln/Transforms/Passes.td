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

    `keep` names composites to leave as they are, for a backend that runs
    them in one kernel of its own (a backend that runs `kiln.silu` in one
    pass, where its primitives would be two).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let options = [
    ListOption<"keep", "keep", "std::string",
               "Composite ops to leave as they are (\"kiln.silu\")">
  ];
}

def KilnConvToMatmul : Pass<"kiln-conv-to-matmul"> {
  let summary = "Rewrite 2-D convolutions of one group as products with "
                "their columns";
  let description = [{
    A `kiln.conv2d` with groups 1, f32 and static shapes becomes the
    product of its weight, as `[O, C * KH * KW]`, with `kiln.unfold` of its
    input, plus the bias per row, reshaped to the result. The fuser puts
    the unfold into the matmul's kernel, whose packing reads the windows
    from the input: the columns are never stored. The gradients of such a
    convolution become products too: the input's as a convolution with
    the flipped weight (one per phase of rows and columns when strided),
    the weight's as the output's gradient times the transposed columns.

    Before:
    ```mlir
    %y = kiln.conv2d %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
           : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    ```
    After:
    ```mlir
    %a = kiln.reshape %w [4, 27] : tensor<4x3x3x3xf32> -> tensor<4x27xf32>
    %c = kiln.unfold %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1]
           : tensor<2x3x8x8xf32> -> tensor<2x27x64xf32>
    %m = kiln.matmul %a, %c : (tensor<4x27xf32>, tensor<2x27x64xf32>) -> tensor<2x4x64xf32>
    %r = kiln.reshape %b [4, 1] : tensor<4xf32> -> tensor<4x1xf32>
    %s = kiln.add %m, %r : (tensor<2x4x64xf32>, tensor<4x1xf32>) -> tensor<2x4x64xf32>
    %y = kiln.reshape %s [2, 4, 8, 8] : tensor<2x4x64xf32> -> tensor<2x4x8x8xf32>
    ```

    A convolution of several images with fewer output pixels each than
    `images-in-columns-below` takes the columns of all its images as one
    matrix (`kiln.unfold ... images_in_columns`, `[C * KH * KW, N * OH *
    OW]`), whose product is viewed back as `[N, O, OH, OW]` through a
    permute: per image, its few columns would fill the matmul's register
    tiles only partly. The weight's gradient takes the same columns when
    it is one product over all the images.
  }];
  let options = [
    Option<"imagesInColumnsBelow", "images-in-columns-below", "int64_t",
           /*default=*/"64",
           "Output pixels per image below which the images' columns form "
           "one matrix (0: never)">,
  ];
}

def KilnSplitReductions : Pass<"kiln-split-reductions"> {
  let summary = "Reduce over scattered axes in two steps, trailing block first";
  let description = [{
    A `kiln.sum`, `kiln.prod`, `kiln.reduce_max` or `kiln.reduce_min` in f32
    or f64 whose axes are not one block but end with a block of trailing
    dims becomes a reduction over that block (contiguous rows) with
    keepdim, then one over the other axes, then a view to the result's
    shape. A batch norm's channel sums over [N, C, H, W]:

    Before:
    ```mlir
    %s = kiln.sum %x [0, 2, 3] keepdim : tensor<8x4x5x5xf32> -> tensor<1x4x1x1xf32>
    ```
    After:
    ```mlir
    %r = kiln.sum %x [2, 3] keepdim : tensor<8x4x5x5xf32> -> tensor<8x4x1x1xf32>
    %s = kiln.sum %r [0] keepdim : tensor<8x4x1x1xf32> -> tensor<1x4x1x1xf32>
    ```
  }];
}

def KilnFuse : Pass<"kiln-fuse", "::mlir::ModuleOp"> {
  let summary = "Group kiln ops into fused kernels, outlined as functions";
  let description = [{
    Forms the kernels that a backend compiles, each outlined into a private
    function tagged `kiln.kernel = #kiln.kernel_kind<kind>` and called from
    the original function:

    - `elementwise`: chains of elementwise and broadcast ops of one shape;
    - `reduction`: reductions over the same trailing axes, fused on read with
      elementwise producers and on write with elementwise consumers (softmax
      and layer_norm become one kernel per row);
    - `matmul`: a matmul with its elementwise epilogue (bias, activation,
      residual), a dequantized right operand, and the `kiln.unfold` columns
      of a convolution as its right operand;
    - `generic`: any other op, alone.

    An op whose users are in different kernels is computed once, in its own
    kernel; nothing is recomputed, except values that `--kiln-checkpoint`
    chose to recompute (ops tagged `kiln.recomputed`): an elementwise one
    read by at most 8 ops is copied for each of them, so that every kernel
    that reads it computes it there, and copies that land in one kernel are
    merged (CSE). Layout ops and constants stay outside,
    except that with `transposed-operands` a permute that swaps the last two
    dims of a matmul operand, and has no other user, joins the matmul's
    kernel: a generator that packs matmul operands reads the operand
    transposed while packing it, instead of copying it first; and with
    `matmul-prologues` an elementwise kernel whose one output is read only
    as a matmul's left operand (directly or through that transpose) joins
    the matmul's kernel: a generator that packs matmul operands evaluates
    it while packing, so the value is never stored (Balanced checkpointing's
    recomputation of an activation for a weight gradient costs no pass over
    memory). A kernel fuses at most 256 ops: a longer chain is cut into
    several kernels, since LLVM's time on one kernel grows faster than its
    size.

    Before:
    ```mlir
    %0 = kiln.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %1 = kiln.exp %0 : tensor<8xf32>
    return %1 : tensor<8xf32>
    ```
    After:
    ```mlir
    func.func private @main_kernel0_elementwise(%a: tensor<8xf32>, %b: tensor<8xf32>)
        -> tensor<8xf32> attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
      %0 = kiln.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %1 = kiln.exp %0 : tensor<8xf32>
      return %1 : tensor<8xf32>
    }
    func.func @main(...) {
      %0 = call @main_kernel0_elementwise(%a, %b) : (...) -> tensor<8xf32>
      ...
    ```
  }];
  let options = [
    Option<"transposedOperands", "transposed-operands", "bool",
           /*default=*/"false",
           "Let a matmul kernel take its operands' last-two-dims transposes">,
    Option<"matmulPrologues", "matmul-prologues", "bool",
           /*default=*/"false",
           "Let a matmul kernel take the elementwise kernel that only its "
           "left operand reads">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def KilnDedupeKernels : Pass<"kiln-dedupe-kernels", "::mlir::ModuleOp"> {
  let summary = "Call one copy of kernels that are the same function";
  let description = [{
    Runs after `--kiln-fuse`. Outlined kernels (`kiln.kernel` functions)
    that are identical apart from their names (the same signature,
    attributes and body, as the blocks of a deep model give) are merged:
    every call goes to the first of them and the others are erased. A
    backend then generates and compiles each distinct kernel once, which
    for a model of N identical blocks divides its code generation by about
    N.

    Before:
    ```mlir
    func.func private @main_kernel0_elementwise(%a: tensor<8xf32>) -> tensor<8xf32>
        attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} { ... exp ... }
    func.func private @main_kernel1_elementwise(%a: tensor<8xf32>) -> tensor<8xf32>
        attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} { ... exp ... }
    %0 = call @main_kernel0_elementwise(%x)
    %1 = call @main_kernel1_elementwise(%0)
    ```
    After:
    ```mlir
    func.func private @main_kernel0_elementwise(...) { ... }
    %0 = call @main_kernel0_elementwise(%x)
    %1 = call @main_kernel0_elementwise(%0)
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def KilnDumpDot : Pass<"kiln-dump-dot", "::mlir::ModuleOp"> {
  let summary = "Write each graph function as a Graphviz digraph";
  let description = [{
    Draws every function that is not an outlined kernel as a cluster of one
    digraph: a node per function argument and result, per kernel call
    (labelled with the kernel's kind and the ops it fuses), per layout op
    and constant, and, before `--kiln-fuse`, per kiln op. Each edge is one
    value, labelled with its tensor type. The IR is left unchanged, so the
    pass can sit anywhere in a pipeline and the module is printed as usual.

    The graph goes to stderr by default, so that it never mixes with the IR
    on stdout; `output=-` writes it to stdout (before the IR) and
    `output=FILE` to a file.

    Input, after `--kiln-fuse`:
    ```mlir
    func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
      %0 = call @main_kernel0_elementwise(%a, %b)
          : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32>
    }
    ```
    Output (`tensor-opt --kiln-dump-dot -o /dev/null`, on stderr):
    ```dot
    digraph kiln {
      subgraph "cluster_main" {
        label = "@main";
        n0 [shape=ellipse, label="%arg0"];
        n1 [shape=ellipse, label="%arg1"];
        n2 [shape=box, style=filled, label="elementwise\nadd exp"];
        n0 -> n2 [label="tensor<8xf32>"];
        n1 -> n2 [label="tensor<8xf32>"];
        n3 [shape=ellipse, label="result 0"];
        n2 -> n3 [label="tensor<8xf32>"];
      }
    }
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Where to write the graph: empty for stderr, '-' for stdout, "
           "or a file name">
  ];
}

def KilnAutodiff : Pass<"kiln-autodiff"> {
  let summary = "Reverse-mode differentiation of kiln.grad ops";
  let description = [{
    Replaces each `kiln.grad %loss wrt %x...` with the backward graph in
    kiln ops. Composites are decomposed first; the ops between the `wrt`
    values and the loss are visited in reverse, each contributing its
    vector-Jacobian product (its DifferentiableOpInterface rule, one rule per
    op). Broadcast operands get their cotangent summed back to their shape;
    a value used several times gets the sum of its cotangents, except a
    value read only by slices that tile it along one axis (the pieces of a
    split, such as Q, K and V of one projection), which gets the concat of
    theirs; integer and
    bool values, `kiln.detach` and ops without a rule stop gradients. Every
    created op is tagged `kiln.backward`; afterwards `kiln.detach` is
    removed.

    Before:
    ```mlir
    %y = kiln.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %l = kiln.sum %y [0] : tensor<4xf32> -> tensor<f32>
    %g = kiln.grad %l wrt %x : tensor<f32>, (tensor<4xf32>)
    ```
    After (cotangent of y, then x used twice):
    ```mlir
    %one = kiln.constant {kiln.backward} dense<1.0> : tensor<f32>
    %gy = kiln.expand %d [4] {kiln.backward} : tensor<1xf32> -> tensor<4xf32>
    %a = kiln.mul %gy, %x {kiln.backward} : ...
    %b = kiln.mul %gy, %x {kiln.backward} : ...
    %g = kiln.add %a, %b {kiln.backward} : ...
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def KilnCheckpoint : Pass<"kiln-checkpoint", "::mlir::ModuleOp"> {
  let summary = "Choose which forward values backward saves or recomputes";
  let description = [{
    Runs after `--kiln-autodiff`. A forward value read by backward ops is
    either *saved* (its defining op gets `kiln.saved`; the buffer lives until
    the last backward reader) or *recomputed* (its producers are cloned,
    tagged `kiln.recomputed`, just before the first backward reader, and the
    forward buffer dies after its last forward use).

    - `strategy=disabled` saves every value backward reads.
    - `strategy=balanced` recomputes memory-bound values (elementwise and
      layout ops) from saved compute-bound ones (matmul, conv, reductions,
      gather/scatter). The clones are elementwise, so `--kiln-fuse` fuses
      them into the backward kernels that read them: no extra pass over
      memory. Products of two activations (matmuls whose operands are both
      batched: attention's Q K^T and P V) count as memory-bound: they are
      cheap beside a layer's projections and their results (the scores
      above all, quadratic in the sequence) are recomputed from the saved
      Q, K and V. Values that two or more forward ops read (branch points,
      such as the residual stream between blocks) are saved and end every
      chain, so each block is recomputed from its own input; a chain passes
      through a branch point whose other readers are compute-bound (the
      masked scores that a softmax's max also reads), and a branch point
      computed from compute-bound values alone (a softmax's exponentials)
      is recomputed too. A chain stops at a view that backward reads anyway
      (Q, K and V of one projection) and is saved beyond 8 ops (views do
      not count).
    - `strategy=budget=BYTES` starts from balanced, then simulates the
      step's peak memory and, while it is over BYTES, recomputes the saved
      value that frees the most bytes per unit of recompute work (matmul
      FLOPs, elements touched by other ops), compute-bound ops included.
      If nothing is left to recompute, it warns that the budget cannot be
      met. The simulation runs the kernels the backend will run, in
      program order: with `fuse` the kernels `--kiln-fuse` forms (with the
      same `transposed-operands` and `matmul-prologues`), planned on a copy
      of the function; without it every op alone (as an interpreter runs
      them). Each
      kernel output has a buffer of its own from its kernel to its last
      reader; arguments live throughout, except those marked `kiln.donated`
      (the caller gives their buffers up), which die after their last
      reader like any other value; views live in their source's buffer; an
      elementwise kernel's output takes the buffer of a same-sized input
      that dies there, as the runtimes do (and with `matmul-workspace` so
      does a matmul's when K is one 256-deep k slice, while a matmul holds a
      workspace the size of its left operand).

    Before (balanced):
    ```mlir
    %h = kiln.matmul %x, %w : ...
    %a = kiln.tanh %h : tensor<4x8xf32>
    ... backward: %d = kiln.mul %g, %a {kiln.backward} ...
    ```
    After:
    ```mlir
    %h = kiln.matmul %x, %w {kiln.saved} : ...
    %a = kiln.tanh %h : tensor<4x8xf32>
    %a2 = kiln.tanh %h {kiln.recomputed} : tensor<4x8xf32>
    %d = kiln.mul %g, %a2 {kiln.backward} ...
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"balanced\"",
           "disabled, balanced or budget=BYTES">,
    Option<"fuse", "fuse", "bool", /*default=*/"false",
           "For Budget's model of the step's memory: the backend runs the "
           "kernels of --kiln-fuse (else every op alone)">,
    Option<"transposedOperands", "transposed-operands", "bool",
           /*default=*/"false",
           "The model's --kiln-fuse reads transposes in matmuls">,
    Option<"matmulPrologues", "matmul-prologues", "bool", /*default=*/"false",
           "The model's --kiln-fuse evaluates a matmul's left operand while "
           "packing it">,
    Option<"matmulWorkspace", "matmul-workspace", "bool", /*default=*/"false",
           "A matmul holds a workspace the size of its left operand and "
           "writes in place when K is one k slice">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the peak the plan is simulated to reach">
  ];
}

def KilnBucketGradients
    : Pass<"kiln-bucket-gradients", "::mlir::func::FuncOp"> {
  let summary = "Pack the all-reduces of a step into buckets, one call each";
  let description = [{
    Groups the function's `kiln.all_reduce` ops of static shape by the order
    in which their inputs are made (backward makes the last layer's
    gradients first), as data-parallel training does: the first bucket
    holds up to `first-bucket-bytes` (about 1 MiB, so that communication
    starts early), the others up to `bucket-bytes` (about 25 MiB) and a
    `min-buckets`-th of the step's bytes (a quarter: for a model of 12 MiB,
    buckets of 3 MiB, of which only the last waits for the end of
    backward). A bucket
    takes consecutive all-reduces of one dtype and kind; a tensor larger
    than the limit is a bucket alone. Each bucket of two or more is one
    contiguous buffer (the inputs flattened and concatenated, right after
    the last of them is made), reduced by one `kiln.all_reduce`; each
    result is a view of it (a slice, reshaped).

    Before:
    ```mlir
    %gw = ... backward ...
    %rw = kiln.all_reduce mean %gw : tensor<16x8xf32>
    %gb = ... backward ...
    %rb = kiln.all_reduce mean %gb : tensor<8xf32>
    ```
    After:
    ```mlir
    %fw = kiln.reshape %gw : tensor<16x8xf32> -> tensor<128xf32>
    %b = kiln.concat %fw, %gb axis = 0 : ... -> tensor<136xf32>
    %r = kiln.all_reduce mean %b : tensor<136xf32>
    %sw = kiln.slice %r [0] [128] [1] : ...
    %rw = kiln.reshape %sw : tensor<128xf32> -> tensor<16x8xf32>
    %rb = kiln.slice %r [128] [136] [1] : ...
    ```
  }];
  let options = [
    Option<"firstBucketBytes", "first-bucket-bytes", "int64_t",
           /*default=*/"1 << 20", "Bytes of the first bucket at most">,
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"25 << 20",
           "Bytes of every later bucket at most">,
    Option<"minBuckets", "min-buckets", "int64_t", /*default=*/"4",
           "The later buckets also hold at most this fraction (1/N) of the "
           "step's bytes, so that a model much smaller than bucket-bytes "
           "still reduces most of its gradients during backward">
  ];
}

def KilnSplitAllReduce : Pass<"kiln-split-all-reduce", "::mlir::func::FuncOp"> {
  let summary = "Split each all-reduce into a start and a wait";
  let description = [{
    Each `kiln.all_reduce` becomes a `kiln.all_reduce_start` right after
    its input is made and a `kiln.all_reduce_wait` just before the first
    op that reads the result (before the return when only the return
    does). Everything in between (the rest of backward) runs while the
    communicator reduces. Starts keep their order, and so do waits: every
    rank makes the same calls in the same order.

    Before:
    ```mlir
    %g = kiln.mul %a, %b : tensor<8xf32>
    %h = kiln.exp %c : tensor<8xf32>
    %r = kiln.all_reduce sum %g : tensor<8xf32>
    %u = kiln.add %r, %h : ...
    ```
    After:
    ```mlir
    %g = kiln.mul %a, %b : tensor<8xf32>
    %t = kiln.all_reduce_start sum %g : tensor<8xf32>
    %h = kiln.exp %c : tensor<8xf32>
    %r = kiln.all_reduce_wait %t : tensor<8xf32>
    %u = kiln.add %r, %h : ...
    ```
  }];
}

#endif // KILN_TRANSFORMS_PASSES_TD
