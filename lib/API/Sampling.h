//===- Sampling.h - Drawing the next token from logits ----------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_API_SAMPLING_H
#define KILN_LIB_API_SAMPLING_H

#include "kiln/API/Transformer.h"

#include <random>

namespace kiln::detail {

/// Throws kiln::Error("<who>: ...") for a negative temperature or topK, or
/// a topP outside (0, 1].
void checkSampleOptions(const std::string &who,
                        const nn::SampleOptions &options);

/// The next token after `logits`: the first maximum at temperature 0;
/// otherwise softmax(logits / temperature) restricted to the topK most
/// likely tokens (ties at the k-th kept), then to the fewest most likely
/// whose probability reaches topP, drawn with `rng`.
int64_t sampleToken(const std::vector<float> &logits,
                    const nn::SampleOptions &options, std::mt19937_64 &rng);

} // namespace kiln::detail

#endif // KILN_LIB_API_SAMPLING_H
