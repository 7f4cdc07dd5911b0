// A two-layer perceptron with a softmax cross-entropy loss, written with
// kiln's composite ops. `tensor-opt --kiln-decompose` rewrites the composites
// (layer_norm, silu, cross_entropy) into primitives.
func.func @mlp_loss(%x: tensor<32x64xf32>, %w1: tensor<64x128xf32>,
                    %b1: tensor<128xf32>, %w2: tensor<128x10xf32>,
                    %labels: tensor<32xi64>) -> tensor<f32> {
  %n = kiln.layer_norm %x eps 1.000000e-05 : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %h = kiln.matmul %n, %w1 : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  %hb = kiln.add %h, %b1 : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %a = kiln.silu %hb : tensor<32x128xf32>
  %logits = kiln.matmul %a, %w2 : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
  %loss = kiln.cross_entropy %logits, %labels : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
