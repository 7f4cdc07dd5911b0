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

void shapePut(ByteWriter &w, const std::vector<int64_t> &s) { w.ints(s); }
bool shapeGet(ByteReader &r, std::vector<int64_t> &s) { return r.ints(s); }

void putKernel(ByteWriter &w, const CpuKernel &k) {
  w.str(k.name);
  w.str(k.label);
  w.list(k.phases, [](ByteWriter &w, const CpuPhase &p) {
    w.str(p.name);
    w.ints({p.units, p.grain, p.unitsPer[0], p.unitsPer[1]});
  });
  w.ints({k.workspaceBytes, k.workspacePer[0], k.workspacePer[1],
          k.workspacePer[2], k.inPlaceInput, k.sizeInput, k.sizeDim,
          k.needsSizes, k.sizeScale});
  w.list(k.outTypes, [](ByteWriter &w, DType t) { w.dtype(t); });
  w.list(k.inShapes, shapePut);
  w.list(k.outShapes, shapePut);
}

bool getKernel(ByteReader &r, CpuKernel &k) {
  std::vector<int64_t> v;
  if (!r.str(k.name) || !r.str(k.label) ||
      !r.list(k.phases, 48, [&](ByteReader &r, CpuPhase &p) {
        if (!r.str(p.name) || !r.ints(v) || v.size() != 4 || v[0] < 0 ||
            v[1] < 1)
          return false;
        p.units = v[0];
        p.grain = v[1];
        p.unitsPer[0] = v[2];
        p.unitsPer[1] = v[3];
        return true;
      }))
    return false;
  if (!r.ints(v) || v.size() != 9)
    return false;
  k.workspaceBytes = v[0];
  std::copy(v.begin() + 1, v.begin() + 4, k.workspacePer);
  k.inPlaceInput = static_cast<int>(v[4]);
  k.sizeInput = static_cast<int>(v[5]);
  k.sizeDim = static_cast<int>(v[6]);
  k.needsSizes = v[7] != 0;
  k.sizeScale = v[8];
  return r.list(k.outTypes, 8,
                [](ByteReader &r, DType &t) { return r.dtype(t); }) &&
         r.list(k.inShapes, 8, shapeGet) && r.list(k.outShapes, 8, shapeGet) &&
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
  w.list(p.kernels, putKernel);
  std::vector<int64_t> dyn;
  for (auto [arg, dim] : p.dynamicArgs) {
    dyn.push_back(arg);
    dyn.push_back(dim);
  }
  w.ints(dyn);
  w.list(p.objects, [](ByteWriter &w, const std::string &o) { w.str(o); });
  return w.take();
}

std::optional<CpuProgram> cpu::decodeCpuProgram(std::string_view bytes) {
  ByteReader r(bytes);
  CpuProgram p;
  if (!r.list(p.kernels, 64, getKernel))
    return std::nullopt;
  std::vector<int64_t> dyn;
  if (!r.ints(dyn) || dyn.size() % 2)
    return std::nullopt;
  for (size_t i = 0; i < dyn.size(); i += 2)
    p.dynamicArgs.push_back(
        {static_cast<int>(dyn[i]), static_cast<int>(dyn[i + 1])});
  if (!r.list(p.objects, 8,
              [](ByteReader &r, std::string &o) { return r.str(o); }) ||
      !r.done() || p.objects.empty())
    return std::nullopt;
  return p;
}
