//===- ShapeRules.cpp - Shape rules of every kiln op ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/ShapeRules.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

using namespace kiln::rules;

namespace {

/// Streams pieces into one message.
/// a * b, a + b and a * b + c, or nothing when the result overflows int64.
std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}
std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}
std::optional<int64_t> checkedMulAdd(int64_t a, int64_t b, int64_t c) {
  std::optional<int64_t> p = checkedMul(a, b);
  return p ? checkedAdd(*p, c) : std::nullopt;
}

template <typename... Ts> std::string msg(const Ts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

std::string fmt(DimsRef d) { return formatDims(d); }

/// Output size of a strided window along one dim (conv and pooling): kDynamic
/// when a size is unknown, 0 when the window does not fit the padded input,
/// nothing when the sizes overflow int64. `k`, `s` and `d` are >= 1, `p` >= 0.
std::optional<int64_t> windowOut(int64_t in, int64_t k, int64_t s, int64_t p,
                                 int64_t d) {
  if (isDynamic(in) || isDynamic(k))
    return kDynamic;
  std::optional<int64_t> span = checkedMulAdd(d, k - 1, int64_t(1));
  std::optional<int64_t> padded = checkedMulAdd(p, int64_t(2), in);
  if (!span || !padded)
    return std::nullopt;
  // Dividing a negative difference would round toward zero and claim one
  // output for a window that does not fit.
  if (*padded < *span)
    return 0;
  return (*padded - *span) / s + 1;
}

std::string checkPositive(DimsRef vals, size_t n, const char *what,
                          bool allowZero = false) {
  if (vals.size() != n)
    return msg(what, " needs ", n, " entries, got ", vals.size());
  for (int64_t v : vals)
    if (v < 0 || (!allowZero && v == 0))
      return msg(what, " entries must be ", allowZero ? ">= 0" : "> 0",
                 ", got ", fmt(vals));
  return {};
}

/// An NCHW input, and a 2-D window's sizes, steps and padding.
std::string checkWindows2d(DimsRef in, DimsRef kernel, DimsRef stride,
                           DimsRef padding) {
  if (in.size() != 4)
    return msg("input must be NCHW (rank 4), got ", fmt(in));
  if (std::string e = checkPositive(kernel, 2, "kernel"); !e.empty())
    return e;
  if (std::string e = checkPositive(stride, 2, "stride"); !e.empty())
    return e;
  if (std::string e = checkPositive(padding, 2, "padding", true); !e.empty())
    return e;
  return {};
}

} // namespace

namespace kiln::rules {

std::string formatDims(DimsRef dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      s += ", ";
    s += isDynamic(dims[i]) ? std::string("?") : std::to_string(dims[i]);
  }
  return s + "]";
}

int64_t numElements(DimsRef dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (isDynamic(d))
      return kDynamic;
    std::optional<int64_t> next = checkedMul(n, d);
    if (!next)
      return kDynamic;
    n = *next;
  }
  return n;
}

std::string checkSize(DimsRef dims, int64_t elementBytes) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (isDynamic(d))
      continue;
    std::optional<int64_t> next = checkedMul(n, d);
    if (!next)
      return msg("shape ", fmt(dims),
                 " has more elements than a 64-bit count holds");
    n = *next;
  }
  if (!checkedMul(n, std::max<int64_t>(1, elementBytes)))
    return msg("shape ", fmt(dims), " of ", elementBytes,
               "-byte elements is more bytes than a 64-bit size holds");
  return {};
}

std::string reduceNonEmpty(DimsRef in, DimsRef axes) {
  for (int64_t a : axes)
    if (a >= 0 && a < static_cast<int64_t>(in.size()) && in[a] == 0)
      return msg("axis ", a, " of ", fmt(in),
                 " is empty, and the reduction has no value over no "
                 "elements");
  return {};
}

std::string checkAxis(int64_t axis, int64_t rank, const char *what) {
  if (axis < 0 || axis >= rank)
    return msg(what, " ", axis, " is out of range for rank ", rank);
  return {};
}

std::string checkAxes(DimsRef axes, int64_t rank) {
  std::vector<bool> seen(rank > 0 ? rank : 0, false);
  for (int64_t a : axes) {
    if (std::string e = checkAxis(a, rank); !e.empty())
      return e;
    if (seen[a])
      return msg("axis ", a, " appears twice in ", fmt(axes));
    seen[a] = true;
  }
  return {};
}

std::string broadcast(DimsRef a, DimsRef b, Dims &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (isDynamic(da)) {
      out[i] = db;
    } else if (isDynamic(db) || da == db) {
      out[i] = da;
    } else {
      return msg("cannot broadcast shapes ", fmt(a), " and ", fmt(b),
                 " (dim ", i, ": ", da, " vs ", db, ")");
    }
  }
  return {};
}

std::string reduce(DimsRef in, DimsRef axes, bool keepdim, Dims &out) {
  if (axes.empty())
    return "needs at least one axis";
  if (std::string e = checkAxes(axes, in.size()); !e.empty())
    return e;
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    bool reduced = axes.contains((int64_t)i);
    if (!reduced)
      out.push_back(in[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return {};
}

std::string matmul(DimsRef a, DimsRef b, Dims &out) {
  if (a.size() < 2 || b.size() < 2)
    return msg("needs operands of rank >= 2, got ", fmt(a), " and ", fmt(b));
  int64_t ka = a[a.size() - 1], kb = b[b.size() - 2];
  if (!isDynamic(ka) && !isDynamic(kb) && ka != kb)
    return msg("contraction dims differ: ", fmt(a), " x ", fmt(b), " (", ka,
               " vs ", kb, ")");
  Dims batch;
  if (std::string e = broadcast(a.drop_back(2), b.drop_back(2), batch);
      !e.empty())
    return msg("batch dims: ", e);
  out = batch;
  out.push_back(a[a.size() - 2]);
  out.push_back(b[b.size() - 1]);
  return {};
}

std::string reshape(DimsRef in, DimsRef target, Dims &out) {
  int64_t inferAt = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (inferAt >= 0)
        return msg("target shape ", fmt(target), " has more than one -1");
      inferAt = i;
    } else if (target[i] < 0) {
      return msg("target shape ", fmt(target), " has a negative dim");
    } else if (std::optional<int64_t> next = checkedMul(known, target[i])) {
      known = *next;
    } else {
      return msg("target shape ", fmt(target), " has too many elements");
    }
  }
  out.assign(target.begin(), target.end());
  int64_t n = numElements(in);
  if (isDynamic(n)) {
    if (inferAt >= 0)
      out[inferAt] = kDynamic;
    return {};
  }
  if (inferAt >= 0) {
    if (known == 0 || n % known != 0)
      return msg("cannot reshape ", fmt(in), " (", n, " elements) to ",
                 fmt(target));
    out[inferAt] = n / known;
  } else if (known != n) {
    return msg("cannot reshape ", fmt(in), " (", n, " elements) to ",
               fmt(target), " (", known, " elements)");
  }
  return {};
}

std::string permute(DimsRef in, DimsRef perm, Dims &out) {
  if (perm.size() != in.size())
    return msg("permutation ", fmt(perm), " does not match rank ", in.size());
  if (std::string e = checkAxes(perm, in.size()); !e.empty())
    return msg("permutation ", fmt(perm), " is invalid: ", e);
  out.clear();
  for (int64_t p : perm)
    out.push_back(in[p]);
  return {};
}

std::string expand(DimsRef in, DimsRef target, Dims &out) {
  if (target.size() < in.size())
    return msg("cannot expand ", fmt(in), " to the lower-rank ", fmt(target));
  size_t lead = target.size() - in.size();
  out.assign(target.begin(), target.end());
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t t = target[i];
    if (i < lead) {
      if (t < 0)
        return msg("new leading dim ", i, " of ", fmt(target),
                   " must be given");
      continue;
    }
    int64_t d = in[i - lead];
    if (t == -1) {
      out[i] = d;
      continue;
    }
    if (t < 0)
      return msg("target shape ", fmt(target), " has a negative dim");
    if (d != 1 && !isDynamic(d) && d != t)
      return msg("cannot expand ", fmt(in), " to ", fmt(target), " (dim ", i,
                 ": ", d, " is neither 1 nor ", t, ")");
  }
  return {};
}

std::string slice(DimsRef in, DimsRef starts, DimsRef ends, DimsRef steps,
                  Dims &out) {
  size_t r = in.size();
  if (starts.size() != r || ends.size() != r || steps.size() != r)
    return msg("starts, ends and steps need one entry per dim (rank ", r,
               "), got ", starts.size(), ", ", ends.size(), " and ",
               steps.size());
  out.clear();
  for (size_t i = 0; i < r; ++i) {
    if (steps[i] < 1)
      return msg("step ", steps[i], " of dim ", i, " must be >= 1");
    if (starts[i] < 0 || ends[i] < starts[i])
      return msg("slice [", starts[i], ", ", ends[i], ") of dim ", i,
                 " is invalid");
    if (isDynamic(in[i])) {
      out.push_back(kDynamic);
      continue;
    }
    int64_t end = std::min(ends[i], in[i]);
    if (starts[i] > in[i])
      return msg("slice start ", starts[i], " is past dim ", i, " of size ",
                 in[i]);
    int64_t len = end > starts[i] ? (end - starts[i] - 1) / steps[i] + 1 : 0;
    out.push_back(len);
  }
  return {};
}

std::string sliceAssign(DimsRef dest, DimsRef value, DimsRef starts,
                        DimsRef ends, DimsRef steps) {
  Dims region;
  if (std::string e = slice(dest, starts, ends, steps, region); !e.empty())
    return e;
  if (region.size() != value.size())
    return msg("value of shape ", fmt(value), " does not fit slice ",
               fmt(region));
  for (size_t i = 0; i < region.size(); ++i)
    if (!isDynamic(region[i]) && !isDynamic(value[i]) && region[i] != value[i])
      return msg("value of shape ", fmt(value), " does not fit slice ",
                 fmt(region));
  return {};
}

std::string concat(const std::vector<DimsRef> &ins, int64_t axis, Dims &out) {
  if (ins.empty())
    return "needs at least one input";
  DimsRef first = ins.front();
  if (std::string e = checkAxis(axis, first.size()); !e.empty())
    return e;
  out.assign(first.begin(), first.end());
  for (size_t k = 1; k < ins.size(); ++k) {
    DimsRef d = ins[k];
    if (d.size() != first.size())
      return msg("input ", k, " of shape ", fmt(d), " has a different rank from ",
                 fmt(first));
    for (size_t i = 0; i < d.size(); ++i) {
      if ((int64_t)i == axis) {
        if (isDynamic(out[i]) || isDynamic(d[i])) {
          out[i] = kDynamic;
        } else if (std::optional<int64_t> sum = checkedAdd(out[i], d[i])) {
          out[i] = *sum;
        } else {
          return msg("concatenated dim ", axis, " is too large");
        }
      } else if (!isDynamic(d[i]) && !isDynamic(out[i]) && d[i] != out[i]) {
        return msg("input ", k, " of shape ", fmt(d), " does not match ",
                   fmt(first), " outside axis ", axis);
      }
    }
  }
  return {};
}

std::string split(DimsRef in, DimsRef sizes, int64_t axis,
                  std::vector<Dims> &outs) {
  if (std::string e = checkAxis(axis, in.size()); !e.empty())
    return e;
  if (sizes.empty())
    return "needs at least one piece";
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return msg("piece sizes ", fmt(sizes), " must be >= 0");
    std::optional<int64_t> sum = checkedAdd(total, s);
    if (!sum)
      return msg("piece sizes ", fmt(sizes), " are too large");
    total = *sum;
  }
  if (!isDynamic(in[axis]) && total != in[axis])
    return msg("piece sizes ", fmt(sizes), " add up to ", total,
               ", not dim ", axis, " of ", fmt(in));
  outs.clear();
  for (int64_t s : sizes) {
    Dims d(in.begin(), in.end());
    d[axis] = s;
    outs.push_back(d);
  }
  return {};
}

std::string squeeze(DimsRef in, DimsRef axes, Dims &out) {
  if (std::string e = checkAxes(axes, in.size()); !e.empty())
    return e;
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (!axes.contains((int64_t)i)) {
      out.push_back(in[i]);
      continue;
    }
    if (in[i] != 1)
      return msg("cannot squeeze dim ", i, " of ", fmt(in),
                 ": its size is not 1");
  }
  return {};
}

std::string unsqueeze(DimsRef in, DimsRef axes, Dims &out) {
  int64_t rank = in.size() + axes.size();
  if (std::string e = checkAxes(axes, rank); !e.empty())
    return e;
  out.clear();
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(axes.contains(i) ? 1 : in[next++]);
  return {};
}

std::string repeat(DimsRef in, DimsRef repeats, Dims &out) {
  if (repeats.size() != in.size())
    return msg("repeats ", fmt(repeats), " need one entry per dim of ",
               fmt(in));
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (repeats[i] < 1)
      return msg("repeats ", fmt(repeats), " must be >= 1");
    if (isDynamic(in[i])) {
      out.push_back(kDynamic);
      continue;
    }
    std::optional<int64_t> n = checkedMul(in[i], repeats[i]);
    if (!n)
      return msg("repeating ", fmt(in), " by ", fmt(repeats), " is too large");
    out.push_back(*n);
  }
  return {};
}

std::string pad(DimsRef in, DimsRef low, DimsRef high, Dims &out) {
  if (std::string e = checkPositive(low, in.size(), "low padding", true);
      !e.empty())
    return e;
  if (std::string e = checkPositive(high, in.size(), "high padding", true);
      !e.empty())
    return e;
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (isDynamic(in[i])) {
      out.push_back(kDynamic);
      continue;
    }
    std::optional<int64_t> n = checkedAdd(in[i], low[i]);
    if (n)
      n = checkedAdd(*n, high[i]);
    if (!n)
      return msg("padding ", fmt(in), " by ", fmt(low), " and ", fmt(high),
                 " is too large");
    out.push_back(*n);
  }
  return {};
}

std::string gather(DimsRef in, DimsRef indices, int64_t axis, Dims &out) {
  if (std::string e = checkAxis(axis, in.size()); !e.empty())
    return e;
  if (indices.size() != in.size())
    return msg("indices of shape ", fmt(indices),
               " must have the input's rank ", in.size());
  for (size_t i = 0; i < in.size(); ++i)
    if ((int64_t)i != axis && !isDynamic(in[i]) && !isDynamic(indices[i]) &&
        indices[i] > in[i])
      return msg("indices of shape ", fmt(indices), " exceed input ", fmt(in),
                 " in dim ", i);
  out.assign(indices.begin(), indices.end());
  return {};
}

std::string scatterAdd(DimsRef in, DimsRef indices, DimsRef updates,
                       int64_t axis) {
  Dims unused;
  if (std::string e = gather(in, indices, axis, unused); !e.empty())
    return e;
  if (indices.size() != updates.size())
    return msg("updates of shape ", fmt(updates),
               " must match indices of shape ", fmt(indices));
  for (size_t i = 0; i < indices.size(); ++i)
    if (!isDynamic(indices[i]) && !isDynamic(updates[i]) &&
        indices[i] != updates[i])
      return msg("updates of shape ", fmt(updates),
                 " must match indices of shape ", fmt(indices));
  return {};
}

std::string indexSelect(DimsRef in, DimsRef indices, int64_t axis, Dims &out) {
  if (std::string e = checkAxis(axis, in.size()); !e.empty())
    return e;
  if (indices.size() != 1)
    return msg("indices must be 1-D, got ", fmt(indices));
  out.assign(in.begin(), in.end());
  out[axis] = indices[0];
  return {};
}

std::string maskFill(DimsRef in, DimsRef mask) {
  if (mask.size() > in.size())
    return msg("mask of shape ", fmt(mask), " has more dims than the input ",
               fmt(in));
  size_t lead = in.size() - mask.size();
  for (size_t i = 0; i < mask.size(); ++i) {
    int64_t m = mask[i], d = in[lead + i];
    if (m != 1 && !isDynamic(m) && !isDynamic(d) && m != d)
      return msg("mask of shape ", fmt(mask),
                 " does not broadcast to the input ", fmt(in), " (dim ",
                 lead + i, ": ", m, " vs ", d, ")");
  }
  return {};
}

std::string embedding(DimsRef weight, DimsRef indices, Dims &out) {
  if (weight.size() != 2)
    return msg("weight must be [vocab, dim], got ", fmt(weight));
  out.assign(indices.begin(), indices.end());
  out.push_back(weight[1]);
  return {};
}

std::string conv(DimsRef in, DimsRef weight, const DimsRef *bias,
                 DimsRef stride, DimsRef padding, DimsRef dilation,
                 int64_t groups, Dims &out) {
  size_t sp = stride.size();
  size_t rank = sp + 2;
  if (in.size() != rank)
    return msg("input must have rank ", rank, " (N, C, spatial...), got ",
               fmt(in));
  if (weight.size() != rank)
    return msg("weight must have rank ", rank, " (O, C/groups, kernel...), got ",
               fmt(weight));
  if (std::string e = checkPositive(stride, sp, "stride"); !e.empty())
    return e;
  if (std::string e = checkPositive(padding, sp, "padding", true); !e.empty())
    return e;
  if (std::string e = checkPositive(dilation, sp, "dilation"); !e.empty())
    return e;
  if (groups < 1)
    return msg("groups must be >= 1, got ", groups);
  int64_t c = in[1], o = weight[0];
  if (!isDynamic(c) && c % groups != 0)
    return msg("input channels ", c, " are not divisible by groups ", groups);
  if (!isDynamic(o) && o % groups != 0)
    return msg("output channels ", o, " are not divisible by groups ", groups);
  // c is a multiple of groups here, so c / groups is the exact group width.
  if (!isDynamic(c) && !isDynamic(weight[1]) && weight[1] != c / groups)
    return msg("weight ", fmt(weight), " expects ", weight[1],
               " input channels per group, input ", fmt(in), " has ", c, " in ",
               groups, " groups");
  if (bias && (bias->size() != 1 ||
               (!isDynamic((*bias)[0]) && !isDynamic(o) && (*bias)[0] != o)))
    return msg("bias of shape ", fmt(*bias), " must be [", o, "]");
  out.assign({in[0], o});
  for (size_t i = 0; i < sp; ++i) {
    int64_t k = weight[2 + i];
    if (!isDynamic(k) && k < 1)
      return msg("kernel ", fmt(weight.drop_front(2)), " must be >= 1");
    std::optional<int64_t> n =
        windowOut(in[2 + i], k, stride[i], padding[i], dilation[i]);
    if (!n)
      return msg("padding ", fmt(padding), " and dilation ", fmt(dilation),
                 " are too large");
    if (!isDynamic(*n) && *n < 1)
      return msg("kernel ", fmt(weight.drop_front(2)),
                 " does not fit the padded input ", fmt(in));
    out.push_back(*n);
  }
  return {};
}

std::string pool2d(DimsRef in, DimsRef kernel, DimsRef stride,
                   DimsRef padding, Dims &out) {
  if (std::string e = checkWindows2d(in, kernel, stride, padding); !e.empty())
    return e;
  for (int i = 0; i < 2; ++i)
    if (padding[i] > kernel[i] / 2)
      return msg("padding ", fmt(padding), " exceeds half the kernel ",
                 fmt(kernel));
  out.assign({in[0], in[1]});
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> n =
        windowOut(in[2 + i], kernel[i], stride[i], padding[i], 1);
    if (!n)
      return msg("kernel ", fmt(kernel), " and padding ", fmt(padding),
                 " are too large");
    if (!isDynamic(*n) && *n < 1)
      return msg("kernel ", fmt(kernel), " does not fit the input ", fmt(in));
    out.push_back(*n);
  }
  return {};
}

std::string unfold(DimsRef in, DimsRef kernel, DimsRef stride, DimsRef padding,
                   DimsRef dilation, bool imagesInColumns, Dims &out) {
  if (std::string e = checkWindows2d(in, kernel, stride, padding); !e.empty())
    return e;
  if (std::string e = checkPositive(dilation, 2, "dilation"); !e.empty())
    return e;
  std::optional<int64_t> rows = checkedMulAdd(kernel[0], kernel[1], 0);
  if (rows && !isDynamic(in[1]))
    rows = checkedMulAdd(*rows, in[1], 0);
  int64_t pixels = 1;
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> n =
        windowOut(in[2 + i], kernel[i], stride[i], padding[i], dilation[i]);
    if (!n || !rows)
      return msg("kernel ", fmt(kernel), ", padding ", fmt(padding),
                 " and dilation ", fmt(dilation), " are too large");
    if (!isDynamic(*n) && *n < 1)
      return msg("kernel ", fmt(kernel), " does not fit the padded input ",
                 fmt(in));
    pixels = isDynamic(*n) || isDynamic(pixels) ? kDynamic : pixels * *n;
  }
  int64_t rowCount = isDynamic(in[1]) ? kDynamic : *rows;
  if (!imagesInColumns) {
    out.assign({in[0], rowCount, pixels});
    return {};
  }
  std::optional<int64_t> cols = isDynamic(in[0]) || isDynamic(pixels)
                                    ? std::optional<int64_t>(kDynamic)
                                    : checkedMulAdd(in[0], pixels, 0);
  if (!cols)
    return msg("the columns of ", fmt(in), " overflow");
  out.assign({rowCount, *cols});
  return {};
}

std::string rope(DimsRef in, double theta) {
  if (in.size() < 2)
    return msg("input must have rank >= 2 ([..., T, D]), got ", fmt(in));
  int64_t d = in.back();
  if (isDynamic(d) || d < 2 || d % 2)
    return msg("the last dim D must be static, even and >= 2, got ", fmt(in));
  if (!(theta > 0) || !std::isfinite(theta))
    return msg("theta must be finite and > 0, got ", theta);
  return {};
}

std::string layerNorm(DimsRef in, const DimsRef *weight, const DimsRef *bias) {
  if (in.empty())
    return "input must have rank >= 1";
  int64_t d = in.back();
  for (const DimsRef *p : {weight, bias}) {
    if (!p)
      continue;
    const char *what = p == weight ? "weight" : "bias";
    if (p->size() != 1 ||
        (!isDynamic((*p)[0]) && !isDynamic(d) && (*p)[0] != d))
      return msg(what, " of shape ", fmt(*p), " must be ", formatDims({d}));
  }
  return {};
}

std::string convTranspose(DimsRef in, DimsRef weight, const DimsRef *bias,
                          DimsRef stride, DimsRef padding,
                          DimsRef outputPadding, DimsRef dilation,
                          int64_t groups, Dims &out) {
  size_t sp = stride.size();
  size_t rank = sp + 2;
  if (in.size() != rank)
    return msg("input must have rank ", rank, " (N, C, spatial...), got ",
               fmt(in));
  if (weight.size() != rank)
    return msg("weight must have rank ", rank,
               " (C_in, C_out/groups, kernel...), got ", fmt(weight));
  if (std::string e = checkPositive(stride, sp, "stride"); !e.empty())
    return e;
  if (std::string e = checkPositive(padding, sp, "padding", true); !e.empty())
    return e;
  if (std::string e = checkPositive(outputPadding, sp, "output_padding", true);
      !e.empty())
    return e;
  if (std::string e = checkPositive(dilation, sp, "dilation"); !e.empty())
    return e;
  if (groups < 1)
    return msg("groups must be >= 1, got ", groups);
  int64_t c = in[1];
  if (!isDynamic(c) && c % groups != 0)
    return msg("input channels ", c, " are not divisible by groups ", groups);
  if (!isDynamic(c) && !isDynamic(weight[0]) && weight[0] != c)
    return msg("weight ", fmt(weight), " expects ", weight[0],
               " input channels, input ", fmt(in), " has ", c);
  int64_t o = isDynamic(weight[1]) ? kDynamic : weight[1] * groups;
  if (bias && (bias->size() != 1 ||
               (!isDynamic((*bias)[0]) && !isDynamic(o) && (*bias)[0] != o)))
    return msg("bias of shape ", fmt(*bias), " must be [", o, "]");
  out.assign({in[0], o});
  for (size_t i = 0; i < sp; ++i) {
    if (outputPadding[i] >= std::max(stride[i], dilation[i]))
      return msg("output_padding ", fmt(outputPadding),
                 " must be smaller than the stride ", fmt(stride),
                 " or the dilation ", fmt(dilation));
    int64_t k = weight[2 + i];
    if (!isDynamic(k) && k < 1)
      return msg("kernel ", fmt(weight.drop_front(2)), " must be >= 1");
    if (isDynamic(in[2 + i]) || isDynamic(k)) {
      out.push_back(kDynamic);
      continue;
    }
    // (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding
    // + 1, in int64 or an error.
    std::optional<int64_t> span =
        checkedMulAdd(in[2 + i] - 1, stride[i], outputPadding[i] + 1);
    std::optional<int64_t> reach = checkedMulAdd(dilation[i], k - 1, 0);
    std::optional<int64_t> pad2 = checkedMul(padding[i], 2);
    if (!span || !reach || !pad2 || !checkedAdd(*span, *reach))
      return msg("stride ", fmt(stride), ", dilation ", fmt(dilation),
                 " and kernel ", fmt(weight.drop_front(2)), " are too large");
    int64_t n = *span + *reach - *pad2;
    if (n < 1)
      return msg("padding ", fmt(padding), " leaves no output of input ",
                 fmt(in));
    out.push_back(n);
  }
  return {};
}

std::string pool(DimsRef in, DimsRef kernel, DimsRef stride, DimsRef padding,
                 DimsRef dilation, bool ceilMode, Dims &out) {
  size_t sp = kernel.size();
  if (sp != 1 && sp != 2)
    return msg("kernel needs 1 or 2 entries (1-D or 2-D pooling), got ", sp);
  if (in.size() != sp + 2)
    return msg("input must have rank ", sp + 2, " (N, C, spatial...), got ",
               fmt(in));
  if (std::string e = checkPositive(kernel, sp, "kernel"); !e.empty())
    return e;
  if (std::string e = checkPositive(stride, sp, "stride"); !e.empty())
    return e;
  if (std::string e = checkPositive(padding, sp, "padding", true); !e.empty())
    return e;
  if (std::string e = checkPositive(dilation, sp, "dilation"); !e.empty())
    return e;
  out.assign({in[0], in[1]});
  for (size_t i = 0; i < sp; ++i) {
    std::optional<int64_t> reach = checkedMulAdd(dilation[i], kernel[i] - 1, 1);
    if (!reach || padding[i] > *reach / 2)
      return msg("padding ", fmt(padding),
                 " exceeds half the window of kernel ", fmt(kernel),
                 " and dilation ", fmt(dilation));
    if (isDynamic(in[2 + i])) {
      out.push_back(kDynamic);
      continue;
    }
    std::optional<int64_t> padded = checkedMulAdd(padding[i], 2, in[2 + i]);
    if (!padded)
      return msg("padding ", fmt(padding), " is too large");
    if (*padded < *reach)
      return msg("kernel ", fmt(kernel), " with dilation ", fmt(dilation),
                 " does not fit the padded input ", fmt(in));
    int64_t span = *padded - *reach;
    int64_t n =
        (ceilMode ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
    // The last window starts inside the input or its low padding.
    if (ceilMode && (n - 1) * stride[i] >= in[2 + i] + padding[i])
      --n;
    out.push_back(n);
  }
  return {};
}

std::string interpolate(DimsRef in, DimsRef size, bool linear,
                        bool alignCorners, const std::vector<double> &scales,
                        Dims &out) {
  if (in.size() != 3 && in.size() != 4)
    return msg("input must be [N, C, L] or [N, C, H, W], got ", fmt(in));
  size_t sp = in.size() - 2;
  if (alignCorners && !linear)
    return "align_corners needs mode linear";
  if (std::string e = checkPositive(size, sp, "size"); !e.empty())
    return e;
  if (!scales.empty() && scales.size() != sp)
    return msg("scales need ", sp, " entries, got ", scales.size());
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s))
      return msg("scales must be finite and > 0, got ", s);
  out.assign({in[0], in[1]});
  for (size_t i = 0; i < sp; ++i) {
    if (isDynamic(in[2 + i]) || in[2 + i] < 1)
      return msg("the spatial dims must be static and >= 1, got ", fmt(in));
    out.push_back(size[i]);
  }
  return {};
}

/// Optional per-channel vectors of a [N, C, ...] input: each [C].
static std::string checkChannelVectors(
    DimsRef in,
    std::initializer_list<std::pair<const char *, const DimsRef *>> vectors) {
  int64_t c = in[1];
  for (auto [what, p] : vectors) {
    if (!p)
      continue;
    if (p->size() != 1 ||
        (!isDynamic((*p)[0]) && !isDynamic(c) && (*p)[0] != c))
      return msg(what, " of shape ", fmt(*p), " must be ", formatDims({c}),
                 ", one entry per channel of the input ", fmt(in));
  }
  return {};
}

std::string batchNorm(DimsRef in, DimsRef mean, DimsRef var,
                      const DimsRef *weight, const DimsRef *bias) {
  if (in.size() < 2)
    return msg("input must be [N, C, ...] (rank >= 2), got ", fmt(in));
  return checkChannelVectors(
      in, {{"mean", &mean}, {"var", &var}, {"weight", weight}, {"bias", bias}});
}

std::string groupNorm(DimsRef in, const DimsRef *weight, const DimsRef *bias,
                      int64_t groups) {
  if (in.size() < 2)
    return msg("input must be [N, C, ...] (rank >= 2), got ", fmt(in));
  if (groups < 1)
    return msg("groups must be > 0, got ", groups);
  if (!isDynamic(in[1]) && in[1] % groups != 0)
    return msg("groups ", groups, " does not divide the ", in[1],
               " channels of ", fmt(in));
  for (size_t i = 1; i < in.size(); ++i)
    if (isDynamic(in[i]))
      return msg("the channel and spatial dims must be static, got ", fmt(in));
  return checkChannelVectors(in, {{"weight", weight}, {"bias", bias}});
}

std::string adaptivePool2d(DimsRef in, DimsRef size, Dims &out) {
  if (in.size() != 4)
    return msg("input must be NCHW (rank 4), got ", fmt(in));
  if (std::string e = checkPositive(size, 2, "size"); !e.empty())
    return e;
  if (isDynamic(in[2]) || isDynamic(in[3]))
    return msg("the spatial dims must be static, got ", fmt(in));
  if (in[2] < 1 || in[3] < 1)
    return msg("input ", fmt(in), " has no spatial positions to pool");
  out.assign({in[0], in[1], size[0], size[1]});
  return {};
}

std::string crossEntropy(DimsRef logits, DimsRef labels, bool perElement,
                         Dims &out) {
  if (logits.size() < 2)
    return msg("logits must be [N, C, d...], got ", fmt(logits));
  if (labels.size() + 1 != logits.size())
    return msg("labels must be [N, d...] for logits ", fmt(logits), ", got ",
               fmt(labels));
  out.clear();
  for (size_t i = 0; i < labels.size(); ++i) {
    int64_t l = logits[i == 0 ? 0 : i + 1], t = labels[i];
    if (!isDynamic(l) && !isDynamic(t) && l != t)
      return msg("logits ", fmt(logits), " and labels ", fmt(labels),
                 " disagree on dim ", i == 0 ? 0 : i + 1, " of the logits");
    out.push_back(isDynamic(l) ? t : l);
  }
  if (!perElement)
    out.clear();
  return {};
}

} // namespace kiln::rules
