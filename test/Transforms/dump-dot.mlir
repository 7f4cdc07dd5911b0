// After fusion: one node per kernel call, labelled with its kind and the
// ops it fuses; layout ops and constants as their own nodes; an edge per
// value, labelled with its type. The graph goes to stderr, the IR to stdout
// unchanged.
// RUN: tensor-opt %s --kiln-decompose --canonicalize --kiln-fuse --kiln-dump-dot -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: tensor-opt %s --kiln-decompose --canonicalize --kiln-fuse --kiln-dump-dot -split-input-file 2>/dev/null | FileCheck %s --check-prefix=IR
// Before fusion, every kiln op is a node.
// RUN: tensor-opt %s --kiln-dump-dot -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPS
// output=- writes to stdout, before the IR; output=FILE to a file.
// RUN: tensor-opt %s --kiln-dump-dot=output=- -split-input-file 2>/dev/null | FileCheck %s --check-prefix=STDOUT
// RUN: rm -f %t.dot && tensor-opt %s "--kiln-dump-dot=output=%t.dot" -o /dev/null 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=FILE < %t.dot
// RUN: not tensor-opt %s --kiln-dump-dot=output=%t.missing/dir/x.dot -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE

// FUSED-LABEL: digraph kiln {
// FUSED-NEXT: subgraph "cluster_main" {
// FUSED-NEXT: label = "@main";
// FUSED-NEXT: [[X:n[0-9]+]] [shape=ellipse, label="%arg0"];
// FUSED-NEXT: [[W:n[0-9]+]] [shape=ellipse, label="%arg1"];
// FUSED-NEXT: [[B:n[0-9]+]] [shape=ellipse, label="%arg2"];
// FUSED-NEXT: [[S:n[0-9]+]] [shape=box, style=filled, label="reduction\nreduce_max detach sub exp sum recip mul"];
// FUSED-NEXT: [[X]] -> [[S]] [label="tensor<4x16xf32>"];
// FUSED-NEXT: [[T:n[0-9]+]] [shape=box, style=dashed, label="permute"];
// FUSED-NEXT: [[W]] -> [[T]] [label="tensor<8x16xf32>"];
// FUSED-NEXT: [[M:n[0-9]+]] [shape=box, style=filled, label="matmul\nmatmul add gelu"];
// FUSED-NEXT: [[S]] -> [[M]] [label="tensor<4x16xf32>"];
// FUSED-NEXT: [[T]] -> [[M]] [label="tensor<16x8xf32>"];
// FUSED-NEXT: [[B]] -> [[M]] [label="tensor<8xf32>"];
// FUSED-NEXT: [[R0:n[0-9]+]] [shape=ellipse, label="result 0"];
// FUSED-NEXT: [[S]] -> [[R0]] [label="tensor<4x16xf32>"];
// FUSED-NEXT: [[R1:n[0-9]+]] [shape=ellipse, label="result 1"];
// FUSED-NEXT: [[M]] -> [[R1]] [label="tensor<4x8xf32>"];
// FUSED-NEXT: }
// FUSED-NEXT: }

// The pass changes nothing: the fused IR is printed as usual.
// IR-LABEL: func.func private @main_kernel0_reduction
// IR-LABEL: func.func @main
// IR: call @main_kernel0_reduction
// IR: kiln.permute
// IR: call @main_kernel1_matmul
// IR-NOT: digraph

// OPS-LABEL: digraph kiln {
// OPS-NEXT: subgraph "cluster_main" {
// OPS: [[X:n[0-9]+]] [shape=ellipse, label="%arg0"];
// OPS: [[SM:n[0-9]+]] [shape=box, label="softmax"];
// OPS-NEXT: [[X]] -> [[SM]] [label="tensor<4x16xf32>"];
// OPS-NEXT: [[T:n[0-9]+]] [shape=box, style=dashed, label="permute"];
// OPS: [[MM:n[0-9]+]] [shape=box, label="matmul"];
// OPS-NEXT: [[SM]] -> [[MM]] [label="tensor<4x16xf32>"];
// OPS-NEXT: [[T]] -> [[MM]] [label="tensor<16x8xf32>"];
// OPS-NEXT: [[ADD:n[0-9]+]] [shape=box, label="add"];
// OPS: [[G:n[0-9]+]] [shape=box, label="gelu"];
// OPS-NEXT: [[ADD]] -> [[G]] [label="tensor<4x8xf32>"];
// OPS: label="result 1"];
// OPS-NEXT: [[G]] -> {{n[0-9]+}} [label="tensor<4x8xf32>"];

// STDOUT: digraph kiln {
// STDOUT: label="softmax"
// STDOUT: func.func @main

// BADFILE: error: kiln-dump-dot: {{.*}}

// Without -split-input-file the file is one module: one digraph, a cluster
// per function.
// FILE: digraph kiln {
// FILE-NEXT: subgraph "cluster_main" {
// FILE: label="softmax"
// FILE: subgraph "cluster_f" {
// FILE: subgraph "cluster_g" {
// FILE-NOT: digraph

func.func @main(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) {
  %0 = kiln.softmax %x axis = 1 : tensor<4x16xf32>
  %t = kiln.permute %w [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %1 = kiln.matmul %0, %t : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %2 = kiln.add %1, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = kiln.gelu %2 approximate = tanh : tensor<4x8xf32>
  return %0, %3 : tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// Two functions are two clusters of one digraph per module; constants are
// dotted nodes, except a splat that fusion copied into its kernel and left
// unused; a value used twice is two edges.
// FUSED-LABEL: digraph kiln {
// FUSED-NEXT: subgraph "cluster_f" {
// FUSED-NEXT: label = "@f";
// FUSED-NEXT: [[F:n[0-9]+]] [shape=ellipse, label="%arg0"];
// FUSED-NEXT: [[FE:n[0-9]+]] [shape=box, style=filled, label="elementwise\nmul exp"];
// FUSED-NEXT: [[F]] -> [[FE]] [label="tensor<8xf32>"];
// FUSED: subgraph "cluster_g" {
// FUSED-NEXT: label = "@g";
// FUSED-NEXT: [[A:n[0-9]+]] [shape=ellipse, label="%arg0"];
// FUSED-NEXT: [[K:n[0-9]+]] [shape=box, style=dotted, label="constant"];
// FUSED-NEXT: [[E:n[0-9]+]] [shape=box, style=filled, label="elementwise\nadd"];
// FUSED-NEXT: [[A]] -> [[E]] [label="tensor<8xi32>"];
// FUSED-NEXT: [[K]] -> [[E]] [label="tensor<8xi32>"];
// FUSED-NEXT: [[R0:n[0-9]+]] [shape=ellipse, label="result 0"];
// FUSED-NEXT: [[E]] -> [[R0]] [label="tensor<8xi32>"];
// FUSED-NEXT: [[R1:n[0-9]+]] [shape=ellipse, label="result 1"];
// FUSED-NEXT: [[K]] -> [[R1]] [label="tensor<8xi32>"];
// FUSED-NEXT: [[R2:n[0-9]+]] [shape=ellipse, label="result 2"];
// FUSED-NEXT: [[E]] -> [[R2]] [label="tensor<8xi32>"];
// FUSED-NEXT: }
// FUSED-NEXT: }

// OPS-LABEL: digraph kiln {
// OPS: subgraph "cluster_g" {
// OPS: [[A:n[0-9]+]] [shape=ellipse, label="%arg0"];
// OPS-NEXT: [[K:n[0-9]+]] [shape=box, style=dotted, label="constant"];
// OPS-NEXT: [[E:n[0-9]+]] [shape=box, label="add"];
// OPS-NEXT: [[A]] -> [[E]] [label="tensor<8xi32>"];
// OPS-NEXT: [[K]] -> [[E]] [label="tensor<8xi32>"];
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %c = kiln.constant dense<2.0> : tensor<8xf32>
  %0 = kiln.mul %a, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = kiln.exp %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

func.func @g(%a: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %k = kiln.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>
  %0 = kiln.add %a, %k : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %0, %k, %0 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}
