// RUN: tensor-opt %s --kiln-bucket-gradients="first-bucket-bytes=64 bucket-bytes=256 min-buckets=1" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --kiln-bucket-gradients -split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %s --kiln-bucket-gradients="first-bucket-bytes=16 bucket-bytes=256" -split-input-file | FileCheck %s --check-prefix=SHARE

// Gradients are packed in the order they are made, not the order of their
// all-reduces: %c (made first) leads. The first bucket holds at most 64
// bytes (%c: 32, %a: 24; %b would make it 88), the next at most 256. Each
// bucket is one buffer and one all-reduce, placed right after its last
// input is made; every result is a view of it, made just before its first
// reader (here the return), so that the view does not need the reduction
// earlier than the gradient's reader does.
// CHECK-LABEL: func.func @order_and_limits(
// CHECK: %[[C:.*]] = kiln.exp %arg2 : tensor<8xf32>
// CHECK: %[[A:.*]] = kiln.exp %arg0 : tensor<2x3xf32>
// CHECK: %[[AF:.*]] = kiln.reshape %[[A]] [6] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: %[[P0:.*]] = kiln.concat %[[C]], %[[AF]] axis = 0 : (tensor<8xf32>, tensor<6xf32>) -> tensor<14xf32>
// CHECK: %[[R0:.*]] = kiln.all_reduce mean %[[P0]] : tensor<14xf32>
// CHECK: %[[B:.*]] = kiln.exp %arg1 : tensor<4x4xf32>
// CHECK: %[[D:.*]] = kiln.exp %arg3 : tensor<3xf32>
// CHECK: %[[BF:.*]] = kiln.reshape %[[B]] [16] : tensor<4x4xf32> -> tensor<16xf32>
// CHECK: %[[P1:.*]] = kiln.concat %[[BF]], %[[D]] axis = 0 : (tensor<16xf32>, tensor<3xf32>) -> tensor<19xf32>
// CHECK: %[[R1:.*]] = kiln.all_reduce mean %[[P1]] : tensor<19xf32>
// CHECK: %[[RC:.*]] = kiln.slice %[[R0]] [0] [8] [1] : tensor<14xf32> -> tensor<8xf32>
// CHECK: %[[RA0:.*]] = kiln.slice %[[R0]] [8] [14] [1] : tensor<14xf32> -> tensor<6xf32>
// CHECK: %[[RA:.*]] = kiln.reshape %[[RA0]] [2, 3] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NOT: kiln.all_reduce
// CHECK: return %[[RA]], %{{.*}}, %[[RC]], %{{.*}}
// With the default limits (1 MiB, then 25 MiB) all four share one bucket.
// DEFAULT-LABEL: func.func @order_and_limits(
// DEFAULT: kiln.concat %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} axis = 0 : (tensor<8xf32>, tensor<6xf32>, tensor<16xf32>, tensor<3xf32>) -> tensor<33xf32>
// DEFAULT-COUNT-1: kiln.all_reduce mean
// DEFAULT-NOT: kiln.all_reduce
// With min-buckets=4 (the default) a later bucket holds at most a quarter
// of the 132 bytes (33) even though bucket-bytes allows 256: %c (over the
// first bucket's 16) alone, then %a (24; with %b 88), %b (64) and %d (12)
// each alone, where min-buckets=1 packed %b and %d.
// SHARE-LABEL: func.func @order_and_limits(
// SHARE-NOT: kiln.concat
// SHARE-COUNT-4: kiln.all_reduce mean
// SHARE-NOT: kiln.concat
func.func @order_and_limits(%a: tensor<2x3xf32>, %b: tensor<4x4xf32>, %c: tensor<8xf32>, %d: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<4x4xf32>, tensor<8xf32>, tensor<3xf32>) {
  %gc = kiln.exp %c : tensor<8xf32>
  %ga = kiln.exp %a : tensor<2x3xf32>
  %gb = kiln.exp %b : tensor<4x4xf32>
  %gd = kiln.exp %d : tensor<3xf32>
  %ra = kiln.all_reduce mean %ga : tensor<2x3xf32>
  %rb = kiln.all_reduce mean %gb : tensor<4x4xf32>
  %rc = kiln.all_reduce mean %gc : tensor<8xf32>
  %rd = kiln.all_reduce mean %gd : tensor<3xf32>
  return %ra, %rb, %rc, %rd : tensor<2x3xf32>, tensor<4x4xf32>, tensor<8xf32>, tensor<3xf32>
}

// -----

// A bucket holds one dtype and one kind; a tensor over the limit is a
// bucket alone (left as it is), and one made after another's result is read
// cannot join that bucket.
// CHECK-LABEL: func.func @splits(
// CHECK: kiln.all_reduce sum %arg0 : tensor<100xf32>
// CHECK: kiln.all_reduce sum %arg1 : tensor<2xi64>
// CHECK: kiln.all_reduce mean %arg2 : tensor<2xf32>
// CHECK: %[[E:.*]] = kiln.all_reduce sum %arg3 : tensor<2xf32>
// CHECK: %[[U:.*]] = kiln.exp %[[E]]
// CHECK: kiln.all_reduce sum %[[U]] : tensor<2xf32>
// CHECK-NOT: kiln.concat
// DEFAULT-LABEL: func.func @splits(
// DEFAULT-NOT: kiln.concat
// SHARE-LABEL: func.func @splits(
func.func @splits(%big: tensor<100xf32>, %i: tensor<2xi64>, %m: tensor<2xf32>, %e: tensor<2xf32>) -> (tensor<100xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xf32>) {
  %0 = kiln.all_reduce sum %big : tensor<100xf32>
  %1 = kiln.all_reduce sum %i : tensor<2xi64>
  %2 = kiln.all_reduce mean %m : tensor<2xf32>
  %3 = kiln.all_reduce sum %e : tensor<2xf32>
  %4 = kiln.exp %3 : tensor<2xf32>
  %5 = kiln.all_reduce sum %4 : tensor<2xf32>
  return %0, %1, %2, %5 : tensor<100xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xf32>
}
