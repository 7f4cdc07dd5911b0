//===- FlexShape.cpp - Layout kernels of Flex -----------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The shape ops that copy (slice_assign, concat, split, repeat, pad); the
// views are the host steps every host backend shares (registerViewSteps).
//
//===----------------------------------------------------------------------===//

#include "FlexKernels.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

void flex::copyInto(const Buffer &src, const Buffer &dst) {
  // Signed: a flipped view walks its source with a negative stride.
  const int64_t bytes = static_cast<int64_t>(dst.elementBytes());
  Buffer s = broadcastView(src, dst.shape);
  elementwiseLoop(dst, {s}, [bytes](char **p, const int64_t *st, int64_t n) {
    if (st[0] == 1 && st[1] == 1) {
      std::memmove(p[0], p[1], n * bytes);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(p[0] + i * st[0] * bytes, p[1] + i * st[1] * bytes, bytes);
  });
}

namespace {

Step buildSliceAssign(const OpDesc &op) {
  std::vector<int64_t> starts = arrayAttr(op, "starts"),
                       steps = arrayAttr(op, "steps"),
                       region = operandShape(op, 0);
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &value = *ops[0], &dest = *ops[1];
    // Write into the destination itself when it dies here.
    Buffer out;
    if (ctx.reusable && ctx.reusable[1] && dest.isContiguous() &&
        dest.offset == 0) {
      out = dest;
    } else {
      out = allocateBuffer(ctx.allocator, dt, shape);
      copyInto(dest, out);
    }
    copyInto(value, sliceView(out, starts, steps, region));
    res[0] = out;
  };
}

Step buildConcat(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    int64_t at = 0;
    for (const Buffer *in : ops) {
      Buffer region = out;
      region.shape = in->shape;
      region.offset += at * out.strides[axis];
      copyInto(*in, region);
      at += in->shape[axis];
    }
    res[0] = out;
  };
}

Step buildSplit(const OpDesc &op) {
  int64_t axis = intAttr(op, "axis");
  std::vector<int64_t> sizes = arrayAttr(op, "sizes");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    const Buffer &in = *ops[0];
    int64_t at = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      Buffer v = in;
      v.shape[axis] = sizes[k];
      v.offset += at * in.strides[axis];
      res[k] = v;
      at += sizes[k];
    }
  };
}

Step buildRepeat(const OpDesc &op) {
  std::vector<int64_t> repeats = arrayAttr(op, "repeats");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &in = *ops[0];
    // View the output as [r0, d0, r1, d1, ...] and broadcast the input over
    // the r dims.
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    Buffer dst = out, src = in;
    dst.shape.clear();
    dst.strides.clear();
    src.shape.clear();
    src.strides.clear();
    for (size_t i = 0; i < repeats.size(); ++i) {
      dst.shape.push_back(repeats[i]);
      dst.strides.push_back(out.strides[i] * in.shape[i]);
      dst.shape.push_back(in.shape[i]);
      dst.strides.push_back(out.strides[i]);
      src.shape.push_back(repeats[i]);
      src.strides.push_back(0);
      src.shape.push_back(in.shape[i]);
      src.strides.push_back(in.strides[i]);
    }
    copyInto(src, dst);
    res[0] = out;
  };
}

Step buildPad(const OpDesc &op) {
  std::vector<int64_t> low = arrayAttr(op, "low");
  double value = floatAttr(op, "value");
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &in = *ops[0];
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    dispatchAny(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      T fill = storeAs<T>(static_cast<C>(value));
      T *o = out.as<T>();
      for (int64_t i = 0, n = out.numel(); i < n; ++i)
        o[i] = fill;
    });
    Buffer interior = out;
    interior.shape = in.shape;
    for (size_t i = 0; i < low.size(); ++i)
      interior.offset += low[i] * out.strides[i];
    copyInto(in, interior);
    res[0] = out;
  };
}

} // namespace

void flex::registerShapeKernels(KernelRegistry &r) {
  registerViewSteps(r);
  r.add("kiln.slice_assign", buildSliceAssign);
  r.add("kiln.concat", buildConcat);
  r.add("kiln.split", buildSplit);
  r.add("kiln.repeat", buildRepeat);
  r.add("kiln.pad", buildPad);
}
