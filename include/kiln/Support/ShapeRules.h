//===- ShapeRules.h - Shape rules of every kiln op --------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The shape rule of each op, written once. The dialect's verifiers and type
// inference and the C++ API's recorder both call these, so an error reads the
// same in tensor-opt and at the API. Nothing here depends on MLIR.
//
// Every rule returns an empty string on success and a message otherwise.
// Dims are int64_t; kDynamic marks an unknown size and propagates.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_SHAPERULES_H
#define KILN_SUPPORT_SHAPERULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kiln::rules {

/// Same value as mlir::ShapedType::kDynamic.
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

using Dims = llvm::SmallVector<int64_t, 6>;
using DimsRef = llvm::ArrayRef<int64_t>;

inline bool isDynamic(int64_t d) { return d == kDynamic; }

/// "[2, ?, 3]".
std::string formatDims(DimsRef dims);

/// Product of the dims, or kDynamic if any is dynamic or the product does not
/// fit in int64_t.
int64_t numElements(DimsRef dims);

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
std::string concat(llvm::ArrayRef<DimsRef> ins, int64_t axis, Dims &out);
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
std::string layerNorm(DimsRef in, const DimsRef *weight, const DimsRef *bias);
std::string crossEntropy(DimsRef logits, DimsRef labels, Dims &out);

} // namespace kiln::rules

#endif // KILN_SUPPORT_SHAPERULES_H
