// KILN_LOG=profile prints, at exit, the time spent in each Cpu kernel: its
// kind, the ops it fuses and its output shape, summed over every launch.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 64x32
// RUN: %python %S/Inputs/npy.py write %t/w.npy f32 32x16
// RUN: env KILN_LOG=profile KILN_CACHE_DIR=%t/cache tensor-run %s --device cpu %t/x.npy %t/w.npy --repeat 3 --output-dir %t 2>&1 | FileCheck %s
// RUN: env KILN_CACHE_DIR=%t/cache tensor-run %s --device cpu %t/x.npy %t/w.npy --output-dir %t 2>&1 | count 0

// CHECK: kiln: profile cpu, {{[0-9.]+}} ms in 2 kernels
// CHECK-NEXT: total_ms calls share kernel
// CHECK-DAG: {{[0-9.]+}} 4 {{[0-9.]+}}% matmul(matmul add) -> 64x16
// CHECK-DAG: {{[0-9.]+}} 4 {{[0-9.]+}}% reduction(exp sum) -> 64
func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> (tensor<64x16xf32>, tensor<64xf32>) {
  %0 = kiln.matmul %x, %w : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %1 = kiln.add %0, %0 : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %2 = kiln.exp %x : tensor<64x32xf32>
  %3 = kiln.sum %2 [1] : tensor<64x32xf32> -> tensor<64xf32>
  return %1, %3 : tensor<64x16xf32>, tensor<64xf32>
}
