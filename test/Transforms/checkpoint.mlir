// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint=strategy=disabled | FileCheck %s --check-prefix=DIS
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint=strategy=balanced | FileCheck %s --check-prefix=BAL
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint=strategy=budget=300000 2>&1 | FileCheck %s --check-prefix=BUD
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=balanced report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPBAL
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint="strategy=budget=300000 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPBUD
// RUN: tensor-opt %s --split-input-file --kiln-autodiff --kiln-checkpoint=strategy=budget=1 2>&1 | FileCheck %s --check-prefix=TIGHT
// RUN: not tensor-opt %s --kiln-autodiff --kiln-checkpoint=strategy=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tensor-opt %s --kiln-autodiff --kiln-checkpoint=strategy=budget=-5 2>&1 | FileCheck %s --check-prefix=BADBUDGET

// Which forward values backward saves (kiln.saved on the producer) and which
// it recomputes (clones tagged kiln.recomputed next to their first backward
// reader), for each strategy.

// BAD: --kiln-checkpoint: strategy must be disabled, balanced or budget=BYTES, got 'sometimes'
// BADBUDGET: --kiln-checkpoint: budget must be a positive byte count, got '-5'

// Three residual blocks x + tanh(matmul(layer_norm(x), w)).
//
// Disabled saves what backward reads: the tanh outputs and the layer
// norms' intermediates, recomputing nothing.
// DIS-LABEL: func.func @residual(
// DIS: kiln.tanh %{{.*}} {kiln.saved}
// DIS: kiln.rsqrt %{{.*}} {kiln.saved}
// DIS: kiln.tanh %{{.*}} {kiln.saved}
// DIS: kiln.tanh %{{.*}} {kiln.saved}
// DIS-NOT: kiln.recomputed
//
// Balanced saves the matmul outputs and, in each block, the centered input
// x - mean (read twice in the forward pass: a branch point); the tanh and
// the normalization are recomputed from those in the backward pass. No
// tanh is saved, and no chain reaches back into the previous block.
// BAL-LABEL: func.func @residual(
// BAL-NOT: kiln.tanh %{{.*}} {kiln.saved}
// BAL: %[[C0:.*]] = kiln.sub %arg0, %{{.*}} {kiln.saved}
// BAL: %[[H0:.*]] = kiln.matmul %{{.*}}, %arg1 {kiln.saved}
// BAL: kiln.matmul %{{.*}}, %arg2 {kiln.saved}
// BAL: kiln.matmul %{{.*}}, %arg3 {kiln.saved}
// BAL: kiln.tanh %{{.*}} {kiln.recomputed}
// BAL: kiln.tanh %[[H0]] {kiln.recomputed}
// BAL: kiln.rsqrt %{{.*}} {kiln.recomputed}
// BAL-NEXT: kiln.mul %[[C0]], %{{.*}} {kiln.recomputed}
// BAL-NOT: kiln.add %{{.*}} {kiln.recomputed}
func.func @residual(%x0: tensor<64x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %n0 = kiln.layer_norm %x0 eps 1.0e-05 : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %h0 = kiln.matmul %n0, %w0 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %a0 = kiln.tanh %h0 : tensor<64x16xf32>
  %x1 = kiln.add %x0, %a0 : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %n1 = kiln.layer_norm %x1 eps 1.0e-05 : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %h1 = kiln.matmul %n1, %w1 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %a1 = kiln.tanh %h1 : tensor<64x16xf32>
  %x2 = kiln.add %x1, %a1 : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %n2 = kiln.layer_norm %x2 eps 1.0e-05 : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %h2 = kiln.matmul %n2, %w2 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %a2 = kiln.tanh %h2 : tensor<64x16xf32>
  %x3 = kiln.add %x2, %a2 : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %l = kiln.sum %x3 [0, 1] : tensor<64x16xf32> -> tensor<f32>
  %d:3 = kiln.grad %l wrt %w0, %w1, %w2 : tensor<f32>, (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>)
  return %d#0, %d#1, %d#2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Three layers whose activations dominate memory. Balanced keeps every
// matmul output; a budget below Balanced's peak makes Budget recompute
// matmuls too (the simulated peak falls from 331784 bytes to 267268); a
// budget that nothing can meet warns.
// REPBAL: remark: --kiln-checkpoint: balanced plans a peak of 331784 bytes
// REPBUD: remark: --kiln-checkpoint: budget=300000 plans a peak of 267268 bytes
// BAL-LABEL: func.func @three_layers(
// BAL-COUNT-3: kiln.matmul %{{.*}} {kiln.saved}
// BAL-NOT: kiln.matmul %{{.*}} {kiln.recomputed}
// BUD-NOT: warning
// BUD-LABEL: func.func @three_layers(
// BUD: kiln.matmul %arg0, %arg1 {kiln.recomputed}
// TIGHT: warning: --kiln-checkpoint: peak of {{[0-9]+}} bytes stays over the budget of 1
func.func @three_layers(%x: tensor<1024x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %w3: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %h1 = kiln.matmul %x, %w1 : (tensor<1024x16xf32>, tensor<16x16xf32>) -> tensor<1024x16xf32>
  %a1 = kiln.tanh %h1 : tensor<1024x16xf32>
  %h2 = kiln.matmul %a1, %w2 : (tensor<1024x16xf32>, tensor<16x16xf32>) -> tensor<1024x16xf32>
  %a2 = kiln.tanh %h2 : tensor<1024x16xf32>
  %h3 = kiln.matmul %a2, %w3 : (tensor<1024x16xf32>, tensor<16x16xf32>) -> tensor<1024x16xf32>
  %a3 = kiln.tanh %h3 : tensor<1024x16xf32>
  %l = kiln.sum %a3 [0, 1] : tensor<1024x16xf32> -> tensor<f32>
  %g:3 = kiln.grad %l wrt %w1, %w2, %w3 : tensor<f32>, (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>)
  return %g#0, %g#1, %g#2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Attention. Balanced saves the projection (a layer's matmul) and the
// softmax's row max and sum; Q K^T and P V (products of two activations)
// and the exponentials (read by the sum and the normalization, a branch
// point, but computed from compute-bound values alone) are recomputed from
// them, through the views that give Q, K and V.
// BAL-LABEL: func.func @attention(
// BAL: kiln.matmul %arg0, %arg1 {kiln.saved}
// BAL-NOT: kiln.exp %{{.*}} {kiln.saved}
// BAL: kiln.reduce_max %{{.*}} {kiln.saved}
// BAL-NOT: kiln.exp %{{.*}} {kiln.saved}
// BAL: kiln.sum %{{.*}} {kiln.saved}
// BAL-NOT: kiln.exp %{{.*}} {kiln.saved}
// BAL-NOT: kiln.matmul %{{.*}} {kiln.saved}
// BAL: kiln.matmul %{{.*}} {kiln.recomputed} : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// BAL: kiln.exp %{{.*}} {kiln.recomputed}
// BAL: kiln.matmul %{{.*}} {kiln.recomputed} : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// Disabled saves the exponentials and the probabilities, [2, 8, 8] each.
// DIS-LABEL: func.func @attention(
// DIS: kiln.exp %{{.*}} {kiln.saved} : tensor<2x8x8xf32>
// DIS: kiln.mul %{{.*}} {kiln.saved} : (tensor<2x8x8xf32>, tensor<2x8x1xf32>)
func.func @attention(%x: tensor<2x8x12xf32>, %w: tensor<12x12xf32>) -> tensor<12x12xf32> {
  %p = kiln.matmul %x, %w : (tensor<2x8x12xf32>, tensor<12x12xf32>) -> tensor<2x8x12xf32>
  %q = kiln.slice %p [0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x12xf32> -> tensor<2x8x4xf32>
  %k = kiln.slice %p [0, 0, 4] [2, 8, 8] [1, 1, 1] : tensor<2x8x12xf32> -> tensor<2x8x4xf32>
  %v = kiln.slice %p [0, 0, 8] [2, 8, 12] [1, 1, 1] : tensor<2x8x12xf32> -> tensor<2x8x4xf32>
  %kt = kiln.permute %k [0, 2, 1] : tensor<2x8x4xf32> -> tensor<2x4x8xf32>
  %s = kiln.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %a = kiln.softmax %s axis = 2 : tensor<2x8x8xf32>
  %y = kiln.matmul %a, %v : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %t = kiln.tanh %y : tensor<2x8x4xf32>
  %l = kiln.sum %t [0, 1, 2] : tensor<2x8x4xf32> -> tensor<f32>
  %g = kiln.grad %l wrt %w : tensor<f32>, (tensor<12x12xf32>)
  return %g : tensor<12x12xf32>
}
