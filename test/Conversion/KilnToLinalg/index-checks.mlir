// RUN: tensor-opt %s --convert-kiln-to-linalg="index-checks=1" | FileCheck %s
// RUN: tensor-opt %s --convert-kiln-to-linalg | FileCheck %s --check-prefix=OFF

// With index checks, an index outside [0, size) calls kiln_bad_index(site,
// index, size) (site 0: gather) before the clamped read; without, no call.
// CHECK: func.func private @kiln_bad_index(i64, i64, i64)
// CHECK-LABEL: func.func @gather(
// CHECK: scf.if
// CHECK: func.call @kiln_bad_index(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64) -> ()
// CHECK: tensor.extract
// OFF-NOT: kiln_bad_index
func.func @gather(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
