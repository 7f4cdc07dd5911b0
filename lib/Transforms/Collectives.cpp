//===- Collectives.cpp - Gradient buckets, all-reduce start and wait ------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// --kiln-bucket-gradients packs the all-reduces of a step into a few
// contiguous buffers; --kiln-split-all-reduce then turns each all-reduce
// into a start right after its input is made and a wait just before its
// first reader, so that communication overlaps the rest of backward.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNBUCKETGRADIENTS
#define GEN_PASS_DEF_KILNSPLITALLREDUCE
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Positions of the ops of one block, for "which comes first".
class Positions {
public:
  explicit Positions(Block &block) {
    int64_t i = 0;
    for (Operation &op : block)
      at_[&op] = i++;
    block_ = &block;
  }
  /// Where `v` is made: its op's position, or -1 for a block argument.
  int64_t madeAt(Value v) const {
    Operation *def = v.getDefiningOp();
    return def ? of(def) : -1;
  }
  /// The position of `op`, or of its ancestor in the block.
  int64_t of(Operation *op) const {
    Operation *inBlock = block_->findAncestorOpInBlock(*op);
    return inBlock ? at_.lookup(inBlock) : std::numeric_limits<int64_t>::max();
  }
  /// The position of the first op that reads `v`.
  int64_t firstUse(Value v) const {
    int64_t first = std::numeric_limits<int64_t>::max();
    for (Operation *user : v.getUsers())
      first = std::min(first, of(user));
    return first;
  }

private:
  llvm::DenseMap<Operation *, int64_t> at_;
  Block *block_;
};

/// The op of `block` that first reads `v` (directly or inside a region);
/// the terminator when none does, so that whatever is placed before it
/// still runs before the function returns.
Operation *firstReaderIn(Block &block, Value v) {
  Operation *first = block.getTerminator();
  for (Operation *user : v.getUsers())
    if (Operation *inBlock = block.findAncestorOpInBlock(*user))
      if (inBlock->isBeforeInBlock(first))
        first = inBlock;
  return first;
}

int64_t bytesOf(Value v) {
  auto t = llvm::cast<RankedTensorType>(v.getType());
  return t.getNumElements() *
         static_cast<int64_t>((t.getElementTypeBitWidth() + 7) / 8);
}

struct Bucket {
  SmallVector<AllReduceOp> ops;
  int64_t bytes = 0;
  int64_t lastMade = -1; ///< where the last input is made
  int64_t firstUse = std::numeric_limits<int64_t>::max();
};

/// One all-reduce of the concatenation of `bucket`'s inputs, placed right
/// after the last of them is made; each result becomes a view of it, made
/// just before the result's first reader.
void packBucket(Bucket &bucket, Block &block) {
  OpBuilder b(block.getParentOp()->getContext());
  // After the latest input; before the first op of the block when every
  // input is an argument.
  Operation *after = nullptr;
  for (AllReduceOp op : bucket.ops)
    if (Operation *def = op.getInput().getDefiningOp())
      if (!after || after->isBeforeInBlock(def))
        after = def;
  if (after)
    b.setInsertionPointAfter(after);
  else
    b.setInsertionPointToStart(&block);
  Location loc = bucket.ops.front().getLoc();
  SmallVector<Value> flat;
  for (AllReduceOp op : bucket.ops) {
    auto t = llvm::cast<RankedTensorType>(op.getInput().getType());
    flat.push_back(reshapeTo(
        b, loc, op.getInput(),
        RankedTensorType::get({t.getNumElements()}, t.getElementType())));
  }
  Value packed = ConcatOp::create(b, loc, flat, /*axis=*/0);
  Value reduced =
      AllReduceOp::create(b, loc, packed, bucket.ops.front().getKind());
  // Each view just before the first reader of its gradient: a view reads
  // the reduced buffer, so the wait that --kiln-split-all-reduce puts
  // before the first reader must not be pulled up to the all-reduce.
  int64_t offset = 0;
  SmallVector<Value> views;
  for (AllReduceOp op : bucket.ops) {
    auto t = llvm::cast<RankedTensorType>(op.getType());
    int64_t n = t.getNumElements();
    OpBuilder at(firstReaderIn(block, op.getResult()));
    Value part = SliceOp::create(
        at, loc, reduced, at.getDenseI64ArrayAttr(offset),
        at.getDenseI64ArrayAttr(offset + n), at.getDenseI64ArrayAttr(1));
    offset += n;
    views.push_back(reshapeTo(at, loc, part, t));
  }
  // Only now: the builder may be inserting before one of these.
  for (auto [op, view] : llvm::zip_equal(bucket.ops, views)) {
    op.getResult().replaceAllUsesWith(view);
    op.erase();
  }
}

struct KilnBucketGradientsPass
    : public mlir::kiln::impl::KilnBucketGradientsBase<
          KilnBucketGradientsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || !fn.getBody().hasOneBlock())
      return;
    Block &block = fn.getBody().front();
    Positions pos(block);
    SmallVector<AllReduceOp> ops;
    for (auto op : block.getOps<AllReduceOp>())
      if (op.getType().hasStaticShape())
        ops.push_back(op);
    // In the order backward makes the inputs.
    std::stable_sort(ops.begin(), ops.end(), [&](AllReduceOp x, AllReduceOp y) {
      return pos.madeAt(x.getInput()) < pos.madeAt(y.getInput());
    });

    int64_t total = 0;
    for (AllReduceOp op : ops)
      total += bytesOf(op.getInput());
    int64_t laterLimit = bucketBytes;
    if (minBuckets > 1)
      laterLimit = std::min(laterLimit,
                            std::max<int64_t>(firstBucketBytes,
                                              total / minBuckets));

    SmallVector<Bucket> buckets;
    for (AllReduceOp op : ops) {
      int64_t bytes = bytesOf(op.getInput());
      int64_t made = pos.madeAt(op.getInput());
      int64_t use = pos.firstUse(op.getResult());
      bool fits = false;
      if (!buckets.empty()) {
        Bucket &last = buckets.back();
        int64_t limit = buckets.size() == 1 ? firstBucketBytes : laterLimit;
        AllReduceOp head = last.ops.front();
        // The packed reduction goes after the last input: every result
        // must still be read after it.
        fits = elementTypeOf(head.getInput()) == elementTypeOf(op.getInput()) &&
               head.getKind() == op.getKind() && last.bytes + bytes <= limit &&
               std::max(last.lastMade, made) < std::min(last.firstUse, use);
      }
      if (!fits)
        buckets.emplace_back();
      Bucket &into = buckets.back();
      into.ops.push_back(op);
      into.bytes += bytes;
      into.lastMade = std::max(into.lastMade, made);
      into.firstUse = std::min(into.firstUse, use);
    }
    for (Bucket &bucket : buckets)
      if (bucket.ops.size() > 1)
        packBucket(bucket, block);
  }
};

struct KilnSplitAllReducePass
    : public mlir::kiln::impl::KilnSplitAllReduceBase<KilnSplitAllReducePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || !fn.getBody().hasOneBlock())
      return;
    Block &block = fn.getBody().front();
    SmallVector<AllReduceOp> ops(block.getOps<AllReduceOp>());
    for (AllReduceOp op : ops) {
      OpBuilder b(op);
      // The start as early as its input allows.
      if (Operation *def = op.getInput().getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(&block);
      Value token =
          AllReduceStartOp::create(b, op.getLoc(), op.getInput(), op.getKind());
      // The wait as late as its first reader allows.
      b.setInsertionPoint(firstReaderIn(block, op.getResult()));
      Value result = AllReduceWaitOp::create(b, op.getLoc(), token);
      op.getResult().replaceAllUsesWith(result);
      op.erase();
    }
  }
};

} // namespace
