//===- Artifact.h - A compiled graph, as plain data -------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What a target (kiln/Target/Target.h) makes of a graph, and all a backend
// needs to run it: the plan, the ops its host steps run, the constants,
// and the backend's own part (kernel descriptions with their object files
// or PTX) as bytes. The engine stores it in the disk cache as bytes
// (serialize) and a later process reads it back (deserialize) and hands it
// to the backend: no pass runs and no MLIR is read.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_ARTIFACT_H
#define KILN_RUNTIME_ARTIFACT_H

#include "kiln/Runtime/OpDesc.h"
#include "kiln/Runtime/Plan.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::detail {

/// The steps every backend runs on the host (PlanStep::kind): an op of
/// Artifact::ops, by its index. Backends number their own kinds after it.
constexpr int kHostOpStep = 0;

struct Artifact {
  std::string backend; ///< "flex", "cpu", "cuda"
  Plan plan;
  /// The ops of the host steps.
  std::vector<OpDesc> ops;
  /// kiln.constant ops (their `value` attribute holds the elements).
  std::vector<OpDesc> constants;
  /// What the kernels fuse, for KILN_LOG=compile.
  std::string summary;
  /// The backend's own part.
  std::string payload;
};

/// The bytes of `a`, versioned.
std::string serialize(const Artifact &a);
/// The artifact of `bytes`, or nothing when they are not one this version
/// wrote (a truncated or corrupt entry).
std::optional<Artifact> deserialize(std::string_view bytes);

} // namespace kiln::detail

#endif // KILN_RUNTIME_ARTIFACT_H
