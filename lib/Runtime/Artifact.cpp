//===- Artifact.cpp - A compiled graph, as plain data ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Artifact.h"
#include "kiln/Runtime/Bytes.h"

using namespace kiln;
using namespace kiln::detail;

/// Bump when the layout below changes.
static constexpr char kMagic[] = "kiln-artifact-1";

namespace {

void put(ByteWriter &w, const std::vector<TensorDesc> &ts) {
  w.list(ts, [](ByteWriter &w, const TensorDesc &t) {
    w.dtype(t.dtype);
    w.ints(t.shape);
  });
}

bool get(ByteReader &r, std::vector<TensorDesc> &ts) {
  return r.list(ts, 16, [](ByteReader &r, TensorDesc &t) {
    return r.dtype(t.dtype) && r.ints(t.shape);
  });
}

void put(ByteWriter &w, const OpDesc &op) {
  w.str(op.name);
  put(w, op.operands);
  put(w, op.results);
  w.list(op.attrs, [](ByteWriter &w, const OpAttr &a) {
    w.str(a.name);
    w.u64(static_cast<uint64_t>(a.kind));
    w.i64(a.i);
    w.f64(a.f);
    w.ints(a.ints);
    w.str(a.text);
  });
}

bool get(ByteReader &r, OpDesc &op) {
  return r.str(op.name) && get(r, op.operands) && get(r, op.results) &&
         r.list(op.attrs, 48, [](ByteReader &r, OpAttr &a) {
           uint64_t kind;
           if (!r.str(a.name) || !r.u64(kind) ||
               kind > static_cast<uint64_t>(OpAttr::Kind::Bytes) ||
               !r.i64(a.i) || !r.f64(a.f) || !r.ints(a.ints) || !r.str(a.text))
             return false;
           a.kind = static_cast<OpAttr::Kind>(kind);
           return true;
         });
}

void put(ByteWriter &w, const std::vector<OpDesc> &ops) {
  w.list(ops, [](ByteWriter &w, const OpDesc &op) { put(w, op); });
}

bool get(ByteReader &r, std::vector<OpDesc> &ops) {
  return r.list(ops, 32, [](ByteReader &r, OpDesc &op) { return get(r, op); });
}

std::vector<int64_t> wide(const std::vector<int> &v) {
  return {v.begin(), v.end()};
}

bool narrow(const std::vector<int64_t> &w, std::vector<int> &v, int bound) {
  v.clear();
  for (int64_t x : w) {
    if (x < 0 || x >= bound)
      return false;
    v.push_back(static_cast<int>(x));
  }
  return true;
}

void put(ByteWriter &w, const Plan &p) {
  w.i64(p.numArgs);
  w.i64(p.numSlots);
  w.list(p.steps, [](ByteWriter &w, const PlanStep &s) {
    w.i64(s.kind);
    w.i64(s.index);
    w.ints(wide(s.operands));
    w.ints(wide(s.results));
    w.ints(wide(s.dying));
  });
  w.list(p.constants, [](ByteWriter &w, const std::pair<int, int> &c) {
    w.i64(c.first);
    w.i64(c.second);
  });
  w.ints(wide(p.resultSlots));
}

/// Reads a plan whose slots all lie in [0, numSlots), so that running it
/// cannot index past its slots.
bool get(ByteReader &r, Plan &p) {
  std::vector<int64_t> w;
  if (!r.i32(p.numArgs) || !r.i32(p.numSlots) || p.numArgs < 0 ||
      p.numSlots < p.numArgs)
    return false;
  const int slots = p.numSlots;
  return r.list(p.steps, 40,
                [&](ByteReader &r, PlanStep &s) {
                  return r.i32(s.kind) && r.i32(s.index) && r.ints(w) &&
                         narrow(w, s.operands, slots) && r.ints(w) &&
                         narrow(w, s.results, slots) && r.ints(w) &&
                         narrow(w, s.dying, slots);
                }) &&
         r.list(p.constants, 16,
                [&](ByteReader &r, std::pair<int, int> &c) {
                  return r.i32(c.first) && r.i32(c.second) && c.first >= 0 &&
                         c.first < slots && c.second >= 0;
                }) &&
         r.ints(w) && narrow(w, p.resultSlots, slots);
}

} // namespace

std::string detail::serialize(const Artifact &a) {
  ByteWriter w;
  w.str(kMagic);
  w.str(a.backend);
  put(w, a.plan);
  put(w, a.ops);
  put(w, a.constants);
  w.str(a.summary);
  w.str(a.payload);
  return w.take();
}

std::optional<Artifact> detail::deserialize(std::string_view bytes) {
  ByteReader r(bytes);
  std::string magic;
  Artifact a;
  if (!r.str(magic) || magic != kMagic || !r.str(a.backend) ||
      !get(r, a.plan) || !get(r, a.ops) || !get(r, a.constants) ||
      !r.str(a.summary) || !r.str(a.payload) || !r.done())
    return std::nullopt;
  for (const auto &[slot, index] : a.plan.constants)
    if (index >= static_cast<int>(a.constants.size()))
      return std::nullopt;
  return a;
}
