// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=balanced fuse=true transposed-operands=true matmul-prologues=true matmul-workspace=true report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=balanced report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=budget=200000 fuse=true transposed-operands=true matmul-prologues=true matmul-workspace=true" 2>/dev/null | FileCheck %s --check-prefix=FITS
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=budget=200000 fuse=true transposed-operands=true matmul-prologues=true matmul-workspace=true report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FITSREP
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=budget=200000" 2>/dev/null | FileCheck %s --check-prefix=OVER
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=budget=200000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERREP
// RUN: not tensor-opt %s --kiln-autodiff --kiln-checkpoint="strategy=balanced fuse=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

// Budget's model of a training step's memory: an MLP step whose SGD update
// replaces the weights, as nn and optim run it. The kernels the backend
// runs decide what has a buffer (with fuse=true and the rest, the kernels
// of --kiln-fuse with the Cpu backend's options; without, every op alone,
// as on Flex), and weights the caller gives up (kiln.donated) die at their
// update, whose result takes their buffer; kept ones (@kept) live on
// beside the new weights.
//
// CPU: remark: --kiln-checkpoint: balanced plans a peak of 182792 bytes
// CPU: remark: --kiln-checkpoint: balanced plans a peak of 309768 bytes
// NONE: remark: --kiln-checkpoint: balanced plans a peak of 289288 bytes
// NONE: remark: --kiln-checkpoint: balanced plans a peak of 289288 bytes
//
// A budget of 200000 bytes fits the fused plan as Balanced makes it:
// Budget recomputes nothing more. Op by op nothing brings the peak under
// it (the weights, their gradients and the new weights are most of it):
// Budget warns and keeps Balanced's plan rather than recomputing matmuls
// that would not help.
// FITS-LABEL: func.func @donated(
// FITS-NOT: kiln.matmul {{.*}}kiln.recomputed
// FITS: return
// FITSREP-NOT: warning
// FITSREP: checkpoint-memory.mlir:[[@LINE+6]]:1: remark: --kiln-checkpoint: budget=200000 plans a peak of 182792 bytes
// OVER-LABEL: func.func @donated(
// OVER-NOT: kiln.matmul {{.*}}kiln.recomputed
// OVER: return
// OVERREP: checkpoint-memory.mlir:[[@LINE+2]]:1: warning: --kiln-checkpoint: peak of 289288 bytes stays over the budget of 200000
// BAD: for the --fuse option: 'sometimes' is invalid value for boolean argument
func.func @donated(%x: tensor<16x64xf32>, %w1: tensor<64x256xf32> {kiln.donated}, %b1: tensor<256xf32> {kiln.donated}, %w2: tensor<256x64xf32> {kiln.donated}, %b2: tensor<64xf32> {kiln.donated}, %t: tensor<16x64xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>) {
  %0 = kiln.matmul %x, %w1 : (tensor<16x64xf32>, tensor<64x256xf32>) -> tensor<16x256xf32>
  %1 = kiln.add %0, %b1 : (tensor<16x256xf32>, tensor<256xf32>) -> tensor<16x256xf32>
  %2 = kiln.gelu %1 approximate = tanh : tensor<16x256xf32>
  %3 = kiln.matmul %2, %w2 : (tensor<16x256xf32>, tensor<256x64xf32>) -> tensor<16x64xf32>
  %4 = kiln.add %3, %b2 : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %5 = kiln.sub %4, %t : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %6 = kiln.mul %5, %5 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %7 = kiln.mean %6 [0, 1] : tensor<16x64xf32> -> tensor<f32>
  %g:4 = kiln.grad %7 wrt %w1, %b1, %w2, %b2 : tensor<f32>, (tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>)
  %9 = kiln.mul %g#0, %lr : (tensor<64x256xf32>, tensor<f32>) -> tensor<64x256xf32>
  %10 = kiln.sub %w1, %9 : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %11 = kiln.mul %g#1, %lr : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  %12 = kiln.sub %b1, %11 : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %13 = kiln.mul %g#2, %lr : (tensor<256x64xf32>, tensor<f32>) -> tensor<256x64xf32>
  %14 = kiln.sub %w2, %13 : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32>
  %15 = kiln.mul %g#3, %lr : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %16 = kiln.sub %b2, %15 : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %7, %10, %12, %14, %16 : tensor<f32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>
}

// -----

func.func @kept(%x: tensor<16x64xf32>, %w1: tensor<64x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x64xf32>, %b2: tensor<64xf32>, %t: tensor<16x64xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>) {
  %0 = kiln.matmul %x, %w1 : (tensor<16x64xf32>, tensor<64x256xf32>) -> tensor<16x256xf32>
  %1 = kiln.add %0, %b1 : (tensor<16x256xf32>, tensor<256xf32>) -> tensor<16x256xf32>
  %2 = kiln.gelu %1 approximate = tanh : tensor<16x256xf32>
  %3 = kiln.matmul %2, %w2 : (tensor<16x256xf32>, tensor<256x64xf32>) -> tensor<16x64xf32>
  %4 = kiln.add %3, %b2 : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %5 = kiln.sub %4, %t : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %6 = kiln.mul %5, %5 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %7 = kiln.mean %6 [0, 1] : tensor<16x64xf32> -> tensor<f32>
  %g:4 = kiln.grad %7 wrt %w1, %b1, %w2, %b2 : tensor<f32>, (tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>)
  %9 = kiln.mul %g#0, %lr : (tensor<64x256xf32>, tensor<f32>) -> tensor<64x256xf32>
  %10 = kiln.sub %w1, %9 : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %11 = kiln.mul %g#1, %lr : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  %12 = kiln.sub %b1, %11 : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %13 = kiln.mul %g#2, %lr : (tensor<256x64xf32>, tensor<f32>) -> tensor<256x64xf32>
  %14 = kiln.sub %w2, %13 : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32>
  %15 = kiln.mul %g#3, %lr : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %16 = kiln.sub %b2, %15 : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %7, %10, %12, %14, %16 : tensor<f32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64xf32>
}
