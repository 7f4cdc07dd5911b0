//===- KilnOps.td - All ops of the kiln dialect -------------*- tablegen -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnCreationOps.td"
include "kiln/Dialect/Kiln/IR/KilnElementwiseOps.td"
include "kiln/Dialect/Kiln/IR/KilnReductionOps.td"
include "kiln/Dialect/Kiln/IR/KilnLinalgOps.td"
include "kiln/Dialect/Kiln/IR/KilnShapeOps.td"
include "kiln/Dialect/Kiln/IR/KilnIndexingOps.td"
include "kiln/Dialect/Kiln/IR/KilnNNOps.td"
include "kiln/Dialect/Kiln/IR/KilnQuantOps.td"
include "kiln/Dialect/Kiln/IR/KilnAutodiffOps.td"
include "kiln/Dialect/Kiln/IR/KilnCollectiveOps.td"

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
