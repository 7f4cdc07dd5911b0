//===- Safetensors.h - The safetensors file format --------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A safetensors file is an 8-byte little-endian header length N, N bytes of
// JSON mapping each tensor's name to {"dtype", "shape", "data_offsets":
// [begin, end]} (and an optional "__metadata__" of strings), then the data:
// each tensor's elements in C order, little-endian, at its offsets from the
// start of the data. The parser checks every field and every range, so any
// byte string is either a file or a kiln::Error that says what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_API_SAFETENSORS_H
#define KILN_LIB_API_SAFETENSORS_H

#include "kiln/API/NN.h"
#include "kiln/Support/DType.h"

#include <functional>

#include <string>
#include <vector>

namespace kiln::detail {

struct SafetensorsTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::string data; ///< the raw little-endian elements
};

/// The tensors of the file whose bytes are `bytes`, in the header's order;
/// errors name `source` and, where one is at fault, the tensor.
std::vector<SafetensorsTensor> parseSafetensors(const std::string &bytes,
                                                const std::string &source);

/// The bytes of a file holding `tensors` (names must be distinct).
std::string serializeSafetensors(const std::vector<SafetensorsTensor> &tensors);

/// The format's name of a dtype ("F32", "BF16", "BOOL", ...); throws for a
/// quantized dtype, which the format has no name for.
std::string safetensorsDTypeName(DType dtype);

/// Reads `params` by name from the safetensors files at `paths` (a model's
/// shards): each must be in exactly one file, with its shape and a dtype
/// that converts to the parameter's. A tensor that no parameter names is
/// an error unless `extraAllowed` is null or accepts its name. Errors begin
/// with `who` and name the file and the tensor; on any error no parameter
/// changes.
void loadSafetensors(
    const nn::NamedParameters &params, const std::vector<std::string> &paths,
    const std::string &who,
    const std::function<bool(const std::string &)> &extraAllowed);

} // namespace kiln::detail

#endif // KILN_LIB_API_SAFETENSORS_H
