// RUN: tensor-opt %s --kiln-approximate-math | FileCheck %s

// f32 exp, log and tanh become polynomials (no math op of theirs is left);
// sin, cos and atan2 keep their library calls, and f64 is left alone.
// CHECK-LABEL: func.func @f32(
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK: math.fma
// CHECK-DAG: math.sin
// CHECK-DAG: math.cos
// CHECK-DAG: math.atan2
// CHECK: return
func.func @f32(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %e = math.exp %x : vector<16xf32>
  %l = math.log %x : vector<16xf32>
  %t = math.tanh %x : vector<16xf32>
  %s = math.sin %x : vector<16xf32>
  %c = math.cos %x : vector<16xf32>
  %a = math.atan2 %x, %x : vector<16xf32>
  return %e, %l, %t, %s, %c, %a : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func.func @f64(
// CHECK: math.exp %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}
