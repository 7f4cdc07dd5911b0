//===- Target.h - From a graph module to an artifact ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A target is the compiler for one backend. It registers what the graph
// passes should do for its backend (fusion, the memory model of Budget
// checkpointing, the composites the backend runs as they are) and what the
// backend can do (dynamic dims), and it turns the graph module the engine
// made and transformed into an artifact (kiln/Runtime/Artifact.h): the
// plan and the code, as plain data, that the backend then loads and runs.
// Each folder of lib/Target is one target; registerAllTargets lists them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_TARGET_H
#define KILN_TARGET_TARGET_H

#include "kiln/Runtime/Artifact.h"
#include "kiln/Support/DeviceKind.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <memory>
#include <string>

namespace kiln::detail {

/// What a build made, and what it took (for KILN_LOG=compile).
struct BuildResult {
  Artifact artifact;
  std::string phases; ///< "1.2 ms MLIR, 30.4 ms LLVM"
};

/// The compiler of one device.
class Target {
public:
  virtual ~Target() = default;
  /// Part of the disk-cache key of every artifact it builds: the code
  /// generator's version and what the code is for (the ISA, the GPU).
  /// Empty: its artifacts are not kept on disk (they are cheap to make).
  virtual std::string diskKey() const { return {}; }
  /// The artifact of function @main of `module`, which the graph pipeline
  /// has transformed with this target's options. Throws kiln::Error.
  virtual BuildResult build(mlir::ModuleOp module) = 0;
};

/// A target's registration.
struct TargetInfo {
  DeviceKind kind;
  std::string name; ///< --kiln-graph-pipeline=target=<name>
  /// The graph passes' options for this backend (the strategy is each
  /// graph's own).
  mlir::kiln::GraphPipelineOptions graph;
  /// One executable serves every size S of the dims a graph marks dynamic.
  bool dynamicDims = false;
  /// The target of device `index` of this kind; throws kiln::Error when
  /// that device cannot be compiled for here.
  std::function<std::unique_ptr<Target>(int index)> create;
};

/// Adds a target (each target's folder has a function that calls this).
void registerTarget(TargetInfo info);
/// Registers every target in lib/Target, once.
void registerAllTargets();
/// The registration of `kind`'s target, or of the one named `name`.
const TargetInfo &targetInfo(DeviceKind kind);
const TargetInfo *findTarget(const std::string &name);
/// The target of a device, made on first use.
Target &getTarget(DeviceKind kind, int index);

/// --kiln-graph-pipeline=target=NAME strategy=S: the graph passes with the
/// named target's options, as the engine runs them (for tensor-opt).
void registerKilnGraphPipeline();

} // namespace kiln::detail

#endif // KILN_TARGET_TARGET_H
