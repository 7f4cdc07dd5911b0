// kiln.unfold on Flex and Cpu against values by hand: a 2 x 2 window that
// steps by 2 over a 3 x 3 input padded by 1. Row (i, j) of the columns
// holds, for the 4 outputs, input[2 * oh + i - 1, 2 * ow + j - 1], zero in
// the padding.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 1x1x3x3 1 2 3 4 5 6 7 8 9
// RUN: tensor-run %s --device flex %t/x.npy --output-dir %t/flex --print | FileCheck %s
// RUN: env KILN_CACHE_DIR=%t/cache tensor-run %s --device cpu %t/x.npy --output-dir %t/cpu --print | FileCheck %s
// CHECK: main_0.npy = [0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9] (shape [1, 4, 4])
func.func @main(%x: tensor<1x1x3x3xf32>) -> tensor<1x4x4xf32> {
  %0 = kiln.unfold %x kernel [2, 2] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<1x1x3x3xf32> -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}
