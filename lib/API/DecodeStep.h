//===- DecodeStep.h - A decoding step recorded once -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_API_DECODESTEP_H
#define KILN_LIB_API_DECODESTEP_H

#include "kiln/API/Tensor.h"

#include <functional>
#include <memory>

namespace kiln::detail {

class Replay;

/// One step of a decoding loop (the token, its position and the key/value
/// caches in; the logits and the new caches out), the same graph at every
/// token: the first call records it and materializes, every later call
/// runs the executable again on the new inputs, recording, keying and
/// looking up nothing.
class DecodeStep {
public:
  using Record = std::function<std::vector<DispatchTensor>(
      const std::vector<DispatchTensor> &)>;
  explicit DecodeStep(Record record);
  ~DecodeStep();

  /// The step's outputs, materialized. The inputs are materialized first;
  /// one that the caller moved in and nothing else holds (a cache) may
  /// be written over by an output.
  std::vector<DispatchTensor> operator()(std::vector<DispatchTensor> inputs);

private:
  Record record_;
  std::unique_ptr<Replay> replay_;
  DispatchDevice device_{DeviceKind::Flex, 0};
};

} // namespace kiln::detail

#endif // KILN_LIB_API_DECODESTEP_H
