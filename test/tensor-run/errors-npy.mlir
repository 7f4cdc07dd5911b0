// Every way an input file can be wrong: the error names the file and the
// problem, and the exit status is 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/good.npy f32 2x3

// Wrong shape, wrong rank, wrong dtype.
// RUN: %python %S/Inputs/npy.py write %t/shape.npy f32 3x2
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/shape.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: tensor-run: error: {{.*}}shape.npy: has shape f32[3, 2], but %arg0 of @main is f32[2, 3]
// RUN: %python %S/Inputs/npy.py write %t/rank.npy f32 6
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/rank.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: tensor-run: error: {{.*}}rank.npy: has shape f32[6], but %arg0 of @main is f32[2, 3]
// RUN: %python %S/Inputs/npy.py write %t/dtype.npy f64 2x3
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/dtype.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: tensor-run: error: {{.*}}dtype.npy: holds f64 values, but %arg0 of @main is f32[2, 3]

// A missing file.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/missing.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tensor-run: error: {{.*}}missing.npy: cannot open the file (No such file or directory)

// Not a .npy file at all.
// RUN: %python %S/Inputs/npy.py raw %t/magic.npy "PK not numpy at all"
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/magic.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: tensor-run: error: {{.*}}magic.npy: not a valid .npy file: it does not start with the .npy magic
// RUN: %python %S/Inputs/npy.py raw %t/empty.npy ""
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/empty.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: tensor-run: error: {{.*}}empty.npy: not a valid .npy file: it does not start with the .npy magic

// Cut inside the header length, and inside the header.
// RUN: cp %t/good.npy %t/cutlen.npy
// RUN: %python %S/Inputs/npy.py truncate %t/cutlen.npy 9
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/cutlen.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=CUTLEN
// CUTLEN: tensor-run: error: {{.*}}cutlen.npy: not a valid .npy file: the header length is truncated
// RUN: cp %t/good.npy %t/cuthead.npy
// RUN: %python %S/Inputs/npy.py truncate %t/cuthead.npy 40
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/cuthead.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=CUTHEAD
// CUTHEAD: tensor-run: error: {{.*}}cuthead.npy: not a valid .npy file: the header is truncated

// A version this reader does not know.
// RUN: %python %S/Inputs/npy.py write %t/version.npy f32 2x3 --version 4
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/version.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: tensor-run: error: {{.*}}version.npy: not a valid .npy file: version 4 is not supported

// Dtypes Kiln has no use for: complex, big-endian, unsigned 32-bit.
// RUN: %python %S/Inputs/npy.py write %t/complex.npy f32 2x3 --descr '<c8'
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/complex.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=COMPLEX
// COMPLEX: tensor-run: error: {{.*}}complex.npy: not a valid .npy file: dtype '<c8' is not one Kiln reads (<f8 <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1)
// RUN: %python %S/Inputs/npy.py write %t/big.npy f32 2x3 --descr '>f4'
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/big.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: tensor-run: error: {{.*}}big.npy: not a valid .npy file: dtype '>f4' is not one Kiln reads
// RUN: %python %S/Inputs/npy.py write %t/u32.npy f32 2x3 --descr '<u4'
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/u32.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=U32
// U32: tensor-run: error: {{.*}}u32.npy: not a valid .npy file: dtype '<u4' is not one Kiln reads

// Fortran order.
// RUN: %python %S/Inputs/npy.py write %t/fortran.npy f32 2x3 --fortran
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/fortran.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: tensor-run: error: {{.*}}fortran.npy: not a valid .npy file: Fortran-ordered arrays are not supported; save it in C order

// Fewer elements than the header promises: one byte short, and a header
// that promises a terabyte (an error, not an attempt to allocate it).
// RUN: %python %S/Inputs/npy.py write %t/short.npy f32 2x3 --drop 1
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/short.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: tensor-run: error: {{.*}}short.npy: not a valid .npy file: it holds fewer than the 6 elements its header promises
// RUN: %python %S/Inputs/npy.py write %t/tera.npy f32 2x3 --header-shape 1024x1024x1024x256
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/tera.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=TERA
// TERA: tensor-run: error: {{.*}}tera.npy: not a valid .npy file: it holds fewer than the 274877906944 elements its header promises

// Dims whose product overflows 64 bits.
// RUN: %python %S/Inputs/npy.py write %t/huge.npy f32 2x3 --header-shape 1099511627776x1099511627776x16
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/huge.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: tensor-run: error: {{.*}}huge.npy: not a valid .npy file: the shape (1099511627776, 1099511627776, 16) is too large

// The output directory cannot be made: a file is in the way.
// RUN: %python %kiln_src_root/utils/expect-exit.py 1 tensor-run %s %t/good.npy --output-dir %t/good.npy/out 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: tensor-run: error: {{.*}}good.npy/out: cannot create the output directory ({{.*}})

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.exp %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
