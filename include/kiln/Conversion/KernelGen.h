//===- KernelGen.h - Kiln's kernel code generator ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Shared pieces of the generators: the kernel ABI, the layout of operands
// relative to a kernel's iteration shape, and an evaluator that emits the
// kiln ops of a kernel template at one position.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_KERNELGEN_H
#define KILN_CONVERSION_KERNELGEN_H

#include "kiln/Conversion/CPUPipeline.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::kiln::kernelgen {

// A phase function carries the kernel contract's kiln.units, kiln.grain,
// kiln.phase, kiln.kernel_of, kiln.workspace and kiln.in_place (the input,
// by template argument number, whose buffer the output may take when it
// dies at the call: the phases read each of its elements before they write
// the same element of the output). See KilnDialect.td.

/// One flat memref argument of a phase function per buffer: every input
/// (quantized ones as values and scales), every output, then the workspace.
struct Abi {
  SmallVector<Type> args; ///< memref<?xT>
  unsigned numInputs = 0, numOutputs = 0;
  bool hasWorkspace = false;
  /// A kernel of dynamic shape takes, last, the values of its dynamic sizes
  /// (memref<?xi64>; one symbol for now, S, at index 0): every dynamic dim
  /// of its operands and results is S.
  bool hasSizes = false;
};

/// The memref ABI of a template kernel function.
Abi abiOf(func::FuncOp tmpl, bool workspace);

/// The workspace argument (memref<?xi8>) of a phase's entry block.
Value workspaceArg(Block &entry, const Abi &abi);

/// Creates phase function `name` (begin, end, abi args...) with its units
/// and grain attributes, an entry block and the builder positioned in it.
func::FuncOp createPhase(OpBuilder &b, ModuleOp module, func::FuncOp tmpl,
                         unsigned phase, const Abi &abi, int64_t units,
                         int64_t grain);

/// Where an operand's elements sit relative to an iteration shape `S`
/// (rank r): the operand's shape padded with leading 1s to rank r, and the
/// row-major strides of its buffer with 0 where it is broadcast.
struct Layout {
  SmallVector<int64_t> shape, strides;
};
Layout layoutOf(ArrayRef<int64_t> operandShape, ArrayRef<int64_t> iterShape);

/// An operand of a reduction over the block of axes [a0, a1) of the
/// iteration shape `full`: its strides over the outer dims (before a0) and
/// the reduced ones, and whether it varies along the inner dims (after
/// a1). Nothing when it varies along some inner dims and not others.
struct BlockReductionLayout {
  SmallVector<int64_t> outer, reduced;
  bool innerFull = false;
};
std::optional<BlockReductionLayout>
blockReductionLayout(ArrayRef<int64_t> operandShape, ArrayRef<int64_t> full,
                     size_t a0, size_t a1);

/// The offset of the element at the multi-index given as digits of the
/// linear index `linear` over `extents` (row-major), for each of `strides`.
SmallVector<Value> offsetsFromLinear(OpBuilder &b, Location loc, Value linear,
                                     ArrayRef<int64_t> extents,
                                     ArrayRef<SmallVector<int64_t>> strides);

/// Index constant.
Value cidx(OpBuilder &b, Location loc, int64_t v);

/// The dynamic size S of a phase with `abi` (hasSizes), read from its sizes
/// argument in `entry`.
Value dynamicSize(OpBuilder &b, Location loc, Block &entry, const Abi &abi);

/// The storage element type of a kiln tensor type.
Type storageElementOf(Type tensorType);

/// Outputs of at least this many bytes are written past the caches. A
/// plain store to a line the core does not hold reads the line from
/// memory first (a third of a unary op's traffic); an output this large
/// would not stay in cache for the next kernel anyway. Its elements are
/// computed into a stack block of kStreamBlock elements, which is copied
/// out a line per non-temporal vector store when it starts on a line (the
/// runtime's kStreamStoreFn(dst, src, bytes), addresses as integers,
/// copies the others); kStreamFenceFn() at the end of the phase orders the
/// stores before the phase's end is seen by other threads.
constexpr int64_t kStreamOutputBytes = int64_t(16) << 20;
constexpr int64_t kStreamBlock = 1024;

/// Whether an output of `numel` elements of storage type `element` is
/// streamed: elements of 4 bytes or more, kStreamOutputBytes in all, on a
/// host that streams (`streamStores`). Kernels with exponentials are
/// streamed too: with the block copied out by the kernel's own vector
/// stores, a 16M-element exp at one thread took 9.0 ms streamed and 12.0
/// ms with plain stores (through the runtime's copy it had been slower
/// streamed), ew_chain 18.0 and 20.4 ms.
bool streamsOutput(int64_t numel, Type element, bool streamStores);

/// Writes out[outOff + i] = value(i) for i in [lo, hi) through stack blocks
/// and non-temporal stores, in phase function `fn` of `module`. `value`
/// builds the element at position i inside the loop that fills a block.
LogicalResult emitStreamedStores(OpBuilder &b, Location loc, func::FuncOp fn,
                                 ModuleOp module, Value out, Value outOff,
                                 Value lo, Value hi, Type element,
                                 function_ref<FailureOr<Value>(Value)> value);

/// Writes out[outOff + i] = value(i) for i in [lo, hi), the stores of one
/// run of an output of `numel` elements: streamed when streamsOutput says
/// so (and `mayStream`), else plain stores. A `numel` known only at run
/// time (S times the static elements) gets both loops, chosen per call by
/// its size, so that a dynamic output streams as its static twin does.
LogicalResult emitOutputStores(OpBuilder &b, Location loc, func::FuncOp fn,
                               ModuleOp module, Value out, Value outOff,
                               Value lo, Value hi, Type element, Value numel,
                               bool mayStream,
                               function_ref<FailureOr<Value>(Value)> value);

/// The ops of A's prologue: the elementwise ops (and splat constants) that
/// compute `root` from the template's arguments, defs before uses. Fails
/// when another kind of op is among them, when one of them has a shape
/// other than `root`'s, or when a value of theirs other than `root` is read
/// outside them (the epilogue would then need it too).
LogicalResult collectPrologue(Value root, llvm::SetVector<Operation *> &ops);

/// Emits the kiln ops of a template at one position. Block arguments are
/// read through `load`; values bound with `bind` are taken as they are.
/// Results are memoized, so each op is emitted once per evaluator.
class Evaluator {
public:
  Evaluator(OpBuilder &b, Location loc,
            std::function<Value(BlockArgument)> load)
      : b(b), loc(loc), load(std::move(load)) {}

  void bind(Value tensor, Value element) { memo[tensor] = element; }
  /// The element of `tensor` at the current position, in storage type.
  FailureOr<Value> eval(Value tensor);
  /// Elements are vectors of `width` lanes instead of scalars.
  void setVectorWidth(int64_t width) { vectorWidth = width; }

private:
  FailureOr<Value> emit(Operation *op);

  OpBuilder &b;
  Location loc;
  std::function<Value(BlockArgument)> load;
  llvm::DenseMap<Value, Value> memo;
  int64_t vectorWidth = 0;
};

/// The iteration shape of a reduction template: the input shape of its
/// reductions, or the shape of its root when it has none.
SmallVector<int64_t> fullShapeOf(func::FuncOp tmpl, Value root);
/// A float accumulator from a storage value (extf when the types differ),
/// and back.
Value widenTo(OpBuilder &b, Location loc, Value v, Type acc);
Value narrowTo(OpBuilder &b, Location loc, Value v, Type storage);

/// Emits one kiln op on storage-typed operands, computing f16 and bf16 in
/// f32 and rounding once at the end, as Flex does.
FailureOr<Value> emitKilnOp(OpBuilder &b, Location loc, Operation *op,
                            ValueRange operands);

/// The generators, one per kernel kind. Each adds phase functions to
/// `module` and leaves `tmpl` untouched.
/// `streamStores`: whether large outputs may be streamed (see
/// streamsOutput).
LogicalResult generateElementwise(func::FuncOp tmpl, ModuleOp module,
                                  bool streamStores);
LogicalResult generateReduction(func::FuncOp tmpl, ModuleOp module,
                                bool streamStores);
/// Register tiling of the matmul micro-kernel.
struct MatmulTiling {
  int64_t mr, nr, mc, kc;
  /// Columns of B a work unit packs per k slice: nc in general, ncSmallM
  /// when a k slice of all of A fits in L2.
  int64_t nc, ncSmallM;
  /// The tiling for vector registers of `bits` (0: the host's).
  static MatmulTiling forVectorBits(int64_t bits);
};
LogicalResult generateMatmul(func::FuncOp tmpl, ModuleOp module,
                             const MatmulTiling &tiling);
LogicalResult generateGeneric(func::FuncOp tmpl, ModuleOp module);
/// A matmul (or a batch of them) whose C has at most 4 rows per matmul
/// (decoding one token) with A an argument and B a plain or q8 [K, N]
/// argument, or B the transpose of an f32 [N, K] one and A an argument or
/// elementwise ops on arguments: B streamed once, not packed (Gemv.cpp).
/// Fails, creating nothing, for any other matmul.
LogicalResult generateGemv(func::FuncOp tmpl, ModuleOp module,
                           int64_t vectorBits);

/// The lowering of one generic kernel, run on a nested module:
/// --convert-kiln-to-linalg with index checks, one-shot bufferization of the
/// function boundaries with identity layouts, results as out-parameters,
/// and the deallocation pipeline.
void buildGenericKernelPipeline(OpPassManager &pm);
/// What runs after it, once strided copies are linalg.copy: loops.
void buildGenericLoopsPipeline(OpPassManager &pm);

/// Lowers the generic kernels that generateGeneric marked, running
/// buildGenericKernelPipeline through `runPipeline` on a nested module,
/// and adds their phase functions.
LogicalResult lowerGenericKernels(
    ModuleOp module,
    function_ref<LogicalResult(OpPassManager &, Operation *)> runPipeline);

} // namespace mlir::kiln::kernelgen

#endif // KILN_CONVERSION_KERNELGEN_H
