// Inputs that do not fit the function, and functions that are not there:
// a message naming the function and argument, and exit status 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/a.npy f32 3
// RUN: %python %S/Inputs/npy.py write %t/b.npy f32 3

// An unknown function: the message lists those there are (declarations
// cannot run, so they are not listed).
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --function nope %t/a.npy 2>&1 | FileCheck %s --check-prefix=FUNCTION
// FUNCTION: tensor-run: error: no function @nope in {{.*}}errors-binding.mlir (it has: @main, @scalar, @scalar_arg)
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --function decl 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: tensor-run: error: no function @decl in {{.*}} (it has: @main, @scalar, @scalar_arg)
// A missing .mlir file.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %t/nothing.mlir 2>&1 | FileCheck %s --check-prefix=NOMLIR
// NOMLIR: tensor-run: error: {{.*}}nothing.mlir: cannot read the file (No such file or directory)

// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/a.npy %t/b.npy %t/a.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=TOOMANY
// TOOMANY: tensor-run: error: @main takes 2 inputs, but 3 files were given
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/a.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tensor-run: error: no input for argument %arg1 of @main
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --input 1=%t/b.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=MISSING0
// MISSING0: tensor-run: error: no input for argument %arg0 of @main

// Names that are no argument of @main.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --input %arg2=%t/a.npy %t/a.npy %t/b.npy 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: tensor-run: error: --input %arg2: @main has no argument named %arg2 (use %arg0 .. %arg1 or 0 .. 1)
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --input x=%t/a.npy 2>&1 | FileCheck %s --check-prefix=NAMEX
// NAMEX: tensor-run: error: --input x: @main has no argument named x (use %arg0 .. %arg1 or 0 .. 1)
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --input %arg=%t/a.npy 2>&1 | FileCheck %s --check-prefix=NAMEARG
// NAMEARG: tensor-run: error: --input %arg: @main has no argument named %arg
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --input -1=%t/a.npy 2>&1 | FileCheck %s --check-prefix=NAMENEG
// NAMENEG: tensor-run: error: --input -1: @main has no argument named -1
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --input 99999999999999999999=%t/a.npy 2>&1 | FileCheck %s --check-prefix=NAMEBIG
// NAMEBIG: tensor-run: error: --input 99999999999999999999: @main has no argument named 99999999999999999999
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --function scalar --input 0=%t/a.npy 2>&1 | FileCheck %s --check-prefix=NOARGS
// NOARGS: tensor-run: error: --input 0: @scalar has no argument named 0 (it takes no arguments)

// An argument bound twice.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/a.npy %t/b.npy --input 0=%t/b.npy 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: tensor-run: error: --input 0: argument %arg0 of @main already has an input ({{.*}}a.npy)

// An argument that is not a tensor.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --function scalar_arg %t/a.npy 2>&1 | FileCheck %s --check-prefix=NOTTENSOR
// NOTTENSOR: tensor-run: error: argument %arg0 of @scalar_arg is not a ranked tensor

func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

func.func private @decl(tensor<3xf32>) -> tensor<3xf32>

func.func @scalar() -> tensor<f32> {
  %0 = kiln.constant dense<1.0> : tensor<f32>
  return %0 : tensor<f32>
}

func.func @scalar_arg(%x: f32) -> f32 {
  return %x : f32
}
