//===- Autodiff.h - Gradients -----------------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// backward(loss) records the gradients of a scalar loss with respect to the
// tracked leaves it depends on. Like every other op it runs nothing: the
// gradients are pending tensors, computed (by --kiln-autodiff on the IR,
// with the loss's checkpointing strategy) when they are materialized, best
// together with the loss and the parameter updates in one kiln::sync.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_AUTODIFF_H
#define KILN_API_AUTODIFF_H

#include "kiln/API/Tensor.h"

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace kiln {

/// The gradients of one loss, by leaf.
class Gradients {
public:
  /// The gradient with respect to `leaf`, which must be a tracked leaf the
  /// loss depends on (a parameter, or any tensor made on an autodiff device
  /// or marked with requireGrad()).
  DispatchTensor get(const DispatchTensor &leaf) const;
  /// Whether the loss depends on `leaf`.
  bool has(const DispatchTensor &leaf) const;
  size_t size() const { return grads_.size(); }
  /// Every gradient, in the order the leaves were found.
  std::vector<DispatchTensor> all() const;
  /// The same leaves, each gradient g replaced by fn(g) (same shape and
  /// dtype): clipping, scaling.
  Gradients
  map(const std::function<DispatchTensor(const DispatchTensor &)> &fn) const;

private:
  friend Gradients backward(const DispatchTensor &loss);
  std::vector<std::pair<std::shared_ptr<detail::Node>, DispatchTensor>> grads_;
};

/// Records the gradients of `loss` (a tracked float tensor with one element)
/// with respect to every tracked leaf it depends on.
Gradients backward(const DispatchTensor &loss);

/// While one exists on a thread, ops on that thread record untracked
/// results: no gradients flow through them.
class NoGradGuard {
public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard &) = delete;
  NoGradGuard &operator=(const NoGradGuard &) = delete;
};

} // namespace kiln

#endif // KILN_API_AUTODIFF_H
