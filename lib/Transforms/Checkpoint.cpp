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
#include "kiln/Transforms/Fusion.h"
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
/// With the matmul-workspace model, the depth of a matmul kernel's k
/// slices: a matmul with K up to this writes its epilogue's result over a
/// dying operand (kiln.in_place).
constexpr int64_t kOneSliceK = 256;

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

/// How the backend runs a step, for Budget's model of its memory.
struct MemoryModel {
  /// Kernels as --kiln-fuse forms them (with `fusion`), else op by op.
  bool fused = false;
  FusionOptions fusion;
  /// A matmul holds a workspace the size of its left operand, and writes
  /// its output over a dying input when K is one k slice.
  bool matmulWorkspace = false;
};

class Checkpointer {
public:
  Checkpointer(func::FuncOp fn, llvm::DenseSet<Operation *> &saved,
               MemoryModel model = {})
      : fn(fn), saved(saved), model(model) {}

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
    unsigned counted = 0;
    std::function<void(Operation *)> visit = [&](Operation *op) {
      if (tooLong || chain.contains(op))
        return;
      for (Value in : op->getOperands()) {
        Operation *p = in.getDefiningOp();
        if (!p || llvm::isa<ConstantOp>(p) || saved.contains(p) ||
            !mayRecompute(p) ||
            (stopAtBranches &&
             ((isBranchPoint(p) && !passable(p, op)) ||
              (isViewOp(p) && keptForBackward(p->getResult(0), op)))))
          continue;
        visit(p);
      }
      chain.insert(op);
      // Views cost nothing to recompute: only the other ops count.
      if (!isViewOp(op) && ++counted > kMaxChain)
        tooLong = true;
    };
    visit(def);
    if (tooLong)
      return {};
    return chain.takeVector();
  }

  /// Whether `op` reaches only compute-bound values, arguments and
  /// constants (its chain's leaves): recomputable as cheaply as any
  /// memory-bound op, with nothing else recomputed from it.
  bool fromComputeBoundOnly(ArrayRef<Operation *> chain,
                            function_ref<bool(Operation *)> mayRecompute) {
    llvm::SmallPtrSet<Operation *, 8> in(chain.begin(), chain.end());
    for (Operation *op : chain)
      for (Value x : op->getOperands()) {
        Operation *p = x.getDefiningOp();
        if (p && !in.contains(p) && mayRecompute(p) &&
            !llvm::isa<ConstantOp>(p) &&
            !(isViewOp(p) && keptForBackward(x, op)))
          return false;
      }
    return true;
  }

  /// Whether backward reads `v` itself or a view of it: its buffer lives
  /// into backward whatever is recomputed from it (the Q, K and V that a
  /// projection's views give).
  static bool keptForBackward(Value v, Operation *except = nullptr,
                              unsigned depth = 0) {
    for (Operation *u : v.getUsers()) {
      if (u == except)
        continue;
      if (readsForBackward(u))
        return true;
      if (depth < 4 && isViewOp(u) && u->getNumResults() == 1 &&
          keptForBackward(u->getResult(0), except, depth + 1))
        return true;
    }
    return false;
  }

  /// Whether a chain that reaches branch point `p` from `reader` may pass
  /// through it: when every other forward reader of `p` is a compute-bound
  /// op, whose output is saved. The branch then stays inside what is
  /// recomputed (the masked scores that a softmax's row max and its
  /// exponentials read; the exponentials that its sum and normalization
  /// read), and no chain runs down a residual stream, which the next
  /// block's ops also read.
  static bool passable(Operation *p, Operation *reader) {
    for (Value r : p->getResults())
      for (Operation *u : r.getUsers())
        if (u != reader && !readsForBackward(u) && !isComputeBound(u) &&
            !(isViewOp(u) && keptForBackward(u->getResult(0))))
          return false;
    return true;
  }

  /// Clones `chain` before the first reader of `v` on the backward side (a
  /// backward op or an earlier recompute clone) and points those readers
  /// at the clone.
  /// Returns the clones, producers first (empty when nothing reads `v` on
  /// the backward side).
  SmallVector<Operation *> recompute(Value v, ArrayRef<Operation *> chain) {
    Operation *first = nullptr;
    for (Operation &op : fn.getBody().front())
      if (readsForBackward(&op) &&
          llvm::is_contained(op.getOperands(), v)) {
        first = &op;
        break;
      }
    if (!first)
      return {};
    OpBuilder b(first);
    IRMapping map;
    SmallVector<Operation *> clones;
    for (Operation *op : chain) {
      Operation *clone = b.clone(*op, map);
      clone->setAttr(kRecomputedAttr, b.getUnitAttr());
      clone->removeAttr(kSavedAttr);
      clones.push_back(clone);
    }
    Value replacement = map.lookup(v);
    v.replaceUsesWithIf(replacement, [](OpOperand &use) {
      return readsForBackward(use.getOwner());
    });
    return clones;
  }

  /// Undoes the last recompute(v, ...), which made `clones`: the backward
  /// side reads `v` again and the clones go.
  void undo(Value v, ArrayRef<Operation *> clones) {
    clones.back()
        ->getResult(llvm::cast<OpResult>(v).getResultNumber())
        .replaceAllUsesWith(v);
    for (Operation *op : llvm::reverse(clones))
      op->erase();
  }

  /// Peak bytes alive when the step runs (the model the pass description
  /// gives): the kernels the backend runs, in program order (each kiln op
  /// alone without fusion), each output in a buffer of its own from its
  /// kernel to its last reader.
  int64_t peakBytes() {
    if (!model.fused)
      return simulate(fn, {});
    // Fusion copies recomputed values into their readers first: plan the
    // kernels of a copy of the function.
    auto copy = llvm::cast<func::FuncOp>(fn->clone());
    splitRecomputed(copy);
    splitUnfolds(copy);
    int64_t peak = simulate(copy, planKernels(copy, model.fusion));
    copy->erase();
    return peak;
  }

  /// Simulates `f` as the kernels `plans` (every other kiln op a kernel of
  /// its own): arguments live throughout, except those marked kiln.donated,
  /// which die after their last reader like any other value; a view lives
  /// in its source's buffer; ops whose results nothing returned reads do
  /// not run (later passes erase them). An elementwise kernel's output
  /// takes the buffer of a same-sized input that dies at it, as the
  /// runtimes do, and with `matmulWorkspace` so does a matmul's whose K is
  /// one k slice (kiln.in_place), and a matmul holds a workspace the size of
  /// its left operand (packed A) while it runs.
  int64_t simulate(func::FuncOp f, std::vector<KernelPlan> plans) {
    Block &block = f.getBody().front();
    Operation *ret = block.getTerminator();
    llvm::DenseMap<Operation *, unsigned> position;
    unsigned index = 0;
    for (Operation &op : block)
      position[&op] = index++;
    // Ops that the returned values need.
    llvm::DenseSet<Operation *> needed;
    SmallVector<Operation *> work;
    for (Value v : ret->getOperands())
      if (Operation *def = v.getDefiningOp())
        work.push_back(def);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!needed.insert(op).second)
        continue;
      for (Value in : op->getOperands())
        if (Operation *def = in.getDefiningOp())
          work.push_back(def);
    }
    // Steps: the planned kernels, then every other needed op alone, in the
    // order of their last ops.
    llvm::DenseSet<Operation *> planned;
    for (const KernelPlan &k : plans)
      planned.insert(k.ops.begin(), k.ops.end());
    for (Operation &op : block)
      if (&op != ret && needed.contains(&op) && !planned.contains(&op) &&
          !llvm::isa<ConstantOp>(op))
        plans.push_back({isFusibleElementwise(&op)
                             ? std::optional(KernelKind::Elementwise)
                             : std::nullopt,
                         {&op},
                         llvm::dyn_cast<MatmulOp>(op)});
    llvm::erase_if(plans, [&](const KernelPlan &k) {
      return llvm::none_of(k.ops,
                           [&](Operation *op) { return needed.contains(op); });
    });
    llvm::sort(plans, [&](const KernelPlan &x, const KernelPlan &y) {
      return position[x.ops.back()] < position[y.ops.back()];
    });
    // A view shares its source's buffer, which lives as long as the last
    // reader of either.
    llvm::DenseMap<Value, Value> rootOf;
    auto root = [&](Value v) {
      auto it = rootOf.find(v);
      return it == rootOf.end() ? v : it->second;
    };
    for (const KernelPlan &k : plans)
      if (k.ops.size() == 1 && isViewOp(k.ops.front()))
        rootOf[k.ops.front()->getResult(0)] =
            root(k.ops.front()->getOperand(0));
    llvm::DenseMap<Value, unsigned> lastStep;
    llvm::DenseSet<Value> returned;
    for (Value v : ret->getOperands())
      returned.insert(root(v));
    for (auto [i, k] : llvm::enumerate(plans))
      for (Operation *op : k.ops)
        for (Value in : op->getOperands()) {
          unsigned &last = lastStep[root(in)];
          last = std::max<unsigned>(last, i);
        }
    auto mayDie = [&](Value v) {
      if (returned.contains(v))
        return false;
      auto a = llvm::dyn_cast<BlockArgument>(v);
      return !a || f.getArgAttr(a.getArgNumber(), kDonatedAttr);
    };
    llvm::DenseMap<Value, int64_t> held;
    int64_t live = 0;
    for (BlockArgument a : block.getArguments())
      live += held[a] = bytesOf(a);
    for (Operation &op : block)
      if (llvm::isa<ConstantOp>(op) && needed.contains(&op))
        live += held[op.getResult(0)] = bytesOf(op.getResult(0));
    int64_t peak = live;
    for (auto [i, k] : llvm::enumerate(plans)) {
      if (k.ops.size() == 1 && isViewOp(k.ops.front()))
        continue;
      llvm::SmallPtrSet<Operation *, 16> inKernel(k.ops.begin(), k.ops.end());
      // Inputs that die here.
      SmallVector<Value> dying;
      for (Operation *op : k.ops)
        for (Value in : op->getOperands()) {
          Value r = root(in);
          Operation *def = r.getDefiningOp();
          if ((!def || !inKernel.contains(def)) && lastStep.lookup(r) == i &&
              mayDie(r) && !llvm::is_contained(dying, r))
            dying.push_back(r);
        }
      bool mayReuse = k.kind == KernelKind::Elementwise;
      int64_t workspace = 0;
      if (k.matmul) {
        Value lhs = k.matmul->getOperand(0);
        mayReuse =
            model.matmulWorkspace &&
            llvm::cast<RankedTensorType>(lhs.getType()).getShape().back() <=
                kOneSliceK;
        if (model.matmulWorkspace)
          workspace = bytesOf(lhs);
      }
      for (Operation *op : k.ops)
        for (Value r : op->getResults()) {
          bool output = llvm::any_of(r.getUsers(), [&](Operation *u) {
            return !inKernel.contains(u);
          });
          if (!output)
            continue;
          int64_t bytes = bytesOf(r);
          held[r] = bytes;
          bool reused = false;
          for (Value &d : dying)
            if (mayReuse && d && held.lookup(d) == bytes &&
                (!k.matmul ||
                 !llvm::is_contained(k.matmul->getOperands(), d))) {
              held[d] = 0; // its buffer is r's now
              d = Value();
              reused = true;
              break;
            }
          if (!reused)
            live += bytes;
        }
      peak = std::max(peak, live + workspace);
      for (Value d : dying)
        if (d) {
          live -= held.lookup(d);
          held[d] = 0;
        }
    }
    return peak;
  }

  func::FuncOp fn;
  llvm::DenseSet<Operation *> &saved;
  MemoryModel model;
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
      if (!fn.isExternal() && !fn->hasAttr(kKernelKindAttr))
        run(fn, s, budget);
    });
  }

  void run(func::FuncOp fn, const std::string &s, int64_t budget) {
    llvm::DenseSet<Operation *> saved;
    MemoryModel model;
    model.fused = fuse;
    model.fusion = {transposedOperands, matmulPrologues};
    model.matmulWorkspace = matmulWorkspace;
    Checkpointer c(fn, saved, model);
    if (s == "disabled") {
      markSaved(c);
      if (report)
        fn.emitRemark() << "--kiln-checkpoint: " << s << " plans a peak of "
                        << c.peakBytes() << " bytes";
      return;
    }
    // Balanced: recompute memory-bound values from saved compute-bound ones,
    // and products of two activations (both operands batched: attention's
    // Q K^T and P V). Those are cheap beside a layer's projections (2 d
    // FLOPs per element of a d-wide head, d small) and their results, the
    // scores above all, grow with the square of the sequence; recomputed
    // from the saved Q, K and V they store nothing.
    // A collective runs once per step on every rank: never recomputed.
    auto memoryBound = [](Operation *op) {
      if (isBackward(op) || !op->getDialect() ||
          op->getDialect()->getNamespace() != "kiln" || isCollectiveOp(op))
        return false;
      if (auto mm = llvm::dyn_cast<MatmulOp>(op)) {
        auto rank = [](Value v) {
          return llvm::cast<RankedTensorType>(v.getType()).getRank();
        };
        return rank(mm.getLhs()) >= 3 && rank(mm.getRhs()) >= 3;
      }
      return !isComputeBound(op);
    };
    // Branch points are saved and end every chain: the block input that
    // a layer norm and the residual add both read is kept, and the values
    // computed from it inside the block are recomputed from it. A chain
    // passes through a branch point computed from compute-bound values
    // alone, and such a branch point is recomputed like any other
    // memory-bound value (a softmax's exponentials, which its sum and its
    // normalization read, from the saved scores and row max).
    for (Value v : c.readByBackward()) {
      SmallVector<Operation *> chain =
          c.chainFor(v, memoryBound, /*stopAtBranches=*/true);
      if (!chain.empty() && (!Checkpointer::isBranchPoint(v.getDefiningOp()) ||
                             c.fromComputeBoundOnly(chain, memoryBound)))
        c.recompute(v, chain);
    }
    if (budget > 0) {
      // Budget: while the step's peak is over the budget, also recompute
      // the saved value whose recompute frees the most bytes per unit of
      // work, compute-bound ops included.
      auto anyForward = [](Operation *op) {
        return !isBackward(op) && op->getDialect() &&
               op->getDialect()->getNamespace() == "kiln" &&
               !isCollectiveOp(op);
      };
      llvm::DenseSet<Value> tried;
      SmallVector<std::pair<Value, SmallVector<Operation *>>> pending;
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
        SmallVector<Operation *> clones = c.recompute(best, bestChain);
        if (clones.empty())
          continue;
        int64_t next = c.peakBytes();
        // A recompute that raises the peak (its clones live longer than
        // the value did) is undone at once; one that leaves it where it was
        // is kept while later ones may need it (the peak may sit at two
        // points that each need one), and undone if none of them lowers
        // the peak.
        if (next > peak) {
          c.undo(best, clones);
          continue;
        }
        pending.push_back({best, clones});
        if (next < peak)
          pending.clear();
        peak = next;
      }
      for (auto &[v, clones] : llvm::reverse(pending))
        c.undo(v, clones);
      if (c.peakBytes() > budget)
        fn.emitWarning() << "--kiln-checkpoint: peak of " << c.peakBytes()
                         << " bytes stays over the budget of " << budget;
    }
    markSaved(c);
    if (report)
      fn.emitRemark() << "--kiln-checkpoint: " << s << " plans a peak of "
                      << c.peakBytes() << " bytes";
  }

  void markSaved(Checkpointer &c) {
    for (Value v : c.readByBackward())
      if (Operation *def = v.getDefiningOp())
        def->setAttr(kSavedAttr, UnitAttr::get(def->getContext()));
  }
};

} // namespace
