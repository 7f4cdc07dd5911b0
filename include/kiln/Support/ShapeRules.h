//===- ShapeRules.h - Shape rules of every kiln op --------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The shape rule of each op, written once. The dialect's verifiers and type
// inference and the C++ API's recorder both call these, so an error reads the
// same in tensor-opt and at the API. Nothing here depends on MLIR or LLVM.
//
// Every rule returns an empty string on success and a message otherwise.
// Dims are int64_t; kDynamic marks an unknown size and propagates.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_SHAPERULES_H
#define KILN_SUPPORT_SHAPERULES_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::rules {

/// Same value as mlir::ShapedType::kDynamic.
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

using Dims = std::vector<int64_t>;

/// A read-only view of dims: of a std::vector, an initializer list, or any
/// contiguous container of int64_t with data() and size() (llvm::ArrayRef
/// and SmallVector among them, without this header knowing LLVM).
class DimsRef {
public:
  DimsRef() = default;
  DimsRef(const int64_t *data, size_t size) : data_(data), size_(size) {}
  DimsRef(std::initializer_list<int64_t> dims)
      : data_(dims.begin()), size_(dims.size()) {}
  template <typename C,
            typename = std::enable_if_t<std::is_convertible_v<
                decltype(std::declval<const C &>().data()), const int64_t *>>>
  DimsRef(const C &c) : data_(c.data()), size_(c.size()) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t *data() const { return data_; }
  const int64_t *begin() const { return data_; }
  const int64_t *end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t back() const { return data_[size_ - 1]; }
  bool contains(int64_t v) const {
    for (int64_t d : *this)
      if (d == v)
        return true;
    return false;
  }
  DimsRef drop_front(size_t n = 1) const {
    return DimsRef(data_ + n, size_ - n);
  }
  DimsRef drop_back(size_t n = 1) const { return DimsRef(data_, size_ - n); }
  Dims vec() const { return Dims(begin(), end()); }

private:
  const int64_t *data_ = nullptr;
  size_t size_ = 0;
};

inline bool isDynamic(int64_t d) { return d == kDynamic; }

/// "[2, ?, 3]".
std::string formatDims(DimsRef dims);

/// Product of the dims, or kDynamic if any is dynamic or the product does not
/// fit in int64_t.
int64_t numElements(DimsRef dims);

/// The static dims' element count, and that times `elementBytes`, fit in
/// int64 (a dynamic dim counts as 1: it is checked when it is known).
std::string checkSize(DimsRef dims, int64_t elementBytes);

/// For reductions with no value over nothing (max, argmax, ...): no axis of
/// `axes` has size 0 in `in`.
std::string reduceNonEmpty(DimsRef in, DimsRef axes);

std::string checkAxis(int64_t axis, int64_t rank, const char *what = "axis");
std::string checkAxes(DimsRef axes, int64_t rank);

std::string broadcast(DimsRef a, DimsRef b, Dims &out);
std::string reduce(DimsRef in, DimsRef axes, bool keepdim, Dims &out);
std::string matmul(DimsRef a, DimsRef b, Dims &out);

std::string reshape(DimsRef in, DimsRef target, Dims &out);
std::string permute(DimsRef in, DimsRef perm, Dims &out);
std::string expand(DimsRef in, DimsRef target, Dims &out);
std::string slice(DimsRef in, DimsRef starts, DimsRef ends, DimsRef steps,
                  Dims &out);
std::string sliceAssign(DimsRef dest, DimsRef value, DimsRef starts,
                        DimsRef ends, DimsRef steps);
std::string concat(const std::vector<DimsRef> &ins, int64_t axis, Dims &out);
std::string split(DimsRef in, DimsRef sizes, int64_t axis,
                  std::vector<Dims> &outs);
std::string squeeze(DimsRef in, DimsRef axes, Dims &out);
std::string unsqueeze(DimsRef in, DimsRef axes, Dims &out);
std::string repeat(DimsRef in, DimsRef repeats, Dims &out);
std::string pad(DimsRef in, DimsRef low, DimsRef high, Dims &out);

std::string gather(DimsRef in, DimsRef indices, int64_t axis, Dims &out);
std::string scatterAdd(DimsRef in, DimsRef indices, DimsRef updates,
                       int64_t axis);
std::string indexSelect(DimsRef in, DimsRef indices, int64_t axis, Dims &out);
/// The mask broadcasts to the input's shape; a dynamic dim on either side is
/// checked at run time.
std::string maskFill(DimsRef in, DimsRef mask);
std::string embedding(DimsRef weight, DimsRef indices, Dims &out);

/// `bias` may be null. Attribute arrays have one entry per spatial dim.
std::string conv(DimsRef in, DimsRef weight, const DimsRef *bias,
                 DimsRef stride, DimsRef padding, DimsRef dilation,
                 int64_t groups, Dims &out);
std::string pool2d(DimsRef in, DimsRef kernel, DimsRef stride,
                   DimsRef padding, Dims &out);
/// The columns of a 2-D convolution's windows: NCHW input to
/// [N, C * KH * KW, HO * WO], or to [C * KH * KW, N * HO * WO] with the
/// images along the columns.
std::string unfold(DimsRef in, DimsRef kernel, DimsRef stride, DimsRef padding,
                   DimsRef dilation, bool imagesInColumns, Dims &out);
std::string layerNorm(DimsRef in, const DimsRef *weight, const DimsRef *bias);
/// kiln.rope of [..., T, D]: rank >= 2, D static and even, theta > 0.
std::string rope(DimsRef in, double theta);
/// The transposed convolution (conv1d or conv2d's gradient with respect to
/// its input) of [N, C_in, spatial...] with weight [C_in, C_out / groups,
/// kernel...]: spatial size (in - 1) * stride - 2 * padding + dilation *
/// (k - 1) + output_padding + 1, output_padding below stride or dilation.
std::string convTranspose(DimsRef in, DimsRef weight, const DimsRef *bias,
                          DimsRef stride, DimsRef padding,
                          DimsRef outputPadding, DimsRef dilation,
                          int64_t groups, Dims &out);
/// 1-D or 2-D pooling of [N, C, spatial...] (one kernel entry per spatial
/// dim) with dilation and, with `ceilMode`, the last partial window kept
/// when it starts inside the input or its low padding (PyTorch's rule).
std::string pool(DimsRef in, DimsRef kernel, DimsRef stride, DimsRef padding,
                 DimsRef dilation, bool ceilMode, Dims &out);
/// Resizing [N, C, L] or [N, C, H, W] (static spatial dims) to `size`,
/// nearest or `linear`; `scales` (per spatial dim, or none) are the
/// factors that map coordinates when given.
std::string interpolate(DimsRef in, DimsRef size, bool linear,
                        bool alignCorners, const std::vector<double> &scales,
                        Dims &out);
/// [N, C, ...] normalized per channel: mean, var and the optional weight
/// and bias are [C].
std::string batchNorm(DimsRef in, DimsRef mean, DimsRef var,
                      const DimsRef *weight, const DimsRef *bias);
/// [N, C, ...] with static C and spatial dims, `groups` dividing C; the
/// optional weight and bias are [C].
std::string groupNorm(DimsRef in, const DimsRef *weight, const DimsRef *bias,
                      int64_t groups);
/// NCHW with static H and W to [N, C, size[0], size[1]].
std::string adaptivePool2d(DimsRef in, DimsRef size, Dims &out);
/// kiln.cross_entropy of logits [N, C, d...] and labels [N, d...]: `out`
/// is the labels' shape when `perElement` (reduction none), else rank 0.
std::string crossEntropy(DimsRef logits, DimsRef labels, bool perElement,
                         Dims &out);

} // namespace kiln::rules

#endif // KILN_SUPPORT_SHAPERULES_H
