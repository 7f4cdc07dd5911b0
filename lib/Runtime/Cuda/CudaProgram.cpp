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

void putKernel(ByteWriter &w, const KernelSpec &k) {
  w.str(k.name);
  w.list(k.launches, [](ByteWriter &w, const LaunchSpec &l) {
    w.str(l.module);
    w.str(l.function);
    w.ints(
        {l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]});
    w.ints({l.args.begin(), l.args.end()});
  });
  w.i64(k.workspaceBytes);
  w.list(k.outTypes, [](ByteWriter &w, DType t) { w.dtype(t); });
  w.list(k.outShapes,
         [](ByteWriter &w, const std::vector<int64_t> &s) { w.ints(s); });
}

bool getKernel(ByteReader &r, KernelSpec &k) {
  std::vector<int64_t> v;
  auto launch = [&](ByteReader &r, LaunchSpec &l) {
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
    return true;
  };
  return r.str(k.name) && r.list(k.launches, 32, launch) &&
         r.i64(k.workspaceBytes) && k.workspaceBytes >= 0 &&
         r.list(k.outTypes, 8,
                [](ByteReader &r, DType &t) { return r.dtype(t); }) &&
         r.list(k.outShapes, 8,
                [](ByteReader &r, std::vector<int64_t> &s) {
                  return r.ints(s);
                }) &&
         k.outShapes.size() == k.outTypes.size();
}

} // namespace

std::string cuda::encode(const CudaProgram &p) {
  ByteWriter w;
  w.list(p.kernels, putKernel);
  w.list(p.ptx, [](ByteWriter &w, const auto &module) {
    w.str(module.first);
    w.str(module.second);
  });
  return w.take();
}

std::optional<CudaProgram> cuda::decodeCudaProgram(std::string_view bytes) {
  ByteReader r(bytes);
  CudaProgram p;
  if (!r.list(p.kernels, 48, getKernel) ||
      !r.list(p.ptx, 16,
              [](ByteReader &r, auto &module) {
                return r.str(module.first) && r.str(module.second);
              }) ||
      !r.done())
    return std::nullopt;
  return p;
}
