// kiln.unfold with the images along the columns, on Flex and Cpu against
// values by hand: the windows of test/tensor-run/unfold.mlir (a 2 x 2
// window that steps by 2 over a 3 x 3 input padded by 1) over two images,
// the second the first plus 10. Row (i, j) holds image 0's 4 outputs, then
// image 1's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2x1x3x3 1 2 3 4 5 6 7 8 9 11 12 13 14 15 16 17 18 19
// RUN: tensor-run %s --device flex %t/x.npy --output-dir %t/flex --print | FileCheck %s
// RUN: env KILN_CACHE_DIR=%t/cache tensor-run %s --device cpu %t/x.npy --output-dir %t/cpu --print | FileCheck %s
// CHECK: main_0.npy = [0, 0, 0, 5, 0, 0, 0, 15, 0, 0, 4, 6, 0, 0, 14, 16, 0, 2, 0, 8, 0, 12, 0, 18, 1, 3, 7, 9, 11, 13, 17, 19] (shape [4, 8])
func.func @main(%x: tensor<2x1x3x3xf32>) -> tensor<4x8xf32> {
  %0 = kiln.unfold %x kernel [2, 2] stride [2, 2] padding [1, 1] dilation [1, 1] images_in_columns : tensor<2x1x3x3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
