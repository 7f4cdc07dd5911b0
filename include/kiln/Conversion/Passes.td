//===- Passes.td - Conversions out of the kiln dialect ------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every conversion out of the kiln dialect is declared here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnGenerateKernels : Pass<"kiln-generate-kernels", "::mlir::ModuleOp"> {
  let summary = "Generate loop code for the kernels that --kiln-fuse formed";
  let description = [{
    Kiln's own code generator. Each function tagged `kiln.kernel` by
    `--kiln-fuse` becomes one or more *phase* functions with the kernel ABI

    ```
    func.func @k__p0(%begin: index, %end: index,
                     %in0: memref<?xT0>, ..., %out0: memref<?xTn>, ...)
    ```

    that process the parallel units `[begin, end)` of the kernel over flat,
    contiguous buffers. Each phase carries `kiln.units` (how many units) and
    `kiln.grain` (fewest units worth a thread); the runtime splits the units
    over its threads. Elementwise kernels walk the output in chunks with
    broadcast operands hoisted; reduction kernels walk each row once per
    reduction with the accumulator in registers and then write the row;
    matmul kernels pack the left operand into row panels (phase 0), then
    each unit packs its column block of the right operand one k slice at a
    time and runs a register-tiled vector micro-kernel over the row blocks,
    with the epilogue applied to the tile before it is stored (phase 1);
    transposed operands are read in place while packing; the tile is 8x32 for
    512-bit vectors and 6x16 for 256-bit ones, so that the accumulators fill
    the register file without spilling.

    Before:
    ```mlir
    func.func private @k(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32>
        attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
      %0 = kiln.add %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
      return %0 : tensor<64xf32>
    }
    ```
    After:
    ```mlir
    func.func @k__p0(%begin: index, %end: index, %a: memref<?xf32>,
                     %b: memref<?xf32>, %out: memref<?xf32>)
        attributes {kiln.units = 1, kiln.grain = 1, ...} {
      scf.for %u = %begin to %end step %c1 {
        scf.for %j = %lo to %hi step %c1 {
          %x = memref.load %a[%j] : memref<?xf32>
          %y = memref.load %b[%j] : memref<?xf32>
          %s = arith.addf %x, %y : f32
          memref.store %s, %out[%j] : memref<?xf32>
        }
      }
      return
    }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of the vector registers the micro-kernels target (256 or "
           "512); 0 asks the host">,
    Option<"streamStores", "stream-stores", "int64_t", /*default=*/"-1",
           "Whether outputs of 16 MiB or more are written "
           "with non-temporal stores: 1 yes, 0 no, -1 asks the host (not on "
           "AMD Zen cores, where plain stores measured faster)">,
    Option<"genericDynamicMatmuls", "generic-dynamic-matmuls", "bool",
           /*default=*/"true",
           "A matmul kernel with dynamic dims that the tiled generator does "
           "not take (it takes a dynamic M, and the K of a weight's "
           "gradient) becomes plain linalg loops, two orders of magnitude "
           "slower; false makes that an error instead (the Cpu backend then "
           "compiles the graph for its static sizes)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def KilnExtractKernels : Pass<"kiln-extract-kernels", "::mlir::ModuleOp"> {
  let summary = "Keep only the phase functions that --kiln-generate-kernels "
                "made";
  let description = [{
    The runtime builds its plan from the graph function and the kernel
    templates it calls; what it compiles to machine code is the phase
    functions alone. This pass keeps the phases (`kiln.phase`) and what they
    call (a generic kernel's implementation, runtime functions) and erases
    the rest: the graph function and the templates.

    Before:
    ```mlir
    func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
      %0 = call @k(%x) : (tensor<64xf32>) -> tensor<64xf32>
      return %0 : tensor<64xf32>
    }
    func.func private @k(%x: tensor<64xf32>) -> tensor<64xf32>
        attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} { ... }
    func.func @k__p0(%b: index, %e: index, %x: memref<?xf32>,
                     %o: memref<?xf32>) attributes {kiln.phase = 0 : i64} {...}
    ```
    After: only `@k__p0` is left.
  }];
}

def KilnApproximateMath : Pass<"kiln-approximate-math", "::mlir::ModuleOp"> {
  let summary = "f32 transcendentals as polynomials, which vectorize";
  let description = [{
    `math.exp`, `math.log`, `math.log1p`, `math.tanh`, `math.erf` and the
    other f32 functions whose polynomial approximations are accurate over
    the whole range become arithmetic (MLIR's math expansion and polynomial
    approximation patterns), so that the vectorizer keeps their loops in
    vector registers instead of calling libm per element. `math.sin`,
    `math.cos` and `math.atan2` keep their library calls: the polynomials
    reduce the range with a one-constant Cody-Waite step, which loses all
    precision for large arguments, and atan2's misplaces signed zeros.

    Before:
    ```mlir
    %y = math.exp %x : f32
    ```
    After: no `math.exp`; a polynomial in `arith.mulf`/`math.fma` and an
    exponent built with `arith.bitcast`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def KilnExpandBFloat16 : Pass<"kiln-expand-bf16", "::mlir::ModuleOp"> {
  let summary = "bf16 conversions as integer arithmetic";
  let description = [{
    `arith.extf` from and `arith.truncf` to bf16 become shifts and rounding
    on the bits (round to nearest even). Without AVX512-BF16, LLVM lowers an
    f32 to bf16 truncation to a call of compiler-rt's `__truncsfbf2`, which
    the process need not have (libgcc has it only since GCC 13), and the
    call keeps the loop from vectorizing.

    Before:
    ```mlir
    %y = arith.truncf %x : f32 to bf16
    ```
    After: `arith.bitcast %x : f32 to i32`, integer adds and shifts, and
    `arith.bitcast ... : i16 to bf16`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KilnOutlineLayoutOps
    : Pass<"kiln-outline-layout-ops", "::mlir::ModuleOp"> {
  let summary = "Make each layout op that moves data a kernel of its own";
  let description = [{
    For a backend whose buffers are read only contiguously (Cuda): every
    `kiln.permute`, `kiln.slice` and `kiln.flip` left in the function
    after `--kiln-fuse` in a function that is not a kernel becomes a one-op
    `generic` kernel, outlined as `@<function>_layout<i>` and called in
    its place. Reshapes, squeezes and
    unsqueezes stay: they are a new shape over the same storage.

    Before:
    ```mlir
    func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %0 = kiln.permute %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    }
    ```
    After:
    ```mlir
    func.func private @main_layout0(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32>
        attributes {kiln.kernel = #kiln.kernel_kind<generic>} {
      %0 = kiln.permute %arg0 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    }
    func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %0 = call @main_layout0(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    }
    ```
  }];
}

def KilnGenerateGPUKernels
    : Pass<"kiln-generate-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Generate GPU code (gpu.launch) for the kernels that "
                "--kiln-fuse formed";
  let description = [{
    The GPU counterpart of `--kiln-generate-kernels`. Each function tagged
    `kiln.kernel` becomes a host function `@<kernel>__gpu` whose arguments
    are flat, static, row-major buffers (every input, quantized ones as
    values and scales, every output, then a workspace when the kernel
    needs one: `kiln.workspace` bytes) and whose body is a sequence of
    `gpu.launch` ops, run in order. The launches read nothing but those
    arguments and constants, so that `gpu-kernel-outlining` turns each into
    a kernel whose parameters are the buffers' pointers (the bare-pointer
    calling convention). The arithmetic of every op comes from the
    evaluator that the CPU kernels use, so both backends compute the same
    thing.

    - elementwise: one thread per element, or per 16-byte vector when the
      innermost dim allows it, in a grid-stride loop;
    - reductions over trailing axes (softmax, layer_norm, sums): one block
      per row; each reduction accumulates per thread, then across the warp
      with `gpu.shuffle` and across warps through shared memory; long rows
      with a single reduction split over several blocks and a second
      launch;
    - reductions over leading axes: 32 output columns per block, the
      reduced dim split over 8 thread rows and combined in shared memory;
    - matmul (f32): 64x64 tiles staged through shared memory; with `mma`
      (sm_80 and later) each warp multiplies 32x32 with
      `nvgpu.mma.sync` on tensor cores (m16n8k8 TF32, with the operands
      split into high and low TF32 parts so that the result keeps f32
      accuracy), otherwise with a register-tiled SIMT loop; the epilogue
      runs on the tile after it is staged in shared memory;
    - everything else: `--convert-kiln-to-linalg`, bufferization and
      `convert-linalg-to-parallel-loops`; each top-level `scf.parallel` is
      one grid-stride launch, the sequential rest runs in one thread.

    Transcendental functions on f32 (and f16/bf16, computed in f32) are
    replaced by the polynomial approximations the CPU backend uses, and
    sqrt, floor, ceil, fabs and friends by LLVM intrinsics, so the PTX
    needs no libdevice. f64 transcendentals are left to libdevice.

    Before:
    ```mlir
    func.func private @k(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32>
        attributes {kiln.kernel = #kiln.kernel_kind<elementwise>} {
      %0 = kiln.add %a, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      return %0 : tensor<1024xf32>
    }
    ```
    After:
    ```mlir
    func.func @k__gpu(%a: memref<1024xf32>, %b: memref<1024xf32>,
                      %out: memref<1024xf32>) attributes {kiln.kernel_of = "k"} {
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, ...)
                 threads(%tx, %ty, %tz) in (%sx = %c256, ...) {
        scf.for %u = %start to %c256 step %c256 {
          %x = vector.load %a[%i] {alignment = 16} : memref<1024xf32>, vector<4xf32>
          %y = vector.load %b[%i] {alignment = 16} : memref<1024xf32>, vector<4xf32>
          %s = arith.addf %x, %y : vector<4xf32>
          vector.store %s, %out[%i] {alignment = 16} : memref<1024xf32>, vector<4xf32>
        }
        gpu.terminator
      }
      return
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "The GPU the kernels are for (sm_70 ... sm_90): decides whether "
           "matmul may use tensor cores">,
    Option<"mma", "mma", "bool", /*default=*/"true",
           "Use tensor-core MMA for f32 matmul where the chip has it">,
    Option<"keepGraph", "keep-graph", "bool", /*default=*/"true",
           "Keep the functions that call the kernels (the graph); without "
           "it only the host functions remain, ready to be lowered to PTX">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def ConvertKilnToLinalg : Pass<"convert-kiln-to-linalg", "ModuleOp"> {
  let summary = "Lower every kiln op to linalg, tensor, arith, math and scf";
  let description = [{
    Composite ops are first rewritten into primitives (the patterns of
    `--kiln-decompose`); then every kiln op becomes linalg on tensors plus
    tensor, arith and math ops, with scf loops only where the computation
    is a sequential read-modify-write (cumsum's scan, scatter_add). The
    arithmetic of every elementwise op comes from the one emitter that the
    other backends share (`kiln/Conversion/ElementwiseEmitter.h`), so the
    numbers agree with Flex.

    Types: `ui8` becomes `i8` (the emitter keeps the unsigned semantics);
    a quantized tensor `tensor<...xi8|i4, #kiln.quant<...>>` becomes a 1-D
    `tensor<Kxi8>` of stored values (q4: two per byte, element 2k in the low
    nibble), a 1-D tensor of scales (one per block of consecutive row-major
    elements, or one), and one `index` per dynamic dim. Function signatures,
    calls and returns are converted with them.

    Binary ops broadcast with numpy rules: a static size-1 dim is read at
    index 0. Dynamic dims are assumed to match at run time; a dynamic dim
    that is 1 at run time does not broadcast. `kiln.grad` is rejected:
    run `--kiln-autodiff` first.

    Before:
    ```mlir
    func.func @f(%x: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
      %y = kiln.add %x, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
      return %y : tensor<4x3xf32>
    }
    ```
    After:
    ```mlir
    #id = affine_map<(d0, d1) -> (d0, d1)>
    #row = affine_map<(d0, d1) -> (d1)>
    func.func @f(%x: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
      %e = tensor.empty() : tensor<4x3xf32>
      %y = linalg.generic {indexing_maps = [#id, #row, #id],
                           iterator_types = ["parallel", "parallel"]}
          ins(%x, %b : tensor<4x3xf32>, tensor<3xf32>) outs(%e : tensor<4x3xf32>) {
      ^bb0(%u: f32, %v: f32, %o: f32):
        %s = arith.addf %u, %v : f32
        linalg.yield %s : f32
      } -> tensor<4x3xf32>
      return %y : tensor<4x3xf32>
    }
    ```
  }];
  let options = [
    Option<"indexChecks", "index-checks", "bool", /*default=*/"false",
           "Call kiln_bad_index(site, index, size) on every index of "
           "gather, index_select, embedding and scatter_add outside "
           "[0, size) (the Cpu runtime provides it)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
