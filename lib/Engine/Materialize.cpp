//===- Materialize.cpp - Materializing pending graphs ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Compile.h"
#include "kiln/Engine/Engine.h"
#include "kiln/Engine/OpSignatures.h"
#include "kiln/Engine/OpVocabulary.h"
#include "kiln/Runtime/Communicator.h"
#include "kiln/Support/Env.h"
#include "kiln/Support/ShapeRules.h"
#include "kiln/Target/Target.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
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

  /// The executable under `key`, which `build` makes unless it is there
  /// already or another thread is making it now: this one then waits for
  /// that build, so threads that reach one graph together (the ranks of
  /// a data-parallel job in one process) compile it once. `built` says
  /// whether this call built it. A build that throws leaves the key free:
  /// a waiter then builds it itself (and meets the same error).
  std::shared_ptr<Executable>
  findOrBuild(const std::string &key,
              const std::function<std::unique_ptr<Executable>()> &build,
              bool &built) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      auto it = map_.find(key);
      if (it != map_.end()) {
        built = false;
        return it->second;
      }
      if (building_.insert(key).second)
        break;
      buildDone_.wait(lock);
    }
    lock.unlock();
    std::unique_ptr<Executable> exe;
    try {
      exe = build();
    } catch (...) {
      lock.lock();
      building_.erase(key);
      buildDone_.notify_all();
      throw;
    }
    lock.lock();
    building_.erase(key);
    auto it = map_.emplace(key, std::move(exe)).first;
    buildDone_.notify_all();
    built = true;
    return it->second;
  }

  /// Dynamic keys whose graphs do not generalize: compiled for their
  /// static sizes instead.
  bool isStaticOnly(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    return staticOnly_.count(key) != 0;
  }
  void markStaticOnly(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    staticOnly_.insert(key);
  }

private:
  std::mutex mu_;
  std::condition_variable buildDone_;
  std::unordered_set<std::string> building_;
  std::unordered_set<std::string> staticOnly_;
  std::unordered_map<std::string, std::shared_ptr<Executable>> map_;
};

/// The sizes each graph compiled with, grouped by structure without sizes:
/// KILN_LOG=recompile's reasons, and the dims that become dynamic
/// automatically. When a graph recompiles only because input dims changed
/// size, those dims (of inputs that are not parameters: their dims are the
/// N and K of matmuls and the widths of rows) are dynamic from then on.
class ShapeHistory {
public:
  static ShapeHistory &get() {
    static ShapeHistory *h = new ShapeHistory();
    return *h;
  }

  /// Whether any graph has dims made dynamic automatically (only then is
  /// the size-free key of every materialization worth computing).
  bool active() const { return active_.load(std::memory_order_relaxed); }

  /// The dims of each leaf made dynamic for `group` (empty: none).
  std::vector<uint64_t> autoDims(const std::string &group) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = groups_.find(group);
    return it == groups_.end() ? std::vector<uint64_t>() : it->second.dims;
  }

  /// A static compile of `g`: notes its sizes and, for a graph compiled
  /// before with others, returns the leaf dims now dynamic (else empty).
  std::vector<uint64_t> noteStaticCompile(const Subgraph &g,
                                          const std::string &group,
                                          const std::string &backendName,
                                          bool automatic, bool plansMemory) {
    std::vector<std::vector<int64_t>> shapes;
    for (const NodePtr &l : g.leaves)
      shapes.push_back(l->shape);
    std::string line;
    bool fresh;
    std::vector<uint64_t> dims;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto inserted = groups_.try_emplace(group);
      Group &grp = inserted.first->second;
      fresh = inserted.second;
      if (fresh) {
        line = "a graph not seen before (" + std::to_string(g.nodes.size()) +
               " ops, " + std::to_string(g.leaves.size()) + " inputs)";
        grp.dims.assign(shapes.size(), 0);
      } else {
        bool changed = false;
        for (size_t i = 0; i < shapes.size(); ++i)
          for (size_t d = 0; d < shapes[i].size(); ++d)
            if (shapes[i][d] != grp.last[i][d]) {
              const Node &l = *g.leaves[i];
              line += line.empty() ? "" : "; ";
              line += "input " + std::to_string(i) + " (" + l.dtype.str() +
                      rules::formatDims(l.shape) +
                      (l.requiresGrad ? ", a parameter" : "") + ") dim " +
                      std::to_string(d) + " is " +
                      std::to_string(shapes[i][d]) + ", was " +
                      std::to_string(grp.last[i][d]);
              if (automatic && !l.requiresGrad && d < 64 &&
                  !(grp.dims[i] >> d & 1)) {
                grp.dims[i] |= uint64_t(1) << d;
                changed = true;
              }
            }
        if (line.empty())
          line = plansMemory
                     ? "the same graph and sizes with other inputs given up "
                       "(Budget checkpointing plans memory per pattern)"
                     : "the same ops with other sizes in their attributes "
                       "(a creation op's or a reshape's shape, ...)";
        if (changed) {
          dims = grp.dims;
          active_.store(true);
        }
      }
      grp.last = shapes;
    }
    if (env::logEnabled("recompile"))
      std::fprintf(stderr, "kiln: %s %s: %s\n", fresh ? "compile" : "recompile",
                   backendName.c_str(), line.c_str());
    return dims;
  }

private:
  struct Group {
    std::vector<std::vector<int64_t>> last;
    std::vector<uint64_t> dims;
  };
  std::mutex mu_;
  std::atomic<bool> active_{false};
  std::unordered_map<std::string, Group> groups_;
};

/// KILN_LOG=recompile's line for a compile with dynamic dims.
void logDynamic(const Subgraph &g, const DynamicDims &dyn,
                const std::string &backendName, bool built) {
  if (!env::logEnabled("recompile"))
    return;
  std::string dims;
  for (size_t i = 0; i < g.leaves.size(); ++i)
    for (size_t d = 0; d < g.leaves[i]->shape.size() && d < 64; ++d)
      if (dyn.leafDims[i] >> d & 1)
        dims += (dims.empty() ? "" : ", ") + std::string("input ") +
                std::to_string(i) + " dim " + std::to_string(d);
  std::fprintf(stderr, "kiln: compile %s: %s dynamic dims (%s; now %lld)\n",
               backendName.c_str(),
               built ? "for any size of the" : "not general in the",
               dims.c_str(), static_cast<long long>(dyn.size));
}

/// Does `n` keep its inputs once it holds a buffer? A tracked value does,
/// so that a later backward can retrace (and recompute) the forward graph
/// through it; materialize() drops the inputs of every other target.
bool keepsInputs(const Node &n) { return n.checkpointing && !n.requiresGrad; }

/// Which leaves materialize() gives up (donates) and which targets then lose
/// their retrace.
struct Donation {
  std::vector<bool> leaves;
  /// Per target: a tracked target that keeps its inputs, computed from a
  /// donated parameter. It cannot be retraced and drops them.
  std::vector<bool> cutTargets;
};

/// Leaves that nobody else will ever read again: every reference to them
/// comes from subgraph nodes that die once the targets drop their inputs.
/// A tracked target keeps its inputs for a later backward; what it reaches
/// is kept too, except a parameter (a leaf that requires grad) that only
/// such targets still reach: the optimizer's update of it goes in place,
/// as it must for training to fit in memory, and the targets computed
/// from it can no longer be differentiated (backward says so).
Donation donatableLeaves(const Subgraph &g) {
  llvm::SmallDenseMap<const Node *, long, 32> internal;
  for (const NodePtr &n : g.nodes)
    for (const NodePtr &in : n->inputs)
      ++internal[in.get()];
  llvm::SmallDenseSet<const Node *, 8> targets;
  for (const NodePtr &t : g.targets)
    targets.insert(t.get());
  // Nodes that survive (held from outside, or read by one that is) keep
  // their inputs: `needed`. What only a retrace would read: `retraced`.
  llvm::SmallDenseSet<const Node *, 32> needed, retraced;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const Node *n = it->get();
    // The Subgraph holds one reference to every node.
    long outside = it->use_count() - 1 - internal.lookup(n);
    bool survives = !targets.count(n) && (outside > 0 || needed.count(n));
    bool forRetrace =
        targets.count(n) ? keepsInputs(*n) : retraced.count(n) != 0;
    if (survives || forRetrace)
      for (const NodePtr &in : n->inputs)
        (survives ? needed : retraced).insert(in.get());
  }
  Donation d;
  llvm::SmallDenseSet<const Node *, 8> givenUpParams;
  for (const NodePtr &l : g.leaves) {
    long outside = l.use_count() - 1 - internal.lookup(l.get());
    bool donate = outside == 0 && !needed.count(l.get()) &&
                  (!retraced.count(l.get()) || l->requiresGrad) &&
                  l->buffer->storage.use_count() == 1 &&
                  !l->buffer->storage->external;
    d.leaves.push_back(donate);
    if (donate && retraced.count(l.get()))
      givenUpParams.insert(l.get());
  }
  // The targets that reach a given-up parameter (nodes come inputs first).
  llvm::SmallDenseSet<const Node *, 32> reaches;
  if (!givenUpParams.empty())
    for (const NodePtr &n : g.nodes)
      for (const NodePtr &in : n->inputs)
        if (givenUpParams.count(in.get()) || reaches.count(in.get())) {
          reaches.insert(n.get());
          break;
        }
  for (const NodePtr &t : g.targets)
    d.cutTargets.push_back(keepsInputs(*t) && reaches.count(t.get()));
  return d;
}

/// The executable of `g`, from the cache or compiled now. `donated`: the
/// leaves the run gives up (Budget checkpointing keys its plan on them).
std::shared_ptr<Executable> findExecutable(const Subgraph &g, Backend &backend,
                                           const std::vector<bool> &donated) {
  // Budget checkpointing plans the step's peak memory, which depends on the
  // inputs the caller gives up (their buffers die at their last reader): a
  // plan is kept per pattern of donated inputs.
  bool plansMemory =
      std::any_of(g.leaves.begin(), g.leaves.end(), [](const NodePtr &l) {
        return l->checkpointing &&
               l->checkpointing->kind() == CheckpointingStrategy::Kind::Budget;
      });
  // Dynamic dims (where the target takes them; Budget plans memory for
  // exact sizes): one executable for every size S of the dims marked
  // dynamic.
  ExecutableCache &cache = ExecutableCache::get();
  ShapeHistory &history = ShapeHistory::get();
  bool canGeneralize = targetInfo(backend.kind()).dynamicDims && !plansMemory;
  std::string group;
  auto tryDynamic = [&](const std::vector<uint64_t> *extra) {
    DynamicDims dyn = dynamicDimsOf(g, extra);
    if (dyn.empty())
      return std::shared_ptr<Executable>();
    std::string dkey = structuralKey(g, true, &dyn);
    if (std::shared_ptr<Executable> hit = cache.lookup(dkey)) {
      backend.counters.cacheHits.fetch_add(1);
      return hit;
    }
    if (cache.isStaticOnly(dkey))
      return std::shared_ptr<Executable>();
    if (env::logEnabled("graph"))
      std::fprintf(stderr, "%s\n", printSubgraph(g).c_str());
    std::string trueKey;
    std::unique_ptr<Executable> built =
        compileSubgraph(g, backend, dkey, {}, &dyn, &trueKey);
    if (!trueKey.empty()) {
      // The key marked a static size equal to S as following it, or the
      // other way round: the graph's own key names its executable, which
      // this one shares from now on.
      if (std::shared_ptr<Executable> hit = cache.lookup(trueKey)) {
        backend.counters.cacheHits.fetch_add(1);
        return cache.insert(dkey, hit);
      }
      built = compileSubgraph(g, backend, trueKey, {}, &dyn);
      if (built) {
        backend.counters.compiles.fetch_add(1);
        logDynamic(g, dyn, backend.name(), true);
        return cache.insert(dkey, cache.insert(trueKey, std::move(built)));
      }
    }
    logDynamic(g, dyn, backend.name(), built != nullptr);
    if (!built) {
      cache.markStaticOnly(dkey);
      return std::shared_ptr<Executable>();
    }
    backend.counters.compiles.fetch_add(1);
    return cache.insert(dkey, std::move(built));
  };
  std::shared_ptr<Executable> exe;
  if (canGeneralize) {
    std::vector<uint64_t> autoDims;
    if (history.active()) {
      group = structuralKey(g, /*withSizes=*/false);
      autoDims = history.autoDims(group);
    }
    exe = tryDynamic(autoDims.empty() ? nullptr : &autoDims);
  }
  if (!exe) {
    std::string key = structuralKey(g);
    if (plansMemory) {
      key += "donated=";
      for (bool d : donated)
        key += d ? '1' : '0';
    }
    exe = cache.lookup(key);
    if (exe) {
      backend.counters.cacheHits.fetch_add(1);
    } else {
      if (group.empty())
        group = structuralKey(g, /*withSizes=*/false);
      std::vector<uint64_t> autoDims = history.noteStaticCompile(
          g, group, backend.name(), canGeneralize && env::autoDynamic(),
          plansMemory);
      if (!autoDims.empty())
        exe = tryDynamic(&autoDims);
      if (!exe) {
        if (env::logEnabled("graph"))
          std::fprintf(stderr, "%s\n", printSubgraph(g).c_str());
        bool built = false;
        exe = cache.findOrBuild(
            key,
            [&] {
              return compileSubgraph(
                  g, backend, key, plansMemory ? donated : std::vector<bool>());
            },
            built);
        (built ? backend.counters.compiles : backend.counters.cacheHits)
            .fetch_add(1);
      }
    }
  }

  return exe;
}

} // namespace

namespace {

/// Pending nodes, for DispatchDevice::sync(): an intrusive list through
/// the nodes, which a node leaves when it is materialized or destroyed (a
/// list of weak references kept every dead node's memory until a sweep).
/// Its mutex also guards every pending -> materialized transition:
/// heldPending() looks at nodes that other threads are materializing.
struct PendingRegistry {
  std::mutex mu;
  Node *head = nullptr;

  void unlink(Node &n) {
    if (!n.onPendingList)
      return;
    (n.pendingPrev ? n.pendingPrev->pendingNext : head) = n.pendingNext;
    if (n.pendingNext)
      n.pendingNext->pendingPrev = n.pendingPrev;
    n.pendingPrev = n.pendingNext = nullptr;
    n.onPendingList = false;
  }
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
        return n->op && std::strcmp(n->op, ops::Grad::name) == 0;
      }))
    g = collectSubgraph(targets, /*throughTracked=*/true);
  Backend &backend = getBackend(g.device, g.deviceIndex);
  Donation donation = donatableLeaves(g);
  // A kernel that meets a bad index makes the run throw (Flex and Cpu), and
  // the graph must then lose nothing: no input is given up to a run that
  // reads indices unchecked when they were recorded.
  if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const NodePtr &n) {
        return !n->indicesChecked && n->op && opHasFact(n->op, "ChecksIndices");
      })) {
    donation.leaves.assign(donation.leaves.size(), false);
    donation.cutTargets.assign(donation.cutTargets.size(), false);
  }
  const std::vector<bool> &donated = donation.leaves;
  std::shared_ptr<Executable> exe = findExecutable(g, backend, donated);

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
      registry().unlink(*targets[i]);
      // Tracked values keep their inputs, so a later backward can retrace
      // (and recompute) the forward graph through them, unless a parameter
      // they were computed from was just given up.
      if (!keepsInputs(*targets[i]) || donation.cutTargets[i]) {
        targets[i]->retraceLost = donation.cutTargets[i];
        released[i].swap(targets[i]->inputs);
      }
    }
  }
}

void kiln::detail::trackPending(const NodePtr &node) {
  PendingRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (node->onPendingList || !node->isPending())
    return;
  node->rank = distributed::threadCollectives();
  node->pendingPrev = nullptr;
  node->pendingNext = r.head;
  if (r.head)
    r.head->pendingPrev = node.get();
  r.head = node.get();
  node->onPendingList = true;
}

void kiln::detail::untrackPending(Node &node) {
  PendingRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.unlink(node);
}

std::vector<NodePtr> kiln::detail::heldPending(DeviceKind kind, int index) {
  PendingRegistry &r = registry();
  std::vector<NodePtr> pending;
  const void *rank = distributed::threadCollectives();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    // A node whose last owner is destroying it is still listed (its
    // destructor waits for this mutex) but can no longer be locked.
    for (Node *n = r.head; n; n = n->pendingNext)
      if (n->device == kind && n->deviceIndex == index && n->isPending() &&
          n->rank == rank)
        if (NodePtr p = n->weak_from_this().lock())
          pending.push_back(std::move(p));
  }
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

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

Replay::Replay(const std::vector<NodePtr> &targets,
               const std::vector<NodePtr> &inputs) {
  llvm::SmallDenseSet<Node *, 8> seen;
  for (const NodePtr &t : targets)
    if (!t || !t->isPending() || !seen.insert(t.get()).second)
      throw Error("replay: the outputs of a replayed step must be distinct "
                  "tensors computed by it");
  for (const NodePtr &in : inputs)
    if (!in || in->isPending())
      throw Error("replay: the inputs of a replayed step must be "
                  "materialized tensors");
  Subgraph g = collectSubgraph(targets);
  if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const NodePtr &n) {
        return n->op && std::strcmp(n->op, ops::Grad::name) == 0;
      }))
    throw Error("replay: a step that differentiates cannot be replayed");
  device_ = g.device;
  deviceIndex_ = g.deviceIndex;
  Backend &backend = getBackend(device_, deviceIndex_);
  exe_ = findExecutable(g, backend, std::vector<bool>(g.leaves.size(), false));
  for (const NodePtr &l : g.leaves)
    leaves_.push_back(*l->buffer);
  for (const NodePtr &in : inputs) {
    auto at = std::find(g.leaves.begin(), g.leaves.end(), in);
    inputLeaf_.push_back(
        at == g.leaves.end() ? -1 : static_cast<int>(at - g.leaves.begin()));
    inputTypes_.push_back(in->dtype);
    inputShapes_.push_back(in->shape);
  }
  g = Subgraph();
  materialize(targets);
  // The inputs' buffers come with each run: do not pin the first ones.
  for (int leaf : inputLeaf_)
    if (leaf >= 0)
      leaves_[leaf] = Buffer();
}

Replay::~Replay() = default;

std::vector<Buffer> Replay::run(std::vector<Buffer> inputs,
                                const std::vector<bool> &giveUp) {
  if (inputs.size() != inputLeaf_.size() || giveUp.size() != inputs.size())
    throw Error("replay: the step was recorded with " +
                std::to_string(inputLeaf_.size()) + " inputs, not " +
                std::to_string(inputs.size()));
  std::vector<Buffer> args = leaves_;
  std::vector<bool> donated(args.size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    Buffer &b = inputs[i];
    if (b.dtype != inputTypes_[i] || b.shape != inputShapes_[i])
      throw Error("replay: input " + std::to_string(i) + " is " +
                  b.dtype.str() + rules::formatDims(b.shape) +
                  ", but the step was recorded with " + inputTypes_[i].str() +
                  rules::formatDims(inputShapes_[i]));
    int leaf = inputLeaf_[i];
    if (leaf < 0)
      continue;
    donated[leaf] = giveUp[i] && b.storage && b.storage.use_count() == 1 &&
                    !b.storage->external;
    args[leaf] = std::move(b);
  }
  Backend &backend = getBackend(device_, deviceIndex_);
  std::vector<Buffer> results = exe_->run(args, donated);
  backend.counters.materializations.fetch_add(1);
  return results;
}
