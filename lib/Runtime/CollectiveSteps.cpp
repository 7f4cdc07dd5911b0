//===- CollectiveSteps.cpp - Steps of the graph collectives ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// kiln.all_reduce_start hands a buffer to the calling thread's collective
// queue and gives the same buffer as its token; kiln.all_reduce_wait waits
// for it. The buffer is the input's own when the input dies at the start
// (a gradient bucket always does), else a copy, so that nothing else ever
// reads memory being reduced. With no queue (a job of one rank) both are
// identities.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Communicator.h"
#include "kiln/Runtime/HostSteps.h"

#include "llvm/ADT/DenseMap.h"

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::distributed;

namespace {

/// The collectives this thread started and has not waited for, by the
/// storage being reduced (a token's buffer).
thread_local llvm::DenseMap<const Storage *, PendingCollective> inFlight;

/// Starts the reduction of `in`; the token buffer.
Buffer start(const Buffer &in, bool reusable, ReduceOp op, StepContext &ctx) {
  CollectiveQueue *queue = currentCollectives();
  if (!queue)
    return in;
  Buffer token = in;
  if (!(reusable && in.isContiguous() && !in.storage->external)) {
    token = allocateBuffer(ctx.allocator, in.dtype, in.shape);
    copyToContiguous(in, token.data());
  }
  inFlight.insert_or_assign(token.storage.get(),
                            queue->allReduce(token.data(), token.numel(),
                                             token.dtype, op, token.storage));
  return token;
}

/// Waits for the reduction of `token`.
Buffer wait(const Buffer &token) {
  auto it = inFlight.find(token.storage.get());
  if (it == inFlight.end()) {
    if (!currentCollectives())
      return token;
    throw Error("internal error: kiln.all_reduce_wait: no all-reduce of "
                "this buffer was started on this thread");
  }
  PendingCollective pending = it->second;
  inFlight.erase(it);
  pending.wait();
  return token;
}

} // namespace

ReduceOp detail::reduceOpOf(const OpDesc &op) {
  return textAttr(op, "kind") == "mean" ? ReduceOp::Mean : ReduceOp::Sum;
}

void detail::registerCollectiveSteps(KernelRegistry &r) {
  r.add("kiln.all_reduce_start", [](const OpDesc &op) -> Step {
    ReduceOp kind = reduceOpOf(op);
    return [kind](llvm::ArrayRef<const Buffer *> in,
                  llvm::MutableArrayRef<Buffer> out, StepContext &ctx) {
      out[0] = start(*in[0], ctx.reusable && ctx.reusable[0], kind, ctx);
    };
  });
  r.add("kiln.all_reduce_wait", [](const OpDesc &) -> Step {
    return
        [](llvm::ArrayRef<const Buffer *> in, llvm::MutableArrayRef<Buffer> out,
           StepContext &) { out[0] = wait(*in[0]); };
  });
  // An all-reduce that --kiln-split-all-reduce has not split: both at once.
  r.add("kiln.all_reduce", [](const OpDesc &op) -> Step {
    ReduceOp kind = reduceOpOf(op);
    return [kind](llvm::ArrayRef<const Buffer *> in,
                  llvm::MutableArrayRef<Buffer> out, StepContext &ctx) {
      out[0] = wait(start(*in[0], ctx.reusable && ctx.reusable[0], kind, ctx));
    };
  });
}

void detail::reusableOperands(llvm::ArrayRef<int> operands,
                              llvm::ArrayRef<int> dying,
                              llvm::ArrayRef<Buffer> slots,
                              llvm::SmallVectorImpl<bool> &out) {
  out.assign(operands.size(), false);
  for (size_t i = 0; i < operands.size(); ++i) {
    int slot = operands[i];
    bool dies = llvm::is_contained(dying, slot);
    bool once = llvm::count(operands, slot) == 1;
    const Buffer &b = slots[slot];
    out[i] = dies && once && b.storage && b.storage.use_count() == 1 &&
             !b.storage->external;
  }
}
