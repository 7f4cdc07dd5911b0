//===- Bytes.h - Plain data to bytes and back -------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The on-disk form of artifacts (kiln/Runtime/Artifact.h): little-endian
// words, length-prefixed strings and arrays. A reader never reads past its
// input: every read reports whether it could, so a truncated or corrupt
// entry is a miss, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_BYTES_H
#define KILN_RUNTIME_BYTES_H

#include "kiln/Support/DType.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::detail {

class ByteWriter {
public:
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v);
  void dtype(DType d);
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s.data(), s.size());
  }
  void ints(const std::vector<int64_t> &v) {
    u64(v.size());
    for (int64_t x : v)
      i64(x);
  }
  /// A count, then `put(*this, item)` for each item.
  template <typename T, typename Put>
  void list(const std::vector<T> &v, Put put) {
    u64(v.size());
    for (const T &x : v)
      put(*this, x);
  }

  const std::string &bytes() const { return out_; }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
};

class ByteReader {
public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool u64(uint64_t &v) {
    if (in_.size() - at_ < 8)
      return fail();
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(static_cast<unsigned char>(in_[at_ + i])) << (8 * i);
    at_ += 8;
    return true;
  }
  bool i64(int64_t &v) {
    uint64_t u;
    if (!u64(u))
      return false;
    v = static_cast<int64_t>(u);
    return true;
  }
  bool i32(int &v) {
    int64_t w;
    if (!i64(w) || w < INT32_MIN || w > INT32_MAX)
      return fail();
    v = static_cast<int>(w);
    return true;
  }
  bool f64(double &v);
  bool dtype(DType &d);
  bool str(std::string &s) {
    uint64_t n;
    if (!u64(n) || n > in_.size() - at_)
      return fail();
    s.assign(in_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool ints(std::vector<int64_t> &v) {
    uint64_t n;
    // Each element takes 8 bytes: a count past the input is corrupt.
    if (!u64(n) || n > (in_.size() - at_) / 8)
      return fail();
    v.resize(n);
    for (int64_t &x : v)
      i64(x);
    return true;
  }
  /// A count of items that take at least `minBytes` each.
  bool count(size_t &n, size_t minBytes) {
    uint64_t w;
    if (!u64(w) || w > (in_.size() - at_) / (minBytes ? minBytes : 1))
      return fail();
    n = static_cast<size_t>(w);
    return true;
  }
  /// A count of items that take at least `minBytes` each, then
  /// `get(*this, item)` for each; false from the first that fails.
  template <typename T, typename Get>
  bool list(std::vector<T> &v, size_t minBytes, Get get) {
    size_t n;
    if (!count(n, minBytes))
      return false;
    v.resize(n);
    for (T &x : v)
      if (!get(*this, x))
        return fail();
    return true;
  }

  bool done() const { return at_ == in_.size() && ok_; }
  bool ok() const { return ok_; }

private:
  bool fail() {
    ok_ = false;
    at_ = in_.size();
    return false;
  }
  std::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

} // namespace kiln::detail

#endif // KILN_RUNTIME_BYTES_H
