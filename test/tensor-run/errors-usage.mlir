// Command-line mistakes: a message, the usage line, and exit status 2,
// before any file is read.
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: tensor-run: no .mlir or .onnx file given
// NOFILE-NEXT: usage: tensor-run FILE.mlir|MODEL.onnx [--function NAME] [--device flex|cpu|cuda] [--input NAME=FILE.npy]... [FILE.npy]... [--output-dir DIR] [--repeat N] [--print]

// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --bogus 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: tensor-run: unknown option --bogus
// OPTION-NEXT: usage: tensor-run
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --print=yes 2>&1 | FileCheck %s --check-prefix=PRINT
// PRINT: tensor-run: unknown option --print=yes

// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --device tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: tensor-run: unknown device 'tpu' (flex, cpu or cuda)
// DEVICE-NEXT: usage: tensor-run

// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --input x.npy 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: tensor-run: --input needs NAME=FILE.npy, got 'x.npy'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --input =x.npy 2>&1 | FileCheck %s --check-prefix=INPUTEQ
// INPUTEQ: tensor-run: --input needs NAME=FILE.npy, got '=x.npy'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --input 2>&1 | FileCheck %s --check-prefix=INPUTNONE
// INPUTNONE: tensor-run: --input needs a value

// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT0
// REPEAT0: tensor-run: --repeat needs a count from 1 to 1000000, got '0'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --repeat -3 2>&1 | FileCheck %s --check-prefix=REPEATNEG
// REPEATNEG: tensor-run: --repeat needs a count from 1 to 1000000, got '-3'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --repeat=ten 2>&1 | FileCheck %s --check-prefix=REPEATWORD
// REPEATWORD: tensor-run: --repeat needs a count from 1 to 1000000, got 'ten'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --repeat 3x 2>&1 | FileCheck %s --check-prefix=REPEATSUFFIX
// REPEATSUFFIX: tensor-run: --repeat needs a count from 1 to 1000000, got '3x'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --repeat 99999999999999999999 2>&1 | FileCheck %s --check-prefix=REPEATBIG
// REPEATBIG: tensor-run: --repeat needs a count from 1 to 1000000, got '99999999999999999999'
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --repeat " 5" 2>&1 | FileCheck %s --check-prefix=REPEATSPACE
// REPEATSPACE: tensor-run: --repeat needs a count from 1 to 1000000, got ' 5'

// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --function 2>&1 | FileCheck %s --check-prefix=FUNCTION
// FUNCTION: tensor-run: --function needs a value
// RUN: %python %kiln_src_root/utils/expect-exit.py 2 tensor-run %s --output-dir 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: tensor-run: --output-dir needs a value

// --help is not a mistake: the usage and the options on stdout, status 0.
// RUN: tensor-run --help | FileCheck %s --check-prefix=HELP
// HELP: usage: tensor-run FILE.mlir
// HELP: --input NAME=FILE.npy
// HELP: Exit status: 0 on success, 1 for an error in the files or the run, 2 for a

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
