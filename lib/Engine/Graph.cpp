//===- Graph.cpp - Recorded nodes of the pending graph --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Graph.h"

#include <mutex>
#include <new>

using namespace kiln::detail;

namespace {

/// Nodes this thread is destroying, counted down the chain of inputs.
thread_local int destroying = 0;
/// Inputs handed up by nodes destroyed too deep in a chain; the outermost
/// destructor releases them one at a time.
thread_local std::vector<NodePtr> *deferred = nullptr;

/// How deep a chain of destructors may recurse before it hands its inputs
/// up instead.
constexpr int kMaxDepth = 64;

/// Freed node blocks (a node and its shared_ptr control block, one size),
/// as a list threaded through the blocks, up to kMaxFree of them.
class NodePool {
public:
  static NodePool &get() {
    // Never destroyed: nodes may die during static destruction.
    static NodePool *pool = new NodePool();
    return *pool;
  }

  void *take(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_) {
        void *p = free_;
        free_ = *static_cast<void **>(p);
        --count_;
        return p;
      }
    }
    return ::operator new(bytes);
  }

  void give(void *p) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (count_ < kMaxFree) {
        *static_cast<void **>(p) = free_;
        free_ = p;
        ++count_;
        return;
      }
    }
    ::operator delete(p);
  }

private:
  static constexpr size_t kMaxFree = 16384;
  std::mutex mu_;
  void *free_ = nullptr;
  size_t count_ = 0;
};

/// The allocator of makeNode's allocate_shared: single blocks of the one
/// combined type come from the pool.
template <typename T> struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U> PoolAllocator(const PoolAllocator<U> &) {}
  T *allocate(size_t n) {
    if (n != 1)
      return static_cast<T *>(::operator new(n * sizeof(T)));
    return static_cast<T *>(NodePool::get().take(sizeof(T)));
  }
  void deallocate(T *p, size_t n) {
    if (n != 1)
      ::operator delete(p);
    else
      NodePool::get().give(p);
  }
  template <typename U> bool operator==(const PoolAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const PoolAllocator<U> &) const {
    return false;
  }
};

} // namespace

NodePtr kiln::detail::makeNode() {
  return std::allocate_shared<Node>(PoolAllocator<Node>());
}

Node::~Node() {
  // Only this thread can reach a node being destroyed, so the flag is not
  // being changed; the list's other readers take its mutex first.
  if (onPendingList)
    untrackPending(*this);
  if (inputs.empty())
    return;
  if (destroying >= kMaxDepth && deferred) {
    // Only this node's own inputs move: nothing else can see them.
    for (NodePtr &in : inputs)
      deferred->push_back(std::move(in));
    return;
  }
  ++destroying;
  if (!deferred) {
    std::vector<NodePtr> later;
    deferred = &later;
    inputs.clear();
    while (!later.empty()) {
      NodePtr n = std::move(later.back());
      later.pop_back();
      n.reset(); // may append to `later`, never recursing deeply
    }
    deferred = nullptr;
  } else {
    inputs.clear();
  }
  --destroying;
}
