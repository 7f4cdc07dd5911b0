// RUN: tensor-opt %s --kiln-expand-bf16 | FileCheck %s

// bf16 conversions become integer arithmetic on the bits, so that no call
// of compiler-rt's __truncsfbf2 is left for LLVM to emit.
// CHECK-LABEL: func.func @round_trip(
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: return
func.func @round_trip(%x: f32) -> (bf16, f32) {
  %b = arith.truncf %x : f32 to bf16
  %f = arith.extf %b : bf16 to f32
  return %b, %f : bf16, f32
}
