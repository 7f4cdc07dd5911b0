//===- Materialize.cpp - Materializing pending graphs ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Compile.h"
#include "kiln/Engine/Engine.h"
#include "kiln/Support/Env.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

using namespace kiln;
using namespace kiln::detail;

namespace {

/// Executables of every backend, keyed by backend and structural key.
class ExecutableCache {
public:
  /// Never destroyed, as the backends (see getBackend): an executable's
  /// constants must not be released into a backend destroyed before it.
  static ExecutableCache &get() {
    static ExecutableCache *cache = new ExecutableCache();
    return *cache;
  }

  std::shared_ptr<Executable> lookup(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }

  std::shared_ptr<Executable> insert(const std::string &key,
                                     std::shared_ptr<Executable> exe) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = map_.emplace(key, std::move(exe));
    return it->second;
  }

private:
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Executable>> map_;
};

/// Leaves that nobody else will ever read again: every reference to them
/// comes from subgraph nodes that die once the targets drop their inputs.
std::vector<bool> donatableLeaves(const Subgraph &g) {
  llvm::SmallDenseMap<const Node *, long, 32> internal;
  for (const NodePtr &n : g.nodes)
    for (const NodePtr &in : n->inputs)
      ++internal[in.get()];
  llvm::SmallDenseSet<const Node *, 8> targets;
  for (const NodePtr &t : g.targets)
    targets.insert(t.get());
  // Non-target nodes held from outside survive and keep their inputs.
  llvm::SmallDenseSet<const Node *, 32> needed;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const Node *n = it->get();
    // The Subgraph holds one reference to every node.
    long outside = it->use_count() - 1 - internal.lookup(n);
    bool survives = !targets.count(n) && (outside > 0 || needed.count(n));
    if (survives)
      for (const NodePtr &in : n->inputs)
        needed.insert(in.get());
  }
  std::vector<bool> donated;
  for (const NodePtr &l : g.leaves) {
    long outside = l.use_count() - 1 - internal.lookup(l.get());
    donated.push_back(outside == 0 && !needed.count(l.get()) &&
                      l->buffer->storage.use_count() == 1);
  }
  return donated;
}

} // namespace

namespace {

/// Pending nodes per backend, weakly held, for DispatchDevice::sync(). Its
/// mutex also guards every pending -> materialized transition: the sweep
/// and heldPending() look at nodes that other threads are materializing.
struct PendingRegistry {
  std::mutex mu;
  std::vector<std::weak_ptr<Node>> nodes;
  size_t sweepAt = 1024;
};

PendingRegistry &registry() {
  static PendingRegistry r;
  return r;
}

} // namespace

void kiln::detail::materialize(const std::vector<NodePtr> &requested) {
  std::vector<NodePtr> targets;
  llvm::SmallDenseSet<Node *, 8> seen;
  for (const NodePtr &t : requested)
    if (t && t->isPending() && seen.insert(t.get()).second)
      targets.push_back(t);
  if (targets.empty())
    return;
  for (const NodePtr &t : targets)
    if (t->device != targets.front()->device ||
        t->deviceIndex != targets.front()->deviceIndex)
      throw Error(
          "sync: tensors live on two devices (" +
          deviceName(t->device, t->deviceIndex) + " and " +
          deviceName(targets.front()->device, targets.front()->deviceIndex) +
          "); sync them separately");

  Subgraph g = collectSubgraph(targets);
  if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const NodePtr &n) {
        return n->op && std::strcmp(n->op, "kiln.grad") == 0;
      }))
    g = collectSubgraph(targets, /*throughTracked=*/true);
  Backend &backend = getBackend(g.device, g.deviceIndex);
  std::string key = structuralKey(g);
  std::vector<bool> donated = donatableLeaves(g);
  // Budget checkpointing plans the step's peak memory, which depends on the
  // inputs the caller gives up (their buffers die at their last reader): a
  // plan is kept per pattern of donated inputs.
  bool plansMemory =
      std::any_of(g.leaves.begin(), g.leaves.end(), [](const NodePtr &l) {
        return l->checkpointing &&
               l->checkpointing->kind() == CheckpointingStrategy::Kind::Budget;
      });
  if (plansMemory) {
    key += "donated=";
    for (bool d : donated)
      key += d ? '1' : '0';
  }

  std::shared_ptr<Executable> exe = ExecutableCache::get().lookup(key);
  if (exe) {
    backend.counters.cacheHits.fetch_add(1);
  } else {
    if (env::logEnabled("graph"))
      std::fprintf(stderr, "%s\n", printSubgraph(g).c_str());
    exe = ExecutableCache::get().insert(
        key, compileSubgraph(g, backend, key,
                             plansMemory ? donated : std::vector<bool>()));
    backend.counters.compiles.fetch_add(1);
  }

  std::vector<Buffer> args;
  args.reserve(g.leaves.size());
  for (size_t i = 0; i < g.leaves.size(); ++i) {
    if (donated[i]) {
      // The node keeps an empty buffer rather than none: no handle can
      // reach it, and it must not look pending to another thread's scan.
      args.push_back(std::move(*g.leaves[i]->buffer));
    } else {
      args.push_back(*g.leaves[i]->buffer);
    }
  }
  std::vector<Buffer> results = exe->run(args, donated);
  backend.counters.materializations.fetch_add(1);
  args.clear();

  // Dropped inputs may free whole graphs: do that outside the lock.
  std::vector<std::vector<NodePtr>> released(targets.size());
  {
    std::lock_guard<std::mutex> lock(registry().mu);
    for (size_t i = 0; i < targets.size(); ++i) {
      targets[i]->buffer = std::move(results[i]);
      // Tracked values keep their inputs, so a later backward can retrace
      // (and recompute) the forward graph through them.
      if (!targets[i]->checkpointing || targets[i]->requiresGrad)
        released[i].swap(targets[i]->inputs);
    }
  }
}

void kiln::detail::trackPending(const NodePtr &node) {
  PendingRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.nodes.push_back(node);
  if (r.nodes.size() >= r.sweepAt) {
    r.nodes.erase(std::remove_if(r.nodes.begin(), r.nodes.end(),
                                 [](const std::weak_ptr<Node> &w) {
                                   auto n = w.lock();
                                   return !n || !n->isPending();
                                 }),
                  r.nodes.end());
    r.sweepAt = std::max<size_t>(1024, 2 * r.nodes.size());
  }
}

std::vector<NodePtr> kiln::detail::heldPending(DeviceKind kind, int index) {
  PendingRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<NodePtr> pending;
  for (const std::weak_ptr<Node> &w : r.nodes)
    if (NodePtr n = w.lock())
      if (n->isPending() && n->device == kind && n->deviceIndex == index)
        pending.push_back(n);
  // Held from outside the pending set: more owners than `pending` itself
  // and the pending nodes that read it. Intermediates only reachable
  // through those stay inside the graphs that compute them.
  std::unordered_map<const Node *, long> internal;
  for (const NodePtr &n : pending)
    for (const NodePtr &in : n->inputs)
      ++internal[in.get()];
  std::vector<NodePtr> held;
  for (const NodePtr &n : pending)
    if (n.use_count() - 1 - internal[n.get()] > 0)
      held.push_back(n);
  return held;
}
