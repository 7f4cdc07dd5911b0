//===- Fuse.cpp - Form fused kernels from kiln ops ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Fusion policy. Ops are visited from the outputs backwards; an op joins the
// kernel of its users when all of them are in one kernel and the op fits
// that kernel's kind:
//
//   elementwise  ops of one shape (broadcast operands are read in place);
//   reduction    reductions over the same trailing axes of one input shape,
//                with elementwise producers of that shape (fused on read),
//                per-row ops on the reduced values, and elementwise
//                consumers of the full shape (fused on write): softmax and
//                layer_norm become one kernel that walks each row;
//   matmul       one matmul with elementwise consumers of its shape (the
//                epilogue), a dequantize of its right operand, and (with
//                matmul-prologues) an elementwise kernel read only as its
//                left operand (the prologue, evaluated while packing);
//   generic      any other op, alone.
//
// An op whose users sit in different kernels starts its own kernel, so a
// value is computed once and stored once (or, as a prologue, not stored).
// Nothing is recomputed, except what --kiln-checkpoint chose to recompute
// (kiln.recomputed): such an elementwise op is copied for each of its
// readers, so that each reading kernel computes it where it reads it.
// Layout ops (reshape, permute, slice, squeeze, unsqueeze, flip) and
// constants stay in the caller: the runtime turns them into views.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Fusion.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFUSE
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

static ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}

/// The reduced axes of a fusible reduction.
static ArrayRef<int64_t> reducedAxes(Operation *op) {
  return llvm::cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
}

namespace {

using Kind = KernelKind;

struct Group {
  Kind kind;
  SmallVector<int64_t> shape;    ///< iteration (full) shape
  SmallVector<int64_t> rowShape; ///< reductions: shape with reduced dims = 1
  SmallVector<int64_t> axes;     ///< reductions: the reduced trailing axes
  Operation *matmul = nullptr;
  SmallVector<Operation *> ops;  ///< collected in reverse order
};

/// Do `axes` name the trailing dims of a rank-`rank` shape?
bool isTrailing(ArrayRef<int64_t> axes, int64_t rank) {
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != rank - (int64_t)axes.size() + (int64_t)i)
      return false;
  return !axes.empty();
}

SmallVector<int64_t> keepdimShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes) {
  SmallVector<int64_t> s(shape);
  for (int64_t a : axes)
    s[a] = 1;
  return s;
}

/// A reduction that a row kernel can take: keepdim over trailing axes.
bool isRowReduction(Operation *op) {
  if (!isFusibleReduction(op) || !op->getAttr("keepdim"))
    return false;
  return isTrailing(reducedAxes(op), shapeOf(op->getOperand(0)).size());
}

/// The trailing axes along which `small` is 1 and `full` is not, when
/// `small` is `full` with only trailing dims collapsed to 1 (a per-row
/// value); otherwise nothing.
std::optional<SmallVector<int64_t>> rowAxes(ArrayRef<int64_t> full,
                                            ArrayRef<int64_t> small) {
  if (full.size() != small.size() || full == small)
    return std::nullopt;
  SmallVector<int64_t> axes;
  bool inTail = false;
  for (size_t d = 0; d < full.size(); ++d) {
    if (small[d] == full[d] && !inTail)
      continue;
    if (small[d] != 1)
      return std::nullopt;
    inTail = true;
    axes.push_back(d);
  }
  if (!isTrailing(axes, full.size()))
    return std::nullopt;
  return axes;
}

/// The operand dim that the dynamic dim `d` of `v` takes its size from,
/// when `v` is computed by an op whose result dims follow its operands':
/// an elementwise op (a dynamic result dim is a dynamic operand dim at the
/// same place from the end), a reduction (a kept dim), a matmul (M from
/// the left operand, N from the right) or a permute.
std::optional<std::pair<Value, int64_t>> sourceDim(Value v, int64_t d) {
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return std::nullopt;
  int64_t rank = shapeOf(v).size();
  auto dynamicAt = [](Value x, int64_t i) {
    return i >= 0 && i < (int64_t)shapeOf(x).size() &&
           ShapedType::isDynamic(shapeOf(x)[i]);
  };
  if (isElementwise(op)) {
    for (Value in : op->getOperands()) {
      if (!llvm::isa<RankedTensorType>(in.getType()))
        continue;
      int64_t i = d - (rank - (int64_t)shapeOf(in).size());
      if (dynamicAt(in, i))
        return std::make_pair(in, i);
    }
    return std::nullopt;
  }
  if (isFusibleReduction(op)) {
    Value in = op->getOperand(0);
    ArrayRef<int64_t> axes = reducedAxes(op);
    int64_t i = d;
    if (!op->getAttr("keepdim"))
      for (int64_t a = 0, kept = -1; a < (int64_t)shapeOf(in).size(); ++a)
        if (!llvm::is_contained(axes, a) && ++kept == d) {
          i = a;
          break;
        }
    if (!llvm::is_contained(axes, i) && dynamicAt(in, i))
      return std::make_pair(in, i);
    return std::nullopt;
  }
  if (auto mm = llvm::dyn_cast<MatmulOp>(op)) {
    Value a = mm->getOperand(0), b = mm->getOperand(1);
    int64_t ra = shapeOf(a).size(), rb = shapeOf(b).size();
    if (d == rank - 1 && rb >= 2 && dynamicAt(b, rb - 1))
      return std::make_pair(b, rb - 1);
    if (d == rank - 2 && ra >= 2 && dynamicAt(a, ra - 2))
      return std::make_pair(a, ra - 2);
    if (d < rank - 2 && ra >= 2 && rb >= 2) {
      if (dynamicAt(a, d - (rank - ra)))
        return std::make_pair(a, d - (rank - ra));
      if (dynamicAt(b, d - (rank - rb)))
        return std::make_pair(b, d - (rank - rb));
    }
    return std::nullopt;
  }
  if (auto p = llvm::dyn_cast<PermuteOp>(op)) {
    int64_t i = p.getDims()[d];
    if (dynamicAt(p.getInput(), i))
      return std::make_pair(p.getInput(), i);
  }
  return std::nullopt;
}

/// Rewrites each `tensor.dim` of a computed value into the dim of the
/// value it takes its size from, as far back as that goes (to an input,
/// usually). A size read off an intermediate would be a use of it outside
/// every kernel and keep its producer from fusing with its readers (the
/// loss of a dynamic batch from its mean, say). A value that only gave
/// sizes (a recomputed one that shaped a gradient's zeros) is then dead,
/// and goes.
void resolveDims(func::FuncOp fn) {
  fn.walk([](tensor::DimOp dim) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return;
    Value source = dim.getSource();
    int64_t d = *index;
    while (auto next = sourceDim(source, d))
      std::tie(source, d) = *next;
    if (source == dim.getSource())
      return;
    OpBuilder b(dim);
    Value c = arith::ConstantIndexOp::create(b, dim.getLoc(), d);
    dim.getSourceMutable().assign(source);
    dim.getIndexMutable().assign(c);
  });
  Block &body = fn.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

/// The most ops one kernel fuses. LLVM's time on a kernel grows faster than
/// its size (a chain of 250 adds took 0.19 s, one of 2000 took 17 s), so a
/// longer chain is cut into kernels of this size; a chain that long is
/// rare, and each cut costs one store and one load of the intermediate.
constexpr size_t kMaxKernelOps = 256;

/// Can `op`, all of whose users are in `g`, join `g`?
bool canJoin(Operation *op, Group &g) {
  if (g.ops.size() >= kMaxKernelOps)
    return false;
  ArrayRef<int64_t> shape = op->getNumResults() == 1
                                ? shapeOf(op->getResult(0))
                                : ArrayRef<int64_t>();
  bool elementwise = isFusibleElementwise(op);
  bool fullShape = shape == ArrayRef<int64_t>(g.shape);
  switch (g.kind) {
  case Kind::Elementwise:
  case Kind::Reduction: {
    // Reductions without keepdim (or over leading axes) only take
    // producers: the kernel reads, reduces and writes the reduced value.
    bool rowKernel = g.kind == Kind::Elementwise || !g.rowShape.empty();
    if (elementwise && fullShape)
      return true;
    if (!rowKernel)
      return false;
    if (elementwise) {
      // A per-row value (trailing dims collapsed), computed once per row.
      std::optional<SmallVector<int64_t>> axes = rowAxes(g.shape, shape);
      if (!axes || (!g.axes.empty() && *axes != g.axes))
        return false;
      g.axes = *axes;
      g.rowShape.assign(shape.begin(), shape.end());
      return true;
    }
    if (isRowReduction(op) &&
        shapeOf(op->getOperand(0)) == ArrayRef<int64_t>(g.shape) &&
        (g.axes.empty() || reducedAxes(op) == ArrayRef<int64_t>(g.axes))) {
      g.kind = Kind::Reduction;
      g.axes.assign(reducedAxes(op).begin(), reducedAxes(op).end());
      g.rowShape = keepdimShape(g.shape, g.axes);
      return true;
    }
    if (g.kind == Kind::Elementwise && g.rowShape.empty() &&
        llvm::isa<MatmulOp>(op) && fullShape) {
      g.kind = Kind::Matmul;
      g.matmul = op;
      return true;
    }
    return false;
  }
  case Kind::Matmul:
    // Producers of the matmul's operands are read through packing, not
    // evaluated per tile: they stay in their own kernels.
    if (elementwise && fullShape &&
        llvm::none_of(op->getUsers(),
                      [&](Operation *u) { return u == g.matmul; }))
      return true;
    // A dequantized right operand is unpacked while packing, and the
    // columns of a convolution's windows are read from its input.
    if (llvm::isa<DequantizeOp, UnfoldOp>(op) &&
        op->getResult(0) == g.matmul->getOperand(1))
      return true;
    return false;
  case Kind::Generic:
    return false;
  }
  return false;
}

/// The group an op starts when it cannot join its users'.
Group startGroup(Operation *op) {
  Group g;
  if (isFusibleElementwise(op)) {
    g.kind = Kind::Elementwise;
    auto s = shapeOf(op->getResult(0));
    g.shape.assign(s.begin(), s.end());
  } else if (isFusibleReduction(op)) {
    g.kind = Kind::Reduction;
    auto in = shapeOf(op->getOperand(0));
    g.shape.assign(in.begin(), in.end());
    auto axes = reducedAxes(op);
    g.axes.assign(axes.begin(), axes.end());
    if (isRowReduction(op))
      g.rowShape = keepdimShape(g.shape, g.axes);
  } else if (llvm::isa<MatmulOp>(op)) {
    g.kind = Kind::Matmul;
    g.matmul = op;
    auto s = shapeOf(op->getResult(0));
    g.shape.assign(s.begin(), s.end());
  } else {
    g.kind = Kind::Generic;
  }
  return g;
}

/// Moves the ops of `g` into a new private function and calls it.
func::FuncOp outline(func::FuncOp parent, Group &g, unsigned index,
                     OpBuilder &builder) {
  SmallVector<Operation *> ops(llvm::reverse(g.ops));
  llvm::SmallPtrSet<Operation *, 16> inGroup(ops.begin(), ops.end());

  // Inputs: values defined outside, in first-use order. Splat constants are
  // cloned in instead, so that scalars stay visible to the code generator.
  // A dynamic size (`tensor.dim %t, c`, as creation ops of dynamic shape
  // take) is recomputed inside from %t, which becomes the input: kernels
  // take tensors only.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clonedConstants;
  for (Operation *op : ops)
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && inGroup.contains(def))
        continue;
      if (auto c = llvm::dyn_cast_or_null<ConstantOp>(def)) {
        auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue());
        if (dense && dense.isSplat()) {
          clonedConstants.insert(def);
          continue;
        }
      }
      if (auto dim = llvm::dyn_cast_or_null<tensor::DimOp>(def)) {
        Operation *index = dim.getIndex().getDefiningOp();
        Operation *source = dim.getSource().getDefiningOp();
        if (index && llvm::isa<arith::ConstantIndexOp>(index) &&
            !(source && inGroup.contains(source))) {
          inputs.insert(dim.getSource());
          clonedConstants.insert(index);
          clonedConstants.insert(def);
          continue;
        }
      }
      inputs.insert(v);
    }
  // Outputs: results used outside the group.
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !inGroup.contains(u); }))
        outputs.push_back(r);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(parent);
  SmallVector<Type> inTypes, outTypes;
  for (Value v : inputs)
    inTypes.push_back(v.getType());
  for (Value v : outputs)
    outTypes.push_back(v.getType());
  std::string name = (parent.getName() + "_kernel" + Twine(index) + "_" +
                      stringifyKernelKind(g.kind))
                         .str();
  auto fn = func::FuncOp::create(builder, parent.getLoc(), name,
                                 builder.getFunctionType(inTypes, outTypes));
  fn.setPrivate();
  setKernelKind(fn, g.kind);
  if (!g.axes.empty())
    fn->setAttr(kKernelAxesAttr, builder.getDenseI64ArrayAttr(g.axes));
  Block *body = fn.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  IRMapping map;
  for (auto [v, arg] : llvm::zip(inputs, body->getArguments()))
    map.map(v, arg);
  for (Operation *c : clonedConstants)
    builder.clone(*c, map);
  for (Operation *op : ops)
    builder.clone(*op, map);
  SmallVector<Value> results;
  for (Value v : outputs)
    results.push_back(map.lookup(v));
  func::ReturnOp::create(builder, parent.getLoc(), results);

  // Replace the group with a call placed where its last op was.
  builder.setInsertionPoint(ops.back());
  auto call = func::CallOp::create(builder, parent.getLoc(), fn,
                                   inputs.getArrayRef());
  for (auto [v, r] : llvm::zip(outputs, call.getResults()))
    v.replaceAllUsesWith(r);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return fn;
}

/// A recomputed value read by more ops than this is computed once and
/// stored: the copies of a chain multiply with the readers of each of its
/// values.
constexpr size_t kMaxReadersToCopy = 8;

} // namespace

void mlir::kiln::splitRecomputed(func::FuncOp fn) {
  SmallVector<Operation *> recomputed;
  for (Operation &op : fn.getBody().front())
    if (op.hasAttr(kRecomputedAttr) && isFusibleElementwise(&op) &&
        op.getNumResults() == 1)
      recomputed.push_back(&op);
  for (Operation *op : llvm::reverse(recomputed)) {
    llvm::SetVector<Operation *> readers;
    for (Operation *u : op->getResult(0).getUsers())
      readers.insert(u);
    if (readers.size() < 2 || readers.size() > kMaxReadersToCopy)
      continue;
    for (Operation *reader : llvm::drop_begin(readers)) {
      OpBuilder b(reader);
      Operation *copy = b.clone(*op);
      reader->replaceUsesOfWith(op->getResult(0), copy->getResult(0));
    }
  }
}

void mlir::kiln::splitUnfolds(func::FuncOp fn) {
  SmallVector<UnfoldOp> unfolds;
  fn.walk([&](UnfoldOp u) { unfolds.push_back(u); });
  for (UnfoldOp u : unfolds) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : u->getUses())
      uses.push_back(&use);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder b(use->getOwner());
      use->set(b.clone(*u)->getResult(0));
    }
  }
}

namespace {

/// Do `a` and `b` hold the same value: one value, or results of copies of
/// one recomputed op (splitRecomputed) whose operands hold the same values.
bool sameRecomputed(Value a, Value b) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || !x->hasAttr(kRecomputedAttr) ||
      !y->hasAttr(kRecomputedAttr) ||
      llvm::cast<OpResult>(a).getResultNumber() !=
          llvm::cast<OpResult>(b).getResultNumber())
    return false;
  return OperationEquivalence::isEquivalentTo(
      x, y,
      [](Value l, Value r) { return success(sameRecomputed(l, r)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// Copies of a recomputed chain that no reader's kernel took (the operand
/// of a matmul that cannot be its prologue, say) form kernels of their
/// own, each computing and storing the same values: every such kernel but
/// the first is dropped, and its readers read the first's outputs.
void mergeCopyKernels(std::vector<Group> &groups,
                      llvm::DenseMap<Operation *, int> &groupOf) {
  auto onlyCopies = [](const Group &g) {
    return !g.ops.empty() && llvm::all_of(g.ops, [](Operation *op) {
      return op->hasAttr(kRecomputedAttr) && op->getNumResults() == 1;
    });
  };
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!onlyCopies(groups[i]))
      continue;
    for (size_t j = 0; j < groups.size(); ++j) {
      Group &keep = groups[i], &drop = groups[j];
      if (i == j || !onlyCopies(drop) || drop.ops.size() != keep.ops.size())
        continue;
      // Each dropped op's twin in `keep`, which must come before every
      // reader of the dropped op outside its kernel.
      llvm::SmallPtrSet<Operation *, 8> dropped(drop.ops.begin(),
                                                drop.ops.end());
      llvm::SmallPtrSet<Operation *, 8> taken;
      SmallVector<std::pair<Operation *, Operation *>> twins;
      for (Operation *op : drop.ops) {
        Operation *twin = nullptr;
        for (Operation *k : keep.ops)
          if (!taken.contains(k) &&
              sameRecomputed(op->getResult(0), k->getResult(0))) {
            twin = k;
            break;
          }
        bool dominates =
            twin && llvm::all_of(op->getUsers(), [&](Operation *u) {
              return dropped.contains(u) || twin->isBeforeInBlock(u);
            });
        if (!dominates)
          break;
        taken.insert(twin);
        twins.push_back({op, twin});
      }
      if (twins.size() != drop.ops.size())
        continue;
      for (auto [op, twin] : twins)
        op->getResult(0).replaceUsesWithIf(
            twin->getResult(0),
            [&](OpOperand &use) { return !dropped.contains(use.getOwner()); });
      // Collected in reverse: users before their operands.
      for (Operation *op : drop.ops) {
        groupOf.erase(op);
        op->erase();
      }
      drop.ops.clear();
    }
  }
}

} // namespace

namespace {

/// The groups --kiln-fuse outlines, in reverse program order.
std::vector<Group> formGroups(func::FuncOp fn, const FusionOptions &options) {
  std::vector<Group> groups;
  llvm::DenseMap<Operation *, int> groupOf;
  SmallVector<Operation *> ops;
  for (Operation &op : fn.getBody().front())
    if (op.getDialect() && op.getDialect()->getNamespace() == "kiln" &&
        !isViewOp(&op) && !isCollectiveOp(&op) && !isHostStepOp(&op) &&
        !llvm::isa<ConstantOp>(op))
      ops.push_back(&op);

  for (Operation *op : llvm::reverse(ops)) {
    // Every user must sit in one fusible group.
    int target = -1;
    bool single = true;
    for (Operation *user : op->getUsers()) {
      auto it = groupOf.find(user);
      int g = it == groupOf.end() ? -2 : it->second;
      if (target == -1)
        target = g;
      else if (target != g)
        single = false;
    }
    if (single && target >= 0 && canJoin(op, groups[target])) {
      groups[target].ops.push_back(op);
      groupOf[op] = target;
      continue;
    }
    Group g = startGroup(op);
    g.ops.push_back(op);
    groupOf[op] = groups.size();
    groups.push_back(std::move(g));
  }

  // A transpose read only by a matmul is packed by that matmul.
  if (options.transposedOperands)
    for (Group &g : groups) {
      if (g.kind != Kind::Matmul)
        continue;
      // Ops are collected in reverse: push the rhs first.
      for (Value operand : llvm::reverse(g.matmul->getOperands())) {
        Operation *def = operand.getDefiningOp();
        if (!isMatrixTranspose(def) || !def->hasOneUse() ||
            !getElementTypeOrSelf(def->getOperand(0).getType()).isF32())
          continue;
        g.ops.push_back(def);
        // The transposed columns of a convolution's windows (its weight's
        // gradient) are read from the input too.
        auto unfold = def->getOperand(0).getDefiningOp<UnfoldOp>();
        if (operand != g.matmul->getOperand(1) || !unfold ||
            !unfold->hasOneUse() || !groupOf.count(unfold))
          continue;
        Group &own = groups[groupOf[unfold]];
        if (own.ops.size() != 1)
          continue;
        own.ops.clear();
        groupOf[unfold] = &g - groups.data();
        g.ops.push_back(unfold);
      }
    }

  // An elementwise kernel whose one output is read only by a matmul, as
  // its left operand (or through that operand's transpose, which the
  // matmul's kernel already took), joins that kernel as its prologue:
  // a kernel generator that packs operands evaluates it while packing, so
  // the value is never stored. Balanced checkpointing's recomputation of an
  // activation for a weight gradient is this case.
  if (options.matmulPrologues)
    for (Group &g : groups) {
      if (g.kind != Kind::Matmul)
        continue;
      Value lhs = g.matmul->getOperand(0);
      Operation *def = lhs.getDefiningOp();
      if (isMatrixTranspose(def)) {
        if (!llvm::is_contained(g.ops, def))
          continue;
        lhs = def->getOperand(0);
        def = lhs.getDefiningOp();
      }
      auto it = def ? groupOf.find(def) : groupOf.end();
      if (it == groupOf.end() || !lhs.hasOneUse() ||
          !getElementTypeOrSelf(lhs.getType()).isF32())
        continue;
      Group &producer = groups[it->second];
      if (&producer == &g || producer.kind != Kind::Elementwise ||
          !producer.rowShape.empty() || producer.ops.empty())
        continue;
      // Every other value of the producer stays inside it.
      llvm::SmallPtrSet<Operation *, 16> inProducer(producer.ops.begin(),
                                                    producer.ops.end());
      bool oneOutput = llvm::all_of(producer.ops, [&](Operation *op) {
        return llvm::all_of(op->getResults(), [&](Value r) {
          return r == lhs || llvm::all_of(r.getUsers(), [&](Operation *u) {
                   return inProducer.contains(u);
                 });
        });
      });
      if (!oneOutput)
        continue;
      // Ops are collected in reverse: the producer's come last, so that
      // they are outlined first.
      for (Operation *op : producer.ops)
        groupOf[op] = &g - groups.data();
      g.ops.append(producer.ops.begin(), producer.ops.end());
      producer.ops.clear();
    }
  mergeCopyKernels(groups, groupOf);
  return groups;
}

} // namespace

std::vector<KernelPlan> mlir::kiln::planKernels(func::FuncOp fn,
                                                const FusionOptions &options) {
  std::vector<KernelPlan> plans;
  std::vector<Group> groups = formGroups(fn, options);
  for (Group &g : llvm::reverse(groups))
    if (!g.ops.empty())
      plans.push_back(
          {g.kind, SmallVector<Operation *>(llvm::reverse(g.ops)), g.matmul});
  return plans;
}

namespace {

struct KilnFusePass : public mlir::kiln::impl::KilnFuseBase<KilnFusePass> {
  using KilnFuseBase::KilnFuseBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(kKernelKindAttr))
        funcs.push_back(fn);
    for (func::FuncOp fn : funcs)
      fuse(fn);
  }

  void fuse(func::FuncOp fn) {
    resolveDims(fn);
    splitRecomputed(fn);
    splitUnfolds(fn);
    std::vector<Group> groups =
        formGroups(fn, {transposedOperands, matmulPrologues});
    OpBuilder builder(fn.getContext());
    // Outline in program order so that kernel numbers read top-down.
    int n = 0;
    for (int i = static_cast<int>(groups.size()) - 1; i >= 0; --i)
      if (!groups[i].ops.empty()) {
        // Copies of one recomputed value may land in this kernel.
        bool copies = llvm::any_of(groups[i].ops, [](Operation *op) {
          return op->hasAttr(kRecomputedAttr);
        });
        func::FuncOp kernel = outline(fn, groups[i], n++, builder);
        if (copies) {
          IRRewriter rewriter(kernel.getContext());
          DominanceInfo dom(kernel);
          eliminateCommonSubExpressions(rewriter, dom, kernel);
        }
      }
  }
};

} // namespace
