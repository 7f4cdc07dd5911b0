//===- Safetensors.cpp - The safetensors file format ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Safetensors.h"

#include "kiln/Support/Error.h"
#include "kiln/Support/ShapeRules.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

using namespace kiln;
using namespace kiln::detail;

namespace {

struct NamedDType {
  const char *name;
  DType dtype;
};

constexpr NamedDType kDTypes[] = {{"F64", DType::F64}, {"F32", DType::F32},
                                  {"F16", DType::F16}, {"BF16", DType::BF16},
                                  {"I64", DType::I64}, {"I32", DType::I32},
                                  {"I16", DType::I16}, {"I8", DType::I8},
                                  {"U8", DType::U8},   {"BOOL", DType::Bool}};

/// The header may not be larger than this: a corrupt length must not make
/// the reader allocate gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

[[noreturn]] void fail(const std::string &source, const std::string &what) {
  throw Error("safetensors file " + source + ": " + what);
}

} // namespace

std::string kiln::detail::safetensorsDTypeName(DType dtype) {
  for (const NamedDType &d : kDTypes)
    if (d.dtype == dtype)
      return d.name;
  throw Error("safetensors has no dtype for " + dtype.str());
}

std::vector<SafetensorsTensor>
kiln::detail::parseSafetensors(const std::string &bytes,
                               const std::string &source) {
  if (bytes.size() < 8)
    fail(source, "it has " + std::to_string(bytes.size()) +
                     " bytes, fewer than the 8 of the header length");
  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i)
    headerBytes = headerBytes << 8 | static_cast<unsigned char>(bytes[i]);
  if (headerBytes > kMaxHeaderBytes || headerBytes > bytes.size() - 8)
    fail(source, "the header length " + std::to_string(headerBytes) +
                     " runs past the end of the file (" +
                     std::to_string(bytes.size()) +
                     " bytes): the file is truncated or not safetensors");
  llvm::StringRef text(bytes.data() + 8, headerBytes);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    fail(source,
         "the header is not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *header = parsed->getAsObject();
  if (!header)
    fail(source, "the header is not a JSON object");
  uint64_t dataBytes = bytes.size() - 8 - headerBytes;
  const char *data = bytes.data() + 8 + headerBytes;

  std::vector<SafetensorsTensor> tensors;
  // The header's keys, sorted by their data offsets so that the order is
  // the file's (a JSON object has none of its own here).
  std::vector<std::pair<uint64_t, SafetensorsTensor>> found;
  for (const auto &[key, value] : *header) {
    std::string name = key.str();
    if (name == "__metadata__") {
      const llvm::json::Object *meta = value.getAsObject();
      if (!meta)
        fail(source, "__metadata__ is not an object");
      for (const auto &[k, v] : *meta)
        if (!v.getAsString())
          fail(source, "__metadata__ entry '" + k.str() + "' is not a string");
      continue;
    }
    auto bad = [&](const std::string &what) {
      fail(source, "tensor '" + name + "': " + what);
    };
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry)
      bad("its header entry is not an object");
    std::optional<llvm::StringRef> dtypeName = entry->getString("dtype");
    if (!dtypeName)
      bad("no \"dtype\" string");
    SafetensorsTensor t;
    t.name = name;
    const NamedDType *d =
        std::find_if(std::begin(kDTypes), std::end(kDTypes),
                     [&](const NamedDType &n) { return *dtypeName == n.name; });
    if (d == std::end(kDTypes))
      bad("dtype \"" + dtypeName->str() +
          "\" is not one Kiln reads (F64 F32 F16 BF16 I64 I32 I16 I8 U8 "
          "BOOL)");
    t.dtype = d->dtype;
    const llvm::json::Array *shape = entry->getArray("shape");
    if (!shape)
      bad("no \"shape\" array");
    // The element count in 128 bits' worth of care: each dim is checked
    // against what is left before multiplying.
    uint64_t count = 1;
    for (const llvm::json::Value &dim : *shape) {
      std::optional<int64_t> v = dim.getAsInteger();
      if (!v || *v < 0)
        bad("the shape holds something other than a non-negative integer");
      t.shape.push_back(*v);
      if (*v != 0 &&
          count > std::numeric_limits<uint64_t>::max() / uint64_t(*v))
        bad("the shape's element count overflows");
      count *= uint64_t(*v);
    }
    const llvm::json::Array *offsets = entry->getArray("data_offsets");
    if (!offsets || offsets->size() != 2)
      bad("no \"data_offsets\" pair");
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger(),
                           end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin)
      bad("data_offsets are not an increasing pair of non-negative integers");
    if (uint64_t(*end) > dataBytes)
      bad("its data [" + std::to_string(*begin) + ", " + std::to_string(*end) +
          ") runs past the end of the file's " + std::to_string(dataBytes) +
          " data bytes (truncated?)");
    uint64_t elementBytes = t.dtype.byteSize();
    if (count > std::numeric_limits<uint64_t>::max() / elementBytes ||
        count * elementBytes != uint64_t(*end - *begin))
      bad("shape " + rules::formatDims(t.shape) + " of " + dtypeName->str() +
          " needs " + std::to_string(count) + " x " +
          std::to_string(elementBytes) + " bytes, but data_offsets give " +
          std::to_string(*end - *begin));
    t.data.assign(data + *begin, data + *end);
    found.emplace_back(uint64_t(*begin), std::move(t));
  }
  std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first < b.first
                              : a.second.name < b.second.name;
  });
  for (auto &f : found)
    tensors.push_back(std::move(f.second));
  return tensors;
}

std::string
kiln::detail::serializeSafetensors(const std::vector<SafetensorsTensor> &ts) {
  llvm::json::Object header;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const SafetensorsTensor &t : ts) {
    if (!names.insert(t.name).second)
      throw Error("safetensors: two tensors are named '" + t.name + "'");
    llvm::json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    header[t.name] = llvm::json::Object{
        {"dtype", safetensorsDTypeName(t.dtype)},
        {"shape", std::move(shape)},
        {"data_offsets",
         llvm::json::Array{int64_t(offset), int64_t(offset + t.data.size())}}};
    offset += t.data.size();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(header));
  os.flush();
  // Padded with spaces so that the data starts 8-byte aligned.
  while ((8 + text.size()) % 8 != 0)
    text += ' ';
  std::string out(8, '\0');
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(n >> (8 * i) & 0xff);
  out += text;
  for (const SafetensorsTensor &t : ts)
    out += t.data;
  return out;
}
