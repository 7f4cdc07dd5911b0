//===- KernelGen.cpp - Pieces every kernel generator shares ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KernelGen.h"
#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

Value kernelgen::cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

LogicalResult kernelgen::collectPrologue(Value root,
                                         llvm::SetVector<Operation *> &ops) {
  auto rootType = llvm::cast<RankedTensorType>(root.getType());
  if (!rootType.getElementType().isF32())
    return failure();
  SmallVector<std::pair<Operation *, bool>> stack;
  stack.push_back({root.getDefiningOp(), false});
  while (!stack.empty()) {
    auto [op, visited] = stack.pop_back_val();
    if (ops.contains(op))
      continue;
    if (visited) {
      ops.insert(op);
      continue;
    }
    if (llvm::isa<ConstantOp>(op)) {
      auto c = llvm::cast<ConstantOp>(op);
      auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense || !dense.isSplat())
        return failure();
      ops.insert(op);
      continue;
    }
    if (!isFusibleElementwise(op) || op->getNumResults() != 1 ||
        llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape() !=
            rootType.getShape())
      return failure();
    stack.push_back({op, true});
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        stack.push_back({def, false});
  }
  for (Operation *op : ops)
    for (Operation *u : op->getResult(0).getUsers())
      if (!ops.contains(u) &&
          !(op->getResult(0) == root &&
            (llvm::isa<MatmulOp>(u) || isMatrixTranspose(u))))
        return failure();
  return success();
}

Type kernelgen::storageElementOf(Type tensorType) {
  return storageTypeOf(llvm::cast<ShapedType>(tensorType).getElementType());
}

bool kernelgen::streamsOutput(int64_t numel, Type element, bool streamStores) {
  if (!streamStores || !element.isIntOrFloat())
    return false;
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  return bytes >= 4 && numel * bytes >= kStreamOutputBytes;
}

/// `name(args)` returning nothing, declared in `module` on first use.
static void callRuntime(OpBuilder &b, Location loc, ModuleOp module,
                        StringRef name, ValueRange args) {
  if (!module.lookupSymbol<func::FuncOp>(name)) {
    OpBuilder mb(module.getBodyRegion());
    auto decl = func::FuncOp::create(
        mb, loc, name, mb.getFunctionType(TypeRange(args), {}));
    decl.setPrivate();
  }
  func::CallOp::create(b, loc, name, TypeRange{}, args);
}

LogicalResult kernelgen::emitStreamedStores(
    OpBuilder &b, Location loc, func::FuncOp fn, ModuleOp module, Value out,
    Value outOff, Value lo, Value hi, Type element,
    function_ref<FailureOr<Value>(Value)> value) {
  Block &entry = fn.getBody().front();
  Value block;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    block = memref::AllocaOp::create(
        b, loc, MemRefType::get({kStreamBlock}, element), ValueRange{},
        b.getI64IntegerAttr(64));
    // One fence per call of the phase, after all its units.
    b.setInsertionPoint(entry.getTerminator());
    callRuntime(b, loc, module, kStreamFenceFn, {});
  }
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  Value step = cidx(b, loc, kStreamBlock);
  Value size = cidx(b, loc, element.getIntOrFloatBitWidth() / 8);
  auto blocks = scf::ForOp::create(b, loc, lo, hi, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blocks.getBody());
  Value at = blocks.getInductionVar();
  Value n = arith::MinUIOp::create(b, loc, step,
                                   arith::SubIOp::create(b, loc, hi, at));
  // Fills block[0, count) with the values at `at`.
  auto fillTo = [&](Value count) -> LogicalResult {
    auto fill = scf::ForOp::create(b, loc, zero, count, one);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(fill.getBody());
    Value j = fill.getInductionVar();
    FailureOr<Value> v = value(arith::AddIOp::create(b, loc, at, j));
    if (failed(v))
      return failure();
    memref::StoreOp::create(b, loc, *v, block, ValueRange{j});
    return success();
  };
  Value whole =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, n, step);
  {
    // Every block but a run's last is whole: its loop gets a constant
    // trip count, which a run of dynamic length could not otherwise
    // prove (the vectorizer then kept the chain's constants in memory and
    // did not interleave: ew_chain ran 4-6% slower dynamic than static).
    auto split = scf::IfOp::create(b, loc, TypeRange{}, whole, true);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&split.getThenRegion().front());
    if (failed(fillTo(step)))
      return failure();
    b.setInsertionPointToStart(&split.getElseRegion().front());
    if (failed(fillTo(n)))
      return failure();
  }
  Value dstIdx = arith::AddIOp::create(b, loc, outOff, at);
  Value dst = arith::AddIOp::create(
      b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, out),
      arith::MulIOp::create(b, loc, dstIdx, size));
  // A whole block at a line boundary (every block of an output whose rows
  // or thread chunks are whole lines) is copied out here, a line per
  // non-temporal vector store; others by the runtime, which handles the
  // unaligned head and tail.
  int64_t lanes = 64 / (element.getIntOrFloatBitWidth() / 8);
  Value lineMask = cidx(b, loc, 63);
  Value atLine =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::AndIOp::create(b, loc, dst, lineMask), zero);
  auto direct = scf::IfOp::create(
      b, loc, TypeRange{}, arith::AndIOp::create(b, loc, atLine, whole), true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&direct.getThenRegion().front());
    auto vecT = VectorType::get({lanes}, element);
    auto copy = scf::ForOp::create(b, loc, zero, step, cidx(b, loc, lanes));
    b.setInsertionPointToStart(copy.getBody());
    Value k = copy.getInductionVar();
    Value v = vector::LoadOp::create(b, loc, vecT, block, ValueRange{k});
    vector::StoreOp::create(
        b, loc, v, out, ValueRange{arith::AddIOp::create(b, loc, dstIdx, k)},
        /*nontemporal=*/true, llvm::MaybeAlign(64));
    b.setInsertionPointToStart(&direct.getElseRegion().front());
    Value src = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, block);
    callRuntime(b, loc, module, kStreamStoreFn,
                {dst, src, arith::MulIOp::create(b, loc, n, size)});
  }
  return success();
}

/// out[outOff + i] = value(i) for i in [lo, hi), one plain store each.
static LogicalResult
emitPlainStores(OpBuilder &b, Location loc, Value out, Value outOff, Value lo,
                Value hi, function_ref<FailureOr<Value>(Value)> value) {
  auto loop = scf::ForOp::create(b, loc, lo, hi, cidx(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value j = loop.getInductionVar();
  FailureOr<Value> v = value(j);
  if (failed(v))
    return failure();
  memref::StoreOp::create(b, loc, *v, out,
                          ValueRange{arith::AddIOp::create(b, loc, outOff, j)});
  return success();
}

LogicalResult
kernelgen::emitOutputStores(OpBuilder &b, Location loc, func::FuncOp fn,
                            ModuleOp module, Value out, Value outOff, Value lo,
                            Value hi, Type element, Value numel, bool mayStream,
                            function_ref<FailureOr<Value>(Value)> value) {
  // Whether any size of this output may stream.
  if (!streamsOutput(std::numeric_limits<int32_t>::max(), element, mayStream))
    return emitPlainStores(b, loc, out, outOff, lo, hi, value);
  if (std::optional<int64_t> n = getConstantIntValue(numel)) {
    if (streamsOutput(*n, element, mayStream))
      return emitStreamedStores(b, loc, fn, module, out, outOff, lo, hi,
                                element, value);
    return emitPlainStores(b, loc, out, outOff, lo, hi, value);
  }
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  Value large = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::uge, numel,
      cidx(b, loc, (kStreamOutputBytes + bytes - 1) / bytes));
  auto choice = scf::IfOp::create(b, loc, TypeRange{}, large, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&choice.getThenRegion().front());
  if (failed(emitStreamedStores(b, loc, fn, module, out, outOff, lo, hi,
                                element, value)))
    return failure();
  b.setInsertionPointToStart(&choice.getElseRegion().front());
  return emitPlainStores(b, loc, out, outOff, lo, hi, value);
}

Abi kernelgen::abiOf(func::FuncOp tmpl, bool workspace) {
  Abi abi;
  MLIRContext *ctx = tmpl.getContext();
  auto flat = [&](Type e) { return MemRefType::get({ShapedType::kDynamic}, e); };
  auto add = [&](Type t) {
    if (auto q = getQuantScheme(t)) {
      abi.args.push_back(flat(IntegerType::get(ctx, 8)));
      abi.args.push_back(flat(q.getScaleType()));
      return 2u;
    }
    abi.args.push_back(flat(storageElementOf(t)));
    return 1u;
  };
  for (Type t : tmpl.getArgumentTypes())
    abi.numInputs += add(t);
  for (Type t : tmpl.getResultTypes())
    abi.numOutputs += add(t);
  if (workspace) {
    abi.args.push_back(flat(IntegerType::get(ctx, 8)));
    abi.hasWorkspace = true;
  }
  auto dynamic = [](Type t) {
    auto shaped = llvm::dyn_cast<ShapedType>(t);
    return shaped && !shaped.hasStaticShape();
  };
  if (llvm::any_of(tmpl.getArgumentTypes(), dynamic) ||
      llvm::any_of(tmpl.getResultTypes(), dynamic)) {
    abi.args.push_back(flat(IntegerType::get(ctx, 64)));
    abi.hasSizes = true;
  }
  return abi;
}

Value kernelgen::workspaceArg(Block &entry, const Abi &abi) {
  assert(abi.hasWorkspace && "a phase without a workspace");
  return entry.getArgument(2 + abi.args.size() - 1 - (abi.hasSizes ? 1 : 0));
}

Value kernelgen::dynamicSize(OpBuilder &b, Location loc, Block &entry,
                             const Abi &abi) {
  Value sizes = entry.getArgument(entry.getNumArguments() - 1);
  (void)abi;
  Value s = memref::LoadOp::create(b, loc, sizes, cidx(b, loc, 0));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), s);
}

func::FuncOp kernelgen::createPhase(OpBuilder &b, ModuleOp module,
                                    func::FuncOp tmpl, unsigned phase,
                                    const Abi &abi, int64_t units,
                                    int64_t grain) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(tmpl);
  SmallVector<Type> args{b.getIndexType(), b.getIndexType()};
  args.append(abi.args.begin(), abi.args.end());
  std::string name = (tmpl.getName() + "__p" + Twine(phase)).str();
  auto fn = func::FuncOp::create(b, tmpl.getLoc(), name,
                                 b.getFunctionType(args, {}));
  fn->setAttr(kUnitsAttr, b.getI64IntegerAttr(std::max<int64_t>(units, 0)));
  fn->setAttr(kGrainAttr, b.getI64IntegerAttr(std::max<int64_t>(grain, 1)));
  fn->setAttr(kPhaseAttr, b.getI64IntegerAttr(phase));
  fn->setAttr(kKernelOfAttr, b.getStringAttr(tmpl.getName()));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  if (abi.hasSizes)
    fn->setAttr(kSizesAttr, b.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, tmpl.getLoc());
  (void)module;
  return fn;
}

Layout kernelgen::layoutOf(ArrayRef<int64_t> operandShape,
                           ArrayRef<int64_t> iterShape) {
  Layout l;
  size_t r = iterShape.size(), lead = r - operandShape.size();
  l.shape.assign(lead, 1);
  l.shape.append(operandShape.begin(), operandShape.end());
  l.strides.assign(r, 0);
  // A dynamic dim may only lead (its stride is the product of the others).
  int64_t s = 1;
  for (size_t d = r; d-- > 0;) {
    l.strides[d] = l.shape[d] == 1 ? 0 : s;
    if (d > 0 && !ShapedType::isDynamic(l.shape[d]))
      s *= l.shape[d];
  }
  return l;
}

std::optional<kernelgen::BlockReductionLayout>
kernelgen::blockReductionLayout(ArrayRef<int64_t> operandShape,
                                ArrayRef<int64_t> full, size_t a0, size_t a1) {
  Layout l = layoutOf(operandShape, full);
  bool anyFull = false, anyBcast = false;
  for (size_t d = a1; d < full.size(); ++d) {
    if (full[d] == 1)
      continue;
    (l.shape[d] == 1 ? anyBcast : anyFull) = true;
  }
  if (anyFull && anyBcast)
    return std::nullopt;
  BlockReductionLayout b;
  b.innerFull = anyFull;
  b.outer.assign(l.strides.begin(), l.strides.begin() + a0);
  b.reduced.assign(l.strides.begin() + a0, l.strides.begin() + a1);
  return b;
}

SmallVector<Value>
kernelgen::offsetsFromLinear(OpBuilder &b, Location loc, Value linear,
                             ArrayRef<int64_t> extents,
                             ArrayRef<SmallVector<int64_t>> strides) {
  SmallVector<Value> offsets(strides.size(), cidx(b, loc, 0));
  Value rem = linear;
  for (size_t d = extents.size(); d-- > 0;) {
    if (extents[d] == 1)
      continue;
    // The leading extent is never read (it may be dynamic).
    Value digit = rem;
    if (d > 0) {
      Value ext = cidx(b, loc, extents[d]);
      digit = arith::RemUIOp::create(b, loc, rem, ext);
      rem = arith::DivUIOp::create(b, loc, rem, ext);
    }
    for (size_t k = 0; k < strides.size(); ++k) {
      if (strides[k][d] == 0)
        continue;
      Value term = strides[k][d] == 1
                       ? digit
                       : Value(arith::MulIOp::create(
                             b, loc, digit, cidx(b, loc, strides[k][d])));
      offsets[k] = arith::AddIOp::create(b, loc, offsets[k], term);
    }
  }
  return offsets;
}

//===----------------------------------------------------------------------===//
// Evaluating kiln ops
//===----------------------------------------------------------------------===//

static bool isHalfLike(Type t) {
  return llvm::isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(t));
}

static Type withElement(Type like, Type element) {
  if (auto v = llvm::dyn_cast<VectorType>(like))
    return v.clone(element);
  return element;
}

FailureOr<Value> kernelgen::emitKilnOp(OpBuilder &b, Location loc,
                                       Operation *op, ValueRange operands) {
  Type f32 = b.getF32Type();
  auto widen = [&](Value v) -> Value {
    if (!isHalfLike(v.getType()))
      return v;
    return arith::ExtFOp::create(b, loc, withElement(v.getType(), f32), v);
  };
  Type resultKiln =
      llvm::cast<ShapedType>(op->getResult(0).getType()).getElementType();
  if (auto cast = llvm::dyn_cast<CastOp>(op)) {
    Type from = cast.getInput().getType().getElementType();
    Value v = operands[0];
    if (isHalfLike(from)) {
      v = widen(v);
      from = f32;
    }
    return emitCast(b, loc, v, from, resultKiln);
  }
  SmallVector<Value> wide;
  for (Value v : operands)
    wide.push_back(widen(v));
  FailureOr<Value> r = emitElementwise(b, loc, op, wide);
  if (failed(r))
    return failure();
  if (isHalfLike(resultKiln) && !isHalfLike(r->getType()))
    return Value(arith::TruncFOp::create(
        b, loc, withElement(r->getType(), storageTypeOf(resultKiln)), *r));
  return r;
}

SmallVector<int64_t> kernelgen::fullShapeOf(func::FuncOp tmpl, Value root) {
  auto shapeOf = [](Value v) {
    return llvm::cast<RankedTensorType>(v.getType()).getShape();
  };
  SmallVector<int64_t> s;
  tmpl.walk([&](Operation *op) {
    if (s.empty() && isFusibleReduction(op))
      s.assign(shapeOf(op->getOperand(0)).begin(),
               shapeOf(op->getOperand(0)).end());
  });
  if (s.empty())
    s.assign(shapeOf(root).begin(), shapeOf(root).end());
  return s;
}

Value kernelgen::widenTo(OpBuilder &b, Location loc, Value v, Type acc) {
  if (v.getType() == acc)
    return v;
  return arith::ExtFOp::create(b, loc, acc, v);
}

Value kernelgen::narrowTo(OpBuilder &b, Location loc, Value v, Type storage) {
  if (v.getType() == storage)
    return v;
  return arith::TruncFOp::create(b, loc, storage, v);
}

FailureOr<Value> Evaluator::eval(Value tensor) {
  auto it = memo.find(tensor);
  if (it != memo.end())
    return it->second;
  Value v;
  if (auto arg = llvm::dyn_cast<BlockArgument>(tensor)) {
    v = load(arg);
  } else if (auto c = tensor.getDefiningOp<ConstantOp>()) {
    auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || !dense.isSplat())
      return failure();
    Type e = storageTypeOf(dense.getElementType());
    Type t = vectorWidth ? Type(VectorType::get({vectorWidth}, e)) : e;
    double value;
    if (llvm::isa<FloatType>(dense.getElementType()))
      value = dense.getSplatValue<APFloat>().convertToDouble();
    else if (dense.getElementType().isUnsignedInteger() ||
             dense.getElementType().isInteger(1))
      value = (double)dense.getSplatValue<APInt>().getZExtValue();
    else
      value = (double)dense.getSplatValue<APInt>().getSExtValue();
    v = constantOf(b, loc, t, value);
  } else {
    FailureOr<Value> r = emit(tensor.getDefiningOp());
    if (failed(r))
      return failure();
    v = *r;
  }
  memo[tensor] = v;
  return v;
}

FailureOr<Value> Evaluator::emit(Operation *op) {
  SmallVector<Value> operands;
  for (Value in : op->getOperands()) {
    FailureOr<Value> v = eval(in);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  return emitKilnOp(b, loc, op, operands);
}

MatmulTiling MatmulTiling::forVectorBits(int64_t bits) {
  if (bits == 0) {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    bits = features.lookup("avx512f") ? 512 : 256;
  }
  // Accumulators: mr * nr / lanes registers, leaving room for the B
  // vectors and one broadcast. K slices keep an A panel and a B panel in L1
  // (on 512-bit vectors 8 KiB and 32 KiB, inside a 48 KiB L1; 512-deep
  // slices made the B panel 64 KiB, read from L2, and the step of a 256-row
  // MLP 3% slower); row blocks keep the packed A block in L2; a column
  // block's slice of B (kc x nc) sits in L2, beside all of A's slice when A
  // is short (ncSmallM) or beside one row block of it otherwise.
  if (bits >= 512)
    return {8, 32, 128, 256, 128, 128};
  return {6, 16, 144, 256, 256, 128};
}
