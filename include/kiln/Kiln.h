//===- Kiln.h - The Kiln C++ API --------------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Everything a Kiln program needs. Depends on the C++ standard library only:
// no MLIR or LLVM header is reachable from here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KILN_H
#define KILN_KILN_H

#include "kiln/API/Attention.h"
#include "kiln/API/Autodiff.h"
#include "kiln/API/Device.h"
#include "kiln/API/Distributed.h"
#include "kiln/API/LLM.h"
#include "kiln/API/NN.h"
#include "kiln/API/Ops.h"
#include "kiln/API/Tensor.h"
#include "kiln/API/Transformer.h"
#include "kiln/API/Types.h"
#include "kiln/API/Vision.h"

#endif // KILN_KILN_H
