// RUN: tensor-opt %s --kiln-autodiff --kiln-decompose --canonicalize --cse \
// RUN:   --kiln-bucket-gradients="first-bucket-bytes=1024 bucket-bytes=4096" \
// RUN:   --kiln-split-all-reduce | FileCheck %s
// RUN: tensor-opt %s --kiln-graph-pipeline="target=cpu strategy=disabled" \
// RUN:   | FileCheck %s --check-prefix=CPU

// A data-parallel training step of a two-layer MLP: gradients averaged over
// the ranks, then an SGD update. Backward makes the second layer's weight
// gradient (1 KiB, the first bucket) first: its reduction starts at once,
// and runs while backward computes the first layer's gradient (4 KiB, the
// second bucket). Each wait comes just before its update.
// CHECK-LABEL: func.func @main(
// CHECK: %[[G2:.*]] = kiln.matmul {{.*}} -> tensor<16x16xf32>
// CHECK-NEXT: %[[T2:.*]] = kiln.all_reduce_start mean %[[G2]] : tensor<16x16xf32>
// CHECK: kiln.sub %{{.*}}, %{{.*}} {kiln.backward}
// CHECK: %[[G1:.*]] = kiln.matmul {{.*}} -> tensor<64x16xf32>
// CHECK-NEXT: %[[T1:.*]] = kiln.all_reduce_start mean %[[G1]] : tensor<64x16xf32>
// CHECK: %[[R1:.*]] = kiln.all_reduce_wait %[[T1]] : tensor<64x16xf32>
// CHECK: kiln.sub %arg1, %{{.*}}
// CHECK: %[[R2:.*]] = kiln.all_reduce_wait %[[T2]] : tensor<16x16xf32>
// CHECK: kiln.sub %arg2, %{{.*}}

// The graph pipeline, with the default buckets (1 MiB first): both
// gradients in one bucket, a kernel copies them into one buffer, and the
// collectives stay in main, outside every kernel; the updates read views
// of the reduced buffer.
// CPU-LABEL: func.func @main(
// CPU: %[[B:.*]] = call @main_kernel{{[0-9]+}}_generic(%{{.*}}, %{{.*}}) : (tensor<256xf32>, tensor<1024xf32>) -> tensor<1280xf32>
// CPU-NEXT: %[[T:.*]] = kiln.all_reduce_start mean %[[B]] : tensor<1280xf32>
// CPU-NEXT: %[[R:.*]] = kiln.all_reduce_wait %[[T]] : tensor<1280xf32>
// CPU-NEXT: kiln.slice %[[R]] [256] [1280] [1]
// CPU-NEXT: kiln.reshape
// CPU-NEXT: call @main_kernel{{[0-9]+}}_elementwise
// CPU-NEXT: kiln.slice %[[R]] [0] [256] [1]
// CPU-NEXT: kiln.reshape
// CPU-NEXT: call @main_kernel{{[0-9]+}}_elementwise
// CPU-NOT: kiln.all_reduce
func.func @main(%x: tensor<32x64xf32>, %w1: tensor<64x16xf32>, %w2: tensor<16x16xf32>) -> (tensor<f32>, tensor<64x16xf32>, tensor<16x16xf32>) {
  %h = kiln.matmul %x, %w1 : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %a = kiln.tanh %h : tensor<32x16xf32>
  %y = kiln.matmul %a, %w2 : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
  %s = kiln.mul %y, %y : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %l = kiln.mean %s [0, 1] : tensor<32x16xf32> -> tensor<f32>
  %g1, %g2 = kiln.grad %l wrt %w1, %w2 : tensor<f32>, (tensor<64x16xf32>, tensor<16x16xf32>)
  %r1 = kiln.all_reduce mean %g1 : tensor<64x16xf32>
  %r2 = kiln.all_reduce mean %g2 : tensor<16x16xf32>
  %lr = kiln.constant dense<0.1> : tensor<f32>
  %u1 = kiln.mul %r1, %lr : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
  %n1 = kiln.sub %w1, %u1 : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %u2 = kiln.mul %r2, %lr : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %n2 = kiln.sub %w2, %u2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %l, %n1, %n2 : tensor<f32>, tensor<64x16xf32>, tensor<16x16xf32>
}
