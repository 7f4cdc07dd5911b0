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
    matmul kernels pack the right operand into 32-column panels (phase 0)
    and run an 8x32 register-tiled vector micro-kernel over row blocks with
    the epilogue applied to the tile before it is stored (phase 1).

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
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::func::FuncDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
