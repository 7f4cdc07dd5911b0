// RUN: %python %kiln_src_root/utils/check-op-coverage.py \
// RUN:   %kiln_obj_root/include/kiln/Dialect/Kiln/IR/KilnOps.h.inc \
// RUN:   %S/ops-*.mlir | FileCheck %s
// RUN: %python %kiln_src_root/utils/check-op-coverage.py --diagnostics \
// RUN:   %kiln_obj_root/include/kiln/Dialect/Kiln/IR/KilnOps.h.inc \
// RUN:   %S/invalid-*.mlir | FileCheck %s

// Every op that ODS generates (KilnOps.h.inc) is parsed and checked by one
// of the round-trip tests ops-*.mlir, and is the subject of at least one
// -verify-diagnostics test in invalid-*.mlir. A new op without both fails
// here.

// CHECK: [[N:[0-9]+]] of [[N]] kiln ops covered
