//===- Bindings.h - The parts of the _kiln extension ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_BINDINGS_H
#define KILN_PYTHON_BINDINGS_H

#include <nanobind/nanobind.h>

#include <functional>

namespace kiln::python {

/// Runs `work` (a compile, a run, a file read) with the GIL released, on a
/// worker thread, while the calling thread checks for signals every 50 ms:
/// Ctrl-C raises KeyboardInterrupt at once, and the work goes on to the
/// end in the background, so nothing is lost (the tensors materialize as
/// they would have). The next call waits for it first. Errors of `work`
/// are rethrown here.
void runReleased(std::function<void()> work);

/// Waits for the work a KeyboardInterrupt left running (with the GIL
/// released). Calls that run C++ on memory Python owns (saving a module)
/// do so before they release the GIL themselves.
void finishInterrupted();

/// kiln.nn's modules over the C++ blocks, kiln.optim's optimizers over
/// Python lists of tensors, safetensors files, autodiff devices.
void bindNN(nanobind::module_ &m);

/// kiln.onnx's model (where the ONNX importer is built).
void bindOnnx(nanobind::module_ &m);

} // namespace kiln::python

#endif // KILN_PYTHON_BINDINGS_H
