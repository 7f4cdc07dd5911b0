// Environment knobs with values Kiln cannot use: the compile fails with a
// message that names the variable and what it takes, and exit status 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2 1 2
// RUN: env KILN_CPU_ISA=sse2 KILN_CACHE_DIR=%t/cache %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --device cpu %t/x.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=ISA
// ISA: KILN_CPU_ISA is 'sse2'; expected native, avx2 or avx512
// RUN: env KILN_COMPILE_TIMEOUT=soon KILN_CACHE_DIR=%t/cache %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --device cpu %t/x.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: env KILN_COMPILE_TIMEOUT=-1 KILN_CACHE_DIR=%t/cache %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s --device flex %t/x.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// TIMEOUT: KILN_COMPILE_TIMEOUT is '{{soon|-1}}'; expected a number of seconds from 0 (no limit) to 1000000

// A limit that a compile keeps to changes nothing.
// RUN: env KILN_COMPILE_TIMEOUT=600 KILN_CACHE_DIR=%t/cache tensor-run %s --device cpu %t/x.npy --output-dir %t --print | FileCheck %s --check-prefix=OK
// OK: main_0.npy = [2, 4] (shape [2])
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
