//===- Checkpoint.cpp - Choose saved and recomputed forward values --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// After --kiln-autodiff the backward ops (tagged kiln.backward) read forward
// values. A read value is *saved*: its buffer lives from the forward pass to
// its last backward reader. To *recompute* it instead, the pass clones the
// forward ops that produce it next to its first backward reader (tagged
// kiln.recomputed, so that CSE does not merge them back), and the forward
// buffer dies after its last forward use. Recomputed elementwise ops then
// fuse into the backward kernels that read them.
//
// A recompute chain follows producers back until it reaches a saved value,
// an argument or a constant, and gives up (the value is saved) beyond
// kMaxChain ops. Balanced also ends chains at branch points (values two
// forward ops read) and saves those, so that a residual stream is kept once
// per block rather than recomputed from the input of the network.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Autodiff.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCHECKPOINT
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

constexpr unsigned kMaxChain = 8;

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttr); }
/// Backward ops and the forward clones that feed them.
bool readsForBackward(Operation *op) {
  return isBackward(op) || op->hasAttr(kRecomputedAttr);
}

int64_t bytesOf(Value v) {
  auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return 0;
  Type e = t.getElementType();
  int64_t bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 64;
  return t.getNumElements() * std::max<int64_t>(8, bits) / 8;
}

/// Work to recompute `op`: FLOPs of a matmul, elements touched otherwise.
int64_t costOf(Operation *op) {
  if (auto mm = llvm::dyn_cast<MatmulOp>(op)) {
    auto a = mm.getLhs().getType();
    int64_t k = a.getShape().back();
    auto c = llvm::cast<RankedTensorType>(mm.getType());
    return c.hasStaticShape() ? 2 * c.getNumElements() * k : 1 << 30;
  }
  int64_t n = 0;
  for (Value v : op->getOperands())
    n += bytesOf(v);
  for (Value v : op->getResults())
    n += bytesOf(v);
  return n;
}

class Checkpointer {
public:
  Checkpointer(func::FuncOp fn, llvm::DenseSet<Operation *> &saved)
      : fn(fn), saved(saved) {}

  /// Forward values that backward ops read, in program order.
  SmallVector<Value> readByBackward() {
    SmallVector<Value> out;
    for (Operation &op : fn.getBody().front()) {
      if (isBackward(&op) || op.hasAttr(kRecomputedAttr))
        continue;
      for (Value r : op.getResults())
        if (llvm::any_of(r.getUsers(),
                         [](Operation *u) { return readsForBackward(u); }))
          out.push_back(r);
    }
    return out;
  }

  /// True when more than one forward op reads a result of `op`: a branch
  /// point, such as the residual stream between two blocks.
  static bool isBranchPoint(Operation *op) {
    for (Value r : op->getResults()) {
      llvm::SmallPtrSet<Operation *, 4> readers;
      for (Operation *u : r.getUsers())
        if (!readsForBackward(u))
          readers.insert(u);
      if (readers.size() > 1)
        return true;
    }
    return false;
  }

  /// The forward ops to clone so that `v` can be recomputed, producers
  /// first; empty when `v` cannot be recomputed within the limit. Ops that
  /// `mayRecompute` rejects, saved ones and, with `stopAtBranches`, branch
  /// points are leaves.
  SmallVector<Operation *>
  chainFor(Value v, function_ref<bool(Operation *)> mayRecompute,
           bool stopAtBranches = false) {
    Operation *def = v.getDefiningOp();
    if (!def || !mayRecompute(def))
      return {};
    llvm::SetVector<Operation *> chain;
    bool tooLong = false;
    std::function<void(Operation *)> visit = [&](Operation *op) {
      if (tooLong || chain.contains(op))
        return;
      for (Value in : op->getOperands()) {
        Operation *p = in.getDefiningOp();
        if (!p || llvm::isa<ConstantOp>(p) || saved.contains(p) ||
            !mayRecompute(p) || (stopAtBranches && isBranchPoint(p)))
          continue;
        visit(p);
      }
      chain.insert(op);
      if (chain.size() > kMaxChain)
        tooLong = true;
    };
    visit(def);
    if (tooLong)
      return {};
    return chain.takeVector();
  }

  /// Clones `chain` before the first reader of `v` on the backward side (a
  /// backward op or an earlier recompute clone) and points those readers
  /// at the clone.
  void recompute(Value v, ArrayRef<Operation *> chain) {
    Operation *first = nullptr;
    for (Operation &op : fn.getBody().front())
      if (readsForBackward(&op) &&
          llvm::is_contained(op.getOperands(), v)) {
        first = &op;
        break;
      }
    if (!first)
      return;
    OpBuilder b(first);
    IRMapping map;
    for (Operation *op : chain) {
      Operation *clone = b.clone(*op, map);
      clone->setAttr(kRecomputedAttr, b.getUnitAttr());
      clone->removeAttr(kSavedAttr);
    }
    Value replacement = map.lookup(v);
    v.replaceUsesWithIf(replacement, [](OpOperand &use) {
      return readsForBackward(use.getOwner());
    });
  }

  /// Peak bytes alive when the function runs in program order with every
  /// value materialized (an upper bound: fusion only removes buffers).
  int64_t peakBytes() {
    Block &block = fn.getBody().front();
    llvm::DenseMap<Value, unsigned> lastUse;
    unsigned index = 0;
    for (Operation &op : block) {
      for (Value in : op.getOperands())
        lastUse[in] = index;
      ++index;
    }
    int64_t live = 0, peak = 0;
    for (BlockArgument a : block.getArguments())
      live += bytesOf(a);
    peak = live;
    index = 0;
    for (Operation &op : block) {
      for (Value r : op.getResults())
        live += bytesOf(r);
      peak = std::max(peak, live);
      for (Value in : op.getOperands())
        if (!llvm::isa<BlockArgument>(in) && lastUse.lookup(in) == index &&
            !llvm::isa<func::ReturnOp>(op))
          live -= bytesOf(in);
      // A result nobody reads dies at once.
      for (Value r : op.getResults())
        if (r.use_empty())
          live -= bytesOf(r);
      ++index;
    }
    return peak;
  }

  func::FuncOp fn;
  llvm::DenseSet<Operation *> &saved;
};

struct KilnCheckpointPass
    : public mlir::kiln::impl::KilnCheckpointBase<KilnCheckpointPass> {
  using KilnCheckpointBase::KilnCheckpointBase;

  void runOnOperation() override {
    std::string s = strategy;
    int64_t budget = -1;
    if (s.rfind("budget=", 0) == 0) {
      char *end = nullptr;
      budget = std::strtoll(s.c_str() + 7, &end, 10);
      if (!end || *end || budget <= 0) {
        getOperation()->emitError()
            << "--kiln-checkpoint: budget must be a positive byte count, got '"
            << s.substr(7) << "'";
        return signalPassFailure();
      }
    } else if (s != "disabled" && s != "balanced") {
      getOperation()->emitError()
          << "--kiln-checkpoint: strategy must be disabled, balanced or "
             "budget=BYTES, got '"
          << s << "'";
      return signalPassFailure();
    }
    getOperation()->walk([&](func::FuncOp fn) {
      if (!fn.isExternal())
        run(fn, s, budget);
    });
  }

  void run(func::FuncOp fn, const std::string &s, int64_t budget) {
    llvm::DenseSet<Operation *> saved;
    Checkpointer c(fn, saved);
    if (s == "disabled") {
      markSaved(c);
      return;
    }
    // Balanced: recompute memory-bound values from saved compute-bound ones.
    auto memoryBound = [](Operation *op) {
      return !isComputeBound(op) && !isBackward(op) &&
             op->getDialect() && op->getDialect()->getNamespace() == "kiln";
    };
    // Branch points are saved and end every chain: the block input that
    // a layer norm and the residual add both read is kept, and the values
    // computed from it inside the block are recomputed from it.
    for (Value v : c.readByBackward()) {
      if (Checkpointer::isBranchPoint(v.getDefiningOp()))
        continue;
      SmallVector<Operation *> chain =
          c.chainFor(v, memoryBound, /*stopAtBranches=*/true);
      if (!chain.empty())
        c.recompute(v, chain);
    }
    if (budget > 0) {
      // Budget: while the step's peak is over the budget, also recompute
      // the saved value whose recompute frees the most bytes per unit of
      // work, compute-bound ops included.
      auto anyForward = [](Operation *op) {
        return !isBackward(op) && op->getDialect() &&
               op->getDialect()->getNamespace() == "kiln";
      };
      llvm::DenseSet<Value> tried;
      for (int64_t peak = c.peakBytes(); peak > budget;) {
        Value best;
        SmallVector<Operation *> bestChain;
        double bestScore = 0;
        for (Value v : c.readByBackward()) {
          if (tried.contains(v))
            continue;
          SmallVector<Operation *> chain = c.chainFor(v, anyForward);
          if (chain.empty())
            continue;
          int64_t cost = 1;
          for (Operation *op : chain)
            cost += costOf(op);
          double score = double(bytesOf(v)) / double(cost);
          if (score > bestScore) {
            bestScore = score;
            best = v;
            bestChain = chain;
          }
        }
        if (!best)
          break; // nothing left to recompute: the budget cannot be met
        tried.insert(best);
        c.recompute(best, bestChain);
        int64_t next = c.peakBytes();
        if (next >= peak)
          continue;
        peak = next;
      }
      if (c.peakBytes() > budget)
        fn.emitWarning() << "--kiln-checkpoint: peak of " << c.peakBytes()
                         << " bytes stays over the budget of " << budget;
    }
    markSaved(c);
  }

  void markSaved(Checkpointer &c) {
    for (Value v : c.readByBackward())
      if (Operation *def = v.getDefiningOp())
        def->setAttr(kSavedAttr, UnitAttr::get(def->getContext()));
  }
};

} // namespace
