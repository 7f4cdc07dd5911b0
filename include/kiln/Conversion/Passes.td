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
    matmul kernels pack the right operand into panels (phase 0) and run a
    register-tiled vector micro-kernel over row blocks with the epilogue
    applied to the tile before it is stored (phase 1); the tile is 8x32 for
    512-bit vectors and 6x16 for 256-bit ones, so that the accumulators fill
    the register file without spilling.

    Before:
    ```mlir
    func.func private @k(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32>
        attributes {kiln.kernel = "elementwise"} {
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
           "512); 0 asks the host">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
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
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
