//===- HostSteps.cpp - Plan steps over host buffers -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/HostSteps.h"
#include "kiln/Support/ShapeRules.h"

#include <algorithm>
#include <cstring>

using namespace kiln;
using namespace kiln::detail;

std::vector<int64_t> detail::withDynamicSize(std::vector<int64_t> dims,
                                             int64_t s) {
  for (int64_t &d : dims)
    if (d == rules::kDynamic)
      d = s;
  return dims;
}

//===----------------------------------------------------------------------===//
// Views and constants
//===----------------------------------------------------------------------===//

Buffer detail::broadcastView(const Buffer &b,
                             const std::vector<int64_t> &shape) {
  if (b.shape == shape)
    return b;
  Buffer v = b;
  size_t lead = shape.size() - b.shape.size();
  v.shape = shape;
  v.strides.assign(shape.size(), 0);
  for (size_t i = 0; i < b.shape.size(); ++i)
    v.strides[lead + i] = b.shape[i] == 1 ? 0 : b.strides[i];
  return v;
}

/// Whether the Cpu kernels can read `b` in place: Kiln's own buffers are
/// 64-byte aligned and padded to whole 64-byte lines (the kernels read
/// whole lines); external memory (DLPack) is read in place only when it
/// is too.
static bool readableInPlace(const Buffer &b) {
  if (!b.storage || !b.storage->external)
    return true;
  return reinterpret_cast<uintptr_t>(b.storage->data) % 64 == 0 &&
         b.storage->bytes % 64 == 0;
}

Buffer detail::contiguous(const Buffer &b, Allocator &allocator) {
  if (b.isContiguous() && readableInPlace(b))
    return b;
  Buffer out = allocateBuffer(allocator, b.dtype, b.shape);
  copyToContiguous(b, out.data());
  return out;
}

/// A kiln.constant's buffer: its `value` holds the stored elements (one,
/// seen through stride-0 strides, when every element is the same).
Buffer detail::constantBuffer(const OpDesc &op, Allocator &allocator) {
  const OpAttr &value = op.require("value", OpAttr::Kind::Bytes);
  DType dtype = resultDType(op);
  const std::vector<int64_t> &shape = resultShape(op);
  bool splat = value.i != 0;
  std::vector<int64_t> storedShape = splat ? std::vector<int64_t>{} : shape;
  Buffer b = allocateBuffer(allocator, dtype, storedShape);
  size_t bytes = static_cast<size_t>(b.numel()) * dtype.byteSize();
  if (value.text.size() != bytes)
    throw Error("runtime: a " + dtype.str() + " constant of " +
                std::to_string(b.numel()) + " elements holds " +
                std::to_string(value.text.size()) + " bytes");
  std::memcpy(b.data(), value.text.data(), bytes);
  return splat ? broadcastView(b, shape) : b;
}

Buffer detail::sliceView(const Buffer &b, const std::vector<int64_t> &starts,
                         const std::vector<int64_t> &steps,
                         const std::vector<int64_t> &shape) {
  Buffer v = b;
  for (size_t i = 0; i < shape.size(); ++i) {
    v.offset += starts[i] * b.strides[i];
    v.strides[i] = b.strides[i] * steps[i];
    v.shape[i] = shape[i];
  }
  return v;
}

namespace {

/// The view of `b` with `shape`, when row-major order allows it.
Buffer reshapeView(const Buffer &b, const std::vector<int64_t> &shape,
                   Allocator &allocator) {
  Buffer src = contiguous(b, allocator);
  Buffer v = src;
  v.shape = shape;
  v.strides = Buffer::contiguousStrides(shape);
  return v;
}

Step buildReshape(const OpDesc &op) {
  std::vector<int64_t> shape = resultShape(op);
  // One dynamic dim takes what the operand's elements leave for it (S
  // times the static sizes it merged, a reshape of [S, T, D] to [S*T, D]).
  int64_t dynamicAt = -1, staticCount = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != rules::kDynamic)
      staticCount *= shape[i];
    else
      dynamicAt = dynamicAt == -1 ? static_cast<int64_t>(i) : -2;
  }
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    std::vector<int64_t> dims = withDynamicSize(shape, ctx.dynamicSize);
    if (dynamicAt >= 0 && staticCount > 0)
      dims[dynamicAt] = ops[0]->numel() / staticCount;
    res[0] = reshapeView(*ops[0], dims, ctx.allocator);
  };
}

Step buildSqueeze(const OpDesc &op) {
  std::vector<int64_t> axes = arrayAttr(op, "axes");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    const Buffer &in = *ops[0];
    Buffer v = in;
    v.shape.clear();
    v.strides.clear();
    for (int i = 0; i < in.rank(); ++i) {
      if (std::find(axes.begin(), axes.end(), i) != axes.end())
        continue;
      v.shape.push_back(in.shape[i]);
      v.strides.push_back(in.strides[i]);
    }
    res[0] = v;
  };
}

Step buildUnsqueeze(const OpDesc &op) {
  std::vector<int64_t> axes = arrayAttr(op, "axes");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    const Buffer &in = *ops[0];
    Buffer v = in;
    v.shape.clear();
    v.strides.clear();
    size_t next = 0;
    int64_t rank = in.rank() + static_cast<int64_t>(axes.size());
    for (int64_t i = 0; i < rank; ++i) {
      if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
        v.shape.push_back(1);
        v.strides.push_back(0);
        continue;
      }
      v.shape.push_back(in.shape[next]);
      v.strides.push_back(in.strides[next]);
      ++next;
    }
    res[0] = v;
  };
}

Step buildPermute(const OpDesc &op) {
  std::vector<int64_t> dims = arrayAttr(op, "dims");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    const Buffer &in = *ops[0];
    Buffer v = in;
    for (size_t i = 0; i < dims.size(); ++i) {
      v.shape[i] = in.shape[dims[i]];
      v.strides[i] = in.strides[dims[i]];
    }
    res[0] = v;
  };
}

Step buildExpand(const OpDesc &op) {
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    // A dynamic dim is the operand's (an expand keeps, never makes, one).
    std::vector<int64_t> dims = shape;
    size_t lead = dims.size() - ops[0]->shape.size();
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] == rules::kDynamic)
        dims[i] = i >= lead ? ops[0]->shape[i - lead] : 1;
    res[0] = broadcastView(*ops[0], dims);
  };
}

Step buildSlice(const OpDesc &op) {
  std::vector<int64_t> starts = arrayAttr(op, "starts"),
                       steps = arrayAttr(op, "steps"), shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    // A dynamic dim is sliced whole: the operand's size.
    std::vector<int64_t> dims = shape;
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] == rules::kDynamic)
        dims[i] = ops[0]->shape[i];
    res[0] = sliceView(*ops[0], starts, steps, dims);
  };
}

Step buildFlip(const OpDesc &op) {
  std::vector<int64_t> axes = arrayAttr(op, "axes");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    Buffer v = *ops[0];
    for (int64_t a : axes) {
      if (v.shape[a] == 0)
        continue;
      v.offset += (v.shape[a] - 1) * v.strides[a];
      v.strides[a] = -v.strides[a];
    }
    res[0] = v;
  };
}

} // namespace

void detail::registerViewSteps(KernelRegistry &r) {
  r.add("kiln.reshape", buildReshape);
  r.add("kiln.squeeze", buildSqueeze);
  r.add("kiln.unsqueeze", buildUnsqueeze);
  r.add("kiln.permute", buildPermute);
  r.add("kiln.expand", buildExpand);
  r.add("kiln.slice", buildSlice);
  r.add("kiln.flip", buildFlip);
}
