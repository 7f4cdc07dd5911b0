// --repeat N runs once to warm up, then N timed runs, and reports their
// median, min and max; the outputs are those of the last run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 64x64
// RUN: tensor-run %s --device cpu %t/x.npy --repeat 5 --output-dir %t | FileCheck %s --check-prefix=CPU
// RUN: tensor-run %s --device flex %t/x.npy --repeat 1 --output-dir %t --print | FileCheck %s --check-prefix=FLEX
// RUN: tensor-run %s --device cpu %t/x.npy --output-dir %t | count 0

// CPU: {{^}}median {{[0-9]+\.[0-9][0-9][0-9][0-9]}} ms over 5 runs (min {{[0-9]+\.[0-9][0-9][0-9][0-9]}}, max {{[0-9]+\.[0-9][0-9][0-9][0-9]}}) on cpu{{$}}
// CPU-NOT: {{.}}
// FLEX: {{^}}median {{[0-9]+\.[0-9][0-9][0-9][0-9]}} ms over 1 runs (min {{[0-9]+\.[0-9][0-9][0-9][0-9]}}, max {{[0-9]+\.[0-9][0-9][0-9][0-9]}}) on flex{{$}}
// FLEX-NEXT: main_0.npy = [0, 0.841471, 0.909297, {{.*}}] (shape [64, 64])
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = kiln.sin %x : tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
