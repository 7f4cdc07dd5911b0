//===- ThreadPool.h - Parallel loops for host kernels -----------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_THREADPOOL_H
#define KILN_RUNTIME_THREADPOOL_H

#include <cstdint>
#include <functional>

namespace kiln::detail {

/// Runs fn(begin, end) over [0, n) in chunks. Work below `minPerThread`
/// items per thread stays on the calling thread, so small tensors pay no
/// synchronization.
void parallelFor(int64_t n, int64_t minPerThread,
                 const std::function<void(int64_t, int64_t)> &fn);

/// Threads that parallelFor uses (kiln::setNumThreads and numThreads).
int hostThreads();
void setHostThreads(int threads);

} // namespace kiln::detail

#endif // KILN_RUNTIME_THREADPOOL_H
