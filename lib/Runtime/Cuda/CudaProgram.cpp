//===- CudaProgram.cpp - The Cuda backend's part of an artifact -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaProgram.h"
#include "kiln/Runtime/Bytes.h"

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cuda;

namespace {

void put(ByteWriter &w, const KernelSpec &k) {
  w.str(k.name);
  w.u64(k.launches.size());
  for (const LaunchSpec &l : k.launches) {
    w.str(l.module);
    w.str(l.function);
    w.ints(
        {l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]});
    w.ints({l.args.begin(), l.args.end()});
  }
  w.i64(k.workspaceBytes);
  w.u64(k.outTypes.size());
  for (DType t : k.outTypes)
    w.dtype(t);
  w.u64(k.outShapes.size());
  for (const auto &s : k.outShapes)
    w.ints(s);
}

bool get(ByteReader &r, KernelSpec &k) {
  size_t n;
  if (!r.str(k.name) || !r.count(n, 32))
    return false;
  k.launches.resize(n);
  std::vector<int64_t> v;
  for (LaunchSpec &l : k.launches) {
    if (!r.str(l.module) || !r.str(l.function) || !r.ints(v) || v.size() != 6)
      return false;
    for (int i = 0; i < 6; ++i) {
      if (v[i] < 1 || v[i] > 0x7fffffff)
        return false;
      (i < 3 ? l.grid[i] : l.block[i - 3]) = static_cast<unsigned>(v[i]);
    }
    if (!r.ints(v))
      return false;
    for (int64_t a : v) {
      if (a < 0 || a > 4096)
        return false;
      l.args.push_back(static_cast<int>(a));
    }
  }
  if (!r.i64(k.workspaceBytes) || k.workspaceBytes < 0 || !r.count(n, 8))
    return false;
  k.outTypes.resize(n);
  for (DType &t : k.outTypes)
    if (!r.dtype(t))
      return false;
  if (!r.count(n, 8) || n != k.outTypes.size())
    return false;
  k.outShapes.resize(n);
  for (auto &s : k.outShapes)
    if (!r.ints(s))
      return false;
  return true;
}

} // namespace

std::string cuda::encode(const CudaProgram &p) {
  ByteWriter w;
  w.u64(p.kernels.size());
  for (const KernelSpec &k : p.kernels)
    put(w, k);
  w.u64(p.ptx.size());
  for (const auto &[name, text] : p.ptx) {
    w.str(name);
    w.str(text);
  }
  return w.take();
}

std::optional<CudaProgram> cuda::decodeCudaProgram(std::string_view bytes) {
  ByteReader r(bytes);
  CudaProgram p;
  size_t n;
  if (!r.count(n, 48))
    return std::nullopt;
  p.kernels.resize(n);
  for (KernelSpec &k : p.kernels)
    if (!get(r, k))
      return std::nullopt;
  if (!r.count(n, 16))
    return std::nullopt;
  p.ptx.resize(n);
  for (auto &[name, text] : p.ptx)
    if (!r.str(name) || !r.str(text))
      return std::nullopt;
  if (!r.done())
    return std::nullopt;
  return p;
}
