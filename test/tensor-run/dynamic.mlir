// A function with dynamic dimensions runs at the inputs' shapes: its
// result types are inferred again from them, on Flex and on Cpu.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x2.npy f32 2x3 1 2 3 4 5 6
// RUN: %python %S/Inputs/npy.py write %t/x4.npy f32 4x3
// RUN: %python %S/Inputs/npy.py write %t/w.npy f32 3x2 1 0 0 1 1 1
// RUN: %python %S/Inputs/npy.py write %t/y3.npy f32 3x3
// RUN: tensor-run %s --device flex %t/x2.npy %t/w.npy --output-dir %t/flex --print | FileCheck %s --check-prefix=TWO
// RUN: tensor-run %s --device cpu %t/x2.npy %t/w.npy --output-dir %t/cpu --print | FileCheck %s --check-prefix=TWO
// RUN: tensor-run %s --device cpu %t/x4.npy %t/w.npy --output-dir %t/cpu --print | FileCheck %s --check-prefix=FOUR
// RUN: %python %S/Inputs/npy.py check %t/cpu/main_1.npy | FileCheck %s --check-prefix=FILE
// TWO: main_0.npy = [4, 5, 10, 11] (shape [2, 2])
// TWO-NEXT: main_1.npy = [6, 15] (shape [2])
// FOUR: main_0.npy = [2, 3, 8, 9, 14, 15, 20, 21] (shape [4, 2])
// FOUR-NEXT: main_1.npy = [3, 12, 21, 30] (shape [4])
// FILE: f32 (4,) [3, 12, 21, 30]

// Two dynamic dimensions that must agree, and do not.
// RUN: %python %S/Inputs/npy.py write %t/y2.npy f32 2x3
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --function pair %t/x2.npy %t/y3.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: tensor-run %s --function pair %t/x2.npy %t/y2.npy --output-dir %t --print | FileCheck %s --check-prefix=PAIR
// MISMATCH: dynamic.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'kiln.add' op cannot broadcast shapes [2, 3] and [3, 3]
// MISMATCH: tensor-run: error: the inputs' shapes do not fit kiln.add (see the diagnostic above)
// PAIR: pair_0.npy = [1, 3, 5, 7, 9, 11] (shape [2, 3])
func.func @main(%x: tensor<?x3xf32>, %w: tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %0 = kiln.matmul %x, %w : (tensor<?x3xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.sum %x [1] : tensor<?x3xf32> -> tensor<?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?xf32>
}

func.func @pair(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = kiln.add %x, %y : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
