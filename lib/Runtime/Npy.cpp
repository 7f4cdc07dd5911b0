//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Npy.h"
#include "kiln/Support/Error.h"

#include <cstring>
#include <fstream>
#include <sstream>

using namespace kiln;
using namespace kiln::detail;

namespace {

struct DescrName {
  const char *descr;
  DTypeKind kind;
};
const DescrName kDescrs[] = {
    {"<f8", DTypeKind::F64}, {"<f4", DTypeKind::F32}, {"<f2", DTypeKind::F16},
    {"<i8", DTypeKind::I64}, {"<i4", DTypeKind::I32}, {"<i2", DTypeKind::I16},
    {"|i1", DTypeKind::I8},  {"|u1", DTypeKind::U8},  {"|b1", DTypeKind::Bool}};

[[noreturn]] void bad(const std::string &path, const std::string &why) {
  throw Error(path + ": not a valid .npy file: " + why);
}

/// The value of `key` in the header's Python dict literal.
std::string field(const std::string &path, const std::string &header,
                  const std::string &key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    bad(path, "the header has no '" + key + "'");
  size_t colon = header.find(':', k);
  if (colon == std::string::npos)
    bad(path, "the header is malformed near '" + key + "'");
  size_t start = header.find_first_not_of(" ", colon + 1);
  if (start == std::string::npos)
    bad(path, "the header is truncated");
  char open = header[start];
  char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
  size_t end = header.find(close, start + 1);
  if (end == std::string::npos)
    bad(path, "the header is malformed near '" + key + "'");
  if (open == '(' || open == '\'')
    return header.substr(start + 1, end - start - 1);
  return header.substr(start, end - start);
}

} // namespace

NpyArray kiln::detail::readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open the file (" + std::strerror(errno) + ")");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    bad(path, "it does not start with the .npy magic");
  int major = static_cast<unsigned char>(magic[6]);
  uint32_t headerLen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char *>(b), 2))
      bad(path, "the header length is truncated");
    headerLen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char *>(b), 4))
      bad(path, "the header length is truncated");
    headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  } else {
    bad(path, "version " + std::to_string(major) + " is not supported");
  }
  if (headerLen > (1u << 20))
    bad(path, "the header claims " + std::to_string(headerLen) + " bytes");
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen))
    bad(path, "the header is truncated");

  NpyArray a;
  std::string descr = field(path, header, "descr");
  bool known = false;
  for (const DescrName &d : kDescrs)
    if (descr == d.descr) {
      a.dtype = DType(d.kind);
      known = true;
    }
  if (!known)
    bad(path, "dtype '" + descr +
                  "' is not one Kiln reads (<f8 <f4 <f2 <i8 "
                  "<i4 <i2 |i1 |u1 |b1)");
  std::string fortran = field(path, header, "fortran_order");
  if (fortran.find("True") != std::string::npos)
    bad(path, "Fortran-ordered arrays are not supported; save it in C order");
  std::string shape = field(path, header, "shape");
  std::stringstream ss(shape);
  std::string dim;
  int64_t numel = 1;
  while (std::getline(ss, dim, ',')) {
    size_t s = dim.find_first_not_of(" ");
    if (s == std::string::npos)
      continue;
    char *end = nullptr;
    long long v = std::strtoll(dim.c_str() + s, &end, 10);
    if (end == dim.c_str() + s || v < 0 || v > (1ll << 40))
      bad(path, "the shape (" + shape + ") is not a list of sizes");
    a.shape.push_back(v);
    // Checked before multiplying: two dims of 2^40 overflow int64_t.
    if (v && numel > (1ll << 40) / v)
      bad(path, "the shape (" + shape + ") is too large");
    numel *= v;
  }
  // Compare with the file's size before allocating, so that a header that
  // promises terabytes is an error rather than std::bad_alloc.
  size_t bytes = static_cast<size_t>(numel) * a.dtype.byteSize();
  std::streampos dataStart = in.tellg();
  in.seekg(0, std::ios::end);
  std::streamoff available = in.tellg() - dataStart;
  in.seekg(dataStart);
  if (!in || available < static_cast<std::streamoff>(bytes))
    bad(path, "it holds fewer than the " + std::to_string(numel) +
                  " elements its header promises");
  a.data.resize(bytes);
  if (bytes && !in.read(reinterpret_cast<char *>(a.data.data()), bytes))
    bad(path, "it holds fewer than the " + std::to_string(numel) +
                  " elements its header promises");
  return a;
}

void kiln::detail::writeNpy(const std::string &path, const NpyArray &a) {
  const char *descr = nullptr;
  for (const DescrName &d : kDescrs)
    if (d.kind == a.dtype.kind())
      descr = d.descr;
  if (!descr)
    throw Error(path + ": " + a.dtype.str() + " has no .npy dtype");
  for (int64_t d : a.shape)
    if (d < 0)
      throw Error(path + ": a result with a dynamic dimension cannot be "
                         "written");
  // Python's repr of the tuple, as numpy.save writes it: (3,) and ().
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(a.shape[i]);
  shape += a.shape.size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw Error(path + ": cannot write the file (" + std::strerror(errno) +
                ")");
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char lenBytes[2] = {static_cast<char>(len & 0xff),
                      static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out.write(header.data(), header.size());
  out.write(reinterpret_cast<const char *>(a.data.data()), a.data.size());
  if (!out)
    throw Error(path + ": writing failed");
}

std::string kiln::detail::formatNpy(const NpyArray &a, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : a.shape)
    n *= d;
  auto value = [&](int64_t i) -> std::string {
    const unsigned char *p = a.data.data() + i * a.dtype.byteSize();
    char buf[64];
    switch (a.dtype.kind()) {
    case DTypeKind::F64: {
      double v;
      std::memcpy(&v, p, 8);
      std::snprintf(buf, sizeof buf, "%g", v);
      break;
    }
    case DTypeKind::F32: {
      float v;
      std::memcpy(&v, p, 4);
      std::snprintf(buf, sizeof buf, "%g", v);
      break;
    }
    case DTypeKind::F16: {
      Half h;
      std::memcpy(&h.bits, p, 2);
      std::snprintf(buf, sizeof buf, "%g", h.toFloat());
      break;
    }
    case DTypeKind::I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
      break;
    }
    case DTypeKind::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      std::snprintf(buf, sizeof buf, "%d", v);
      break;
    }
    case DTypeKind::I16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      std::snprintf(buf, sizeof buf, "%d", v);
      break;
    }
    case DTypeKind::I8:
      std::snprintf(buf, sizeof buf, "%d", static_cast<int8_t>(*p));
      break;
    case DTypeKind::U8:
      std::snprintf(buf, sizeof buf, "%u", *p);
      break;
    case DTypeKind::Bool:
      std::snprintf(buf, sizeof buf, "%s", *p ? "true" : "false");
      break;
    default:
      std::snprintf(buf, sizeof buf, "?");
    }
    return buf;
  };
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) {
    if (n > limit && i == limit / 2) {
      s += "..., ";
      i = n - limit / 2;
    }
    s += value(i);
    if (i + 1 < n)
      s += ", ";
  }
  return s + "] (shape " + [&] {
    std::string t = "[";
    for (size_t i = 0; i < a.shape.size(); ++i)
      t += (i ? ", " : "") + std::to_string(a.shape[i]);
    return t + "]";
  }() + ")";
}
