//===- HostSteps.cpp - Plan steps over host buffers -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/HostSteps.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;

//===----------------------------------------------------------------------===//
// Op facts
//===----------------------------------------------------------------------===//

DType detail::operandDType(mlir::Operation *op, unsigned i) {
  return mlir::kiln::dtypeOf(op->getOperand(i).getType());
}
DType detail::resultDType(mlir::Operation *op, unsigned i) {
  return mlir::kiln::dtypeOf(op->getResult(i).getType());
}
std::vector<int64_t> detail::operandShape(mlir::Operation *op, unsigned i) {
  auto t = llvm::cast<mlir::RankedTensorType>(op->getOperand(i).getType());
  return {t.getShape().begin(), t.getShape().end()};
}
std::vector<int64_t> detail::resultShape(mlir::Operation *op, unsigned i) {
  auto t = llvm::cast<mlir::RankedTensorType>(op->getResult(i).getType());
  return {t.getShape().begin(), t.getShape().end()};
}

std::vector<int64_t> detail::withDynamicSize(std::vector<int64_t> dims,
                                             int64_t s) {
  for (int64_t &d : dims)
    if (mlir::ShapedType::isDynamic(d))
      d = s;
  return dims;
}

static mlir::Attribute requireAttr(mlir::Operation *op, llvm::StringRef name) {
  mlir::Attribute a = op->getAttr(name);
  if (!a)
    throw Error("runtime: " + op->getName().getStringRef().str() +
                " has no attribute '" + name.str() + "'");
  return a;
}
std::vector<int64_t> detail::arrayAttr(mlir::Operation *op,
                                       llvm::StringRef name) {
  auto a = llvm::cast<mlir::DenseI64ArrayAttr>(requireAttr(op, name));
  return {a.asArrayRef().begin(), a.asArrayRef().end()};
}
double detail::floatAttr(mlir::Operation *op, llvm::StringRef name) {
  return llvm::cast<mlir::FloatAttr>(requireAttr(op, name)).getValueAsDouble();
}
int64_t detail::intAttr(mlir::Operation *op, llvm::StringRef name) {
  return llvm::cast<mlir::IntegerAttr>(requireAttr(op, name)).getInt();
}
bool detail::unitAttr(mlir::Operation *op, llvm::StringRef name) {
  return static_cast<bool>(op->getAttr(name));
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

/// Evaluates a kiln.constant into a buffer (a splat becomes one element
/// seen through stride-0 strides).
Buffer detail::constantBuffer(mlir::kiln::ConstantOp op, Allocator &allocator) {
  auto attr = llvm::cast<mlir::DenseElementsAttr>(op.getValue());
  DType dtype = mlir::kiln::dtypeOf(op.getType());
  std::vector<int64_t> shape = resultShape(op);
  std::vector<int64_t> storedShape =
      attr.isSplat() ? std::vector<int64_t>{} : shape;
  Buffer b = allocateBuffer(allocator, dtype, storedShape);
  int64_t n = attr.isSplat() ? 1 : attr.getNumElements();
  mlir::Type e = attr.getElementType();
  dispatchAny(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *dst = b.as<T>();
    if (llvm::isa<mlir::FloatType>(e)) {
      auto values = attr.getValues<llvm::APFloat>();
      for (int64_t k = 0; k < n; ++k)
        dst[k] = storeAs<T>(static_cast<typename ComputeOf<T>::type>(
            values[k].convertToDouble()));
    } else {
      auto values = attr.getValues<llvm::APInt>();
      bool isUnsigned = e.isUnsignedInteger() || e.isInteger(1);
      for (int64_t k = 0; k < n; ++k) {
        int64_t v = isUnsigned ? (int64_t)values[k].getZExtValue()
                               : values[k].getSExtValue();
        dst[k] = storeAs<T>(static_cast<typename ComputeOf<T>::type>(v));
      }
    }
  });
  if (attr.isSplat())
    b = broadcastView(b, shape);
  return b;
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

Step buildReshape(mlir::Operation *op) {
  std::vector<int64_t> shape = resultShape(op);
  // One dynamic dim takes what the operand's elements leave for it (S
  // times the static sizes it merged, a reshape of [S, T, D] to [S*T, D]).
  int64_t dynamicAt = -1, staticCount = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!mlir::ShapedType::isDynamic(shape[i]))
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

Step buildSqueeze(mlir::Operation *op) {
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

Step buildUnsqueeze(mlir::Operation *op) {
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

Step buildPermute(mlir::Operation *op) {
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

Step buildExpand(mlir::Operation *op) {
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    // A dynamic dim is the operand's (an expand keeps, never makes, one).
    std::vector<int64_t> dims = shape;
    size_t lead = dims.size() - ops[0]->shape.size();
    for (size_t i = 0; i < dims.size(); ++i)
      if (mlir::ShapedType::isDynamic(dims[i]))
        dims[i] = i >= lead ? ops[0]->shape[i - lead] : 1;
    res[0] = broadcastView(*ops[0], dims);
  };
}

Step buildSlice(mlir::Operation *op) {
  std::vector<int64_t> starts = arrayAttr(op, "starts"),
                       steps = arrayAttr(op, "steps"), shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &) {
    // A dynamic dim is sliced whole: the operand's size.
    std::vector<int64_t> dims = shape;
    for (size_t i = 0; i < dims.size(); ++i)
      if (mlir::ShapedType::isDynamic(dims[i]))
        dims[i] = ops[0]->shape[i];
    res[0] = sliceView(*ops[0], starts, steps, dims);
  };
}

Step buildFlip(mlir::Operation *op) {
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
