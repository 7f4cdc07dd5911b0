//===- FlexCreation.cpp - Creation kernels of Flex ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "FlexConvert.h"
#include "FlexKernels.h"

#include "kiln/Support/Random.h"

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

/// Fills a fresh buffer with f(i) (a double) for every flat index i, in
/// parallel, rounding each value once to the dtype. `below`, when set, is
/// an exclusive upper bound that rounding must not reach.
template <typename F>
Buffer generate(StepContext &ctx, DType dt, const std::vector<int64_t> &shape,
                F f, std::optional<double> below = std::nullopt) {
  Buffer out = allocateBuffer(ctx.allocator, dt, shape);
  dispatchAny(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *o = out.as<T>();
    // The largest T under the bound, for values that round up onto it.
    T cap{};
    bool capped = false;
    if constexpr (isFloatLike<T>) {
      if (below) {
        capped = true;
        cap = narrowTo<T>(*below);
        while (static_cast<double>(load(cap)) >= *below)
          cap = nextDown(cap);
      }
    }
    parallelFor(out.numel(), 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        T v = narrowTo<T>(f(i));
        if (capped && static_cast<double>(load(v)) >= *below)
          v = cap;
        o[i] = v;
      }
    });
  });
  return out;
}

Step buildFull(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  double value = floatAttr(op, "value");
  return [=](llvm::ArrayRef<const Buffer *>, llvm::MutableArrayRef<Buffer> res,
             StepContext &ctx) {
    // One element seen through stride-0 strides.
    Buffer one = generate(ctx, dt, {}, [&](int64_t) { return value; });
    res[0] = broadcastView(one, shape);
  };
}

Step buildArange(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  double start = floatAttr(op, "start"), step = floatAttr(op, "step");
  return [=](llvm::ArrayRef<const Buffer *>, llvm::MutableArrayRef<Buffer> res,
             StepContext &ctx) {
    res[0] = generate(ctx, dt, shape, [&](int64_t i) {
      return start + static_cast<double>(i) * step;
    });
  };
}

Step buildEye(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  int64_t cols = shape[1];
  return [=](llvm::ArrayRef<const Buffer *>, llvm::MutableArrayRef<Buffer> res,
             StepContext &ctx) {
    res[0] = generate(ctx, dt, shape, [&](int64_t i) {
      return i / cols == i % cols ? 1.0 : 0.0;
    });
  };
}

/// The seed of a random op: its attribute plus its rank-0 i64 offset
/// operand, the only operand it can have here.
uint64_t seedOf(uint64_t attrSeed, llvm::ArrayRef<const Buffer *> args) {
  if (args.empty())
    return attrSeed;
  return attrSeed + static_cast<uint64_t>(args[0]->as<int64_t>()[0]);
}

Step buildRand(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  uint64_t attrSeed = static_cast<uint64_t>(intAttr(op, "seed"));
  double low = floatAttr(op, "low"), high = floatAttr(op, "high");
  return [=](llvm::ArrayRef<const Buffer *> args,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    uint64_t seed = seedOf(attrSeed, args);
    // low + (high - low) * u is below high in exact arithmetic, but can
    // round up onto it (bf16 keeps 8 bits; f32 from [1, 2) keeps 23).
    res[0] = generate(
        ctx, dt, shape,
        [&](int64_t i) {
          return low + (high - low) * random::uniform(seed, i);
        },
        high);
  };
}

Step buildRandn(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  uint64_t attrSeed = static_cast<uint64_t>(intAttr(op, "seed"));
  double mean = floatAttr(op, "mean"), stddev = floatAttr(op, "std");
  return [=](llvm::ArrayRef<const Buffer *> args,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    uint64_t seed = seedOf(attrSeed, args);
    res[0] = generate(ctx, dt, shape, [&](int64_t i) {
      return mean + stddev * random::normal(seed, i);
    });
  };
}

} // namespace

void flex::registerCreationKernels(KernelRegistry &r) {
  r.add("kiln.full", buildFull);
  r.add("kiln.arange", buildArange);
  r.add("kiln.eye", buildEye);
  r.add("kiln.rand", buildRand);
  r.add("kiln.randn", buildRandn);
}
