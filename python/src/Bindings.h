//===- Bindings.h - The parts of the _kiln extension ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_BINDINGS_H
#define KILN_PYTHON_BINDINGS_H

#include <nanobind/nanobind.h>

namespace kiln::python {

/// kiln.nn's modules over the C++ blocks, kiln.optim's optimizers over
/// Python lists of tensors, safetensors files, autodiff devices.
void bindNN(nanobind::module_ &m);

} // namespace kiln::python

#endif // KILN_PYTHON_BINDINGS_H
