//===- CompileWatchdog.h - A time limit on each compile ---------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A compile that never ends (an optimizer walking an exponential number of
// paths, say) would stall a program, a test suite or a fuzzer without a
// word. With KILN_COMPILE_TIMEOUT set, every compile is watched: one that
// runs past the limit prints the graph it was given and aborts the process,
// so the hang is reported with what caused it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ENGINE_COMPILEWATCHDOG_H
#define KILN_LIB_ENGINE_COMPILEWATCHDOG_H

#include <functional>
#include <string>

namespace kiln::detail {

/// Watches the compile that runs while it lives, when KILN_COMPILE_TIMEOUT
/// is set (else it does nothing, and `describe` is never called).
/// `describe` gives the graph's text; it is called at once, so that the
/// text is the graph as the compile received it.
class CompileWatchdog {
public:
  CompileWatchdog(const std::string &backend,
                  const std::function<std::string()> &describe);
  ~CompileWatchdog();
  CompileWatchdog(const CompileWatchdog &) = delete;
  CompileWatchdog &operator=(const CompileWatchdog &) = delete;

private:
  long id = 0; ///< 0: not armed
};

} // namespace kiln::detail

#endif // KILN_LIB_ENGINE_COMPILEWATCHDOG_H
