// RUN: tensor-opt %s --split-input-file --convert-kiln-to-linalg --verify-diagnostics | FileCheck %s

// detach is the identity once gradients are no longer a question.
// CHECK-LABEL: func.func @detach(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: math.exp
// CHECK: return %[[Y]] : tensor<4xf32>
// CHECK-NOT: kiln.
func.func @detach(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = kiln.detach %x : tensor<4xf32>
  %y = kiln.exp %d : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// kiln.grad is a placeholder for the backward graph.
func.func @grad(%w: tensor<3xf32>) -> tensor<3xf32> {
  %l = kiln.sum %w [0] : tensor<3xf32> -> tensor<f32>
  // expected-error @+1 {{'kiln.grad' op cannot be lowered to linalg: run --kiln-autodiff first}}
  %g = kiln.grad %l wrt %w : tensor<f32>, (tensor<3xf32>)
  return %g : tensor<3xf32>
}
