//===- CpuProgram.cpp - The Cpu backend's part of an artifact -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CpuProgram.h"
#include "kiln/Runtime/Bytes.h"

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::cpu;

namespace {

void put(ByteWriter &w, const std::vector<std::vector<int64_t>> &shapes) {
  w.u64(shapes.size());
  for (const auto &s : shapes)
    w.ints(s);
}

bool get(ByteReader &r, std::vector<std::vector<int64_t>> &shapes) {
  size_t n;
  if (!r.count(n, 8))
    return false;
  shapes.resize(n);
  for (auto &s : shapes)
    if (!r.ints(s))
      return false;
  return true;
}

void put(ByteWriter &w, const CpuKernel &k) {
  w.str(k.name);
  w.str(k.label);
  w.u64(k.phases.size());
  for (const CpuPhase &p : k.phases) {
    w.str(p.name);
    w.ints({p.units, p.grain, p.unitsPer[0], p.unitsPer[1]});
  }
  w.ints({k.workspaceBytes, k.workspacePer[0], k.workspacePer[1],
          k.workspacePer[2], k.inPlaceInput, k.sizeInput, k.sizeDim,
          k.needsSizes, k.sizeScale});
  w.u64(k.outTypes.size());
  for (DType t : k.outTypes)
    w.dtype(t);
  put(w, k.inShapes);
  put(w, k.outShapes);
}

bool get(ByteReader &r, CpuKernel &k) {
  size_t n;
  if (!r.str(k.name) || !r.str(k.label) || !r.count(n, 48))
    return false;
  k.phases.resize(n);
  std::vector<int64_t> v;
  for (CpuPhase &p : k.phases) {
    if (!r.str(p.name) || !r.ints(v) || v.size() != 4 || v[0] < 0 || v[1] < 1)
      return false;
    p.units = v[0];
    p.grain = v[1];
    p.unitsPer[0] = v[2];
    p.unitsPer[1] = v[3];
  }
  if (!r.ints(v) || v.size() != 9)
    return false;
  k.workspaceBytes = v[0];
  std::copy(v.begin() + 1, v.begin() + 4, k.workspacePer);
  k.inPlaceInput = static_cast<int>(v[4]);
  k.sizeInput = static_cast<int>(v[5]);
  k.sizeDim = static_cast<int>(v[6]);
  k.needsSizes = v[7] != 0;
  k.sizeScale = v[8];
  if (!r.count(n, 8))
    return false;
  k.outTypes.resize(n);
  for (DType &t : k.outTypes)
    if (!r.dtype(t))
      return false;
  return get(r, k.inShapes) && get(r, k.outShapes) &&
         k.outShapes.size() == k.outTypes.size() && k.sizeScale >= 1 &&
         k.workspaceBytes >= 0 &&
         (k.sizeInput < 0 ||
          (k.sizeInput < static_cast<int>(k.inShapes.size()) &&
           k.sizeDim >= 0 &&
           k.sizeDim < static_cast<int>(k.inShapes[k.sizeInput].size())));
}

} // namespace

std::string cpu::encode(const CpuProgram &p) {
  ByteWriter w;
  w.u64(p.kernels.size());
  for (const CpuKernel &k : p.kernels)
    put(w, k);
  std::vector<int64_t> dyn;
  for (auto [arg, dim] : p.dynamicArgs) {
    dyn.push_back(arg);
    dyn.push_back(dim);
  }
  w.ints(dyn);
  w.u64(p.objects.size());
  for (const std::string &o : p.objects)
    w.str(o);
  return w.take();
}

std::optional<CpuProgram> cpu::decodeCpuProgram(std::string_view bytes) {
  ByteReader r(bytes);
  CpuProgram p;
  size_t n;
  if (!r.count(n, 64))
    return std::nullopt;
  p.kernels.resize(n);
  for (CpuKernel &k : p.kernels)
    if (!get(r, k))
      return std::nullopt;
  std::vector<int64_t> dyn;
  if (!r.ints(dyn) || dyn.size() % 2)
    return std::nullopt;
  for (size_t i = 0; i < dyn.size(); i += 2)
    p.dynamicArgs.push_back(
        {static_cast<int>(dyn[i]), static_cast<int>(dyn[i + 1])});
  if (!r.count(n, 8))
    return std::nullopt;
  p.objects.resize(n);
  for (std::string &o : p.objects)
    if (!r.str(o))
      return std::nullopt;
  if (!r.done() || p.objects.empty())
    return std::nullopt;
  return p;
}
