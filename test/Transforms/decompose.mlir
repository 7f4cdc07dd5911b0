// RUN: tensor-opt %s --kiln-decompose --split-input-file | FileCheck %s \
// RUN:   --implicit-check-not=kiln.silu --implicit-check-not=kiln.mean \
// RUN:   --implicit-check-not=kiln.softmax --implicit-check-not=kiln.log_softmax \
// RUN:   --implicit-check-not=kiln.logsumexp --implicit-check-not=kiln.layer_norm \
// RUN:   --implicit-check-not=kiln.dropout --implicit-check-not=kiln.cross_entropy \
// RUN:   --implicit-check-not=kiln.conv1d --implicit-check-not=kiln.mask_fill \
// RUN:   --implicit-check-not=kiln.embedding --implicit-check-not=kiln.batch_norm \
// RUN:   --implicit-check-not=kiln.group_norm \
// RUN:   --implicit-check-not=kiln.rms_norm --implicit-check-not=kiln.log_sigmoid \
// RUN:   --implicit-check-not=kiln.hardswish --implicit-check-not=kiln.mish \
// RUN:   --implicit-check-not=kiln.leaky_relu --implicit-check-not=kiln.elu \
// RUN:   --implicit-check-not=kiln.softplus --implicit-check-not=kiln.rope \
// RUN:   --implicit-check-not=kiln.adaptive_avg_pool2d \
// RUN:   --implicit-check-not=kiln.adaptive_max_pool2d \
// RUN:   --implicit-check-not=kiln.conv_transpose2d \
// RUN:   --implicit-check-not=kiln.conv_transpose1d \
// RUN:   --implicit-check-not=kiln.max_pool --implicit-check-not=kiln.avg_pool \
// RUN:   --implicit-check-not=kiln.max_pool_indices \
// RUN:   --implicit-check-not=kiln.interpolate
// RUN: tensor-opt %s --kiln-decompose --canonicalize --cse --split-input-file \
// RUN:   | tensor-opt --split-input-file > /dev/null

// --kiln-decompose rewrites every Kiln_Composite op into primitives. The
// implicit CHECK-NOTs fail if any composite op is left, except where a
// CHECK line names it on purpose. The second RUN line checks that the
// output, also after --canonicalize --cse, verifies and parses back.

// CHECK-LABEL: func.func @silu(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.sigmoid %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.mul %[[X]], %[[S]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @silu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.silu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// mean over static dims divides by a constant count.

// CHECK-LABEL: func.func @mean_static(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-DAG: %[[N:.*]] = kiln.constant dense<8.000000e+00> : tensor<f32>
// CHECK-DAG: %[[S:.*]] = kiln.sum %[[X]] [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK: %[[M:.*]] = kiln.div %[[S]], %[[N]] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[M]]
func.func @mean_static(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = kiln.mean %x [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// mean over a dynamic dim counts at run time: a sum of ones over the
// dynamic dims alone (S of them, not S * 4), times the static dims' product.

// CHECK-LABEL: func.func @mean_dynamic(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4xf64>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[S:.*]] = kiln.sum %[[X]] [0] keepdim : tensor<?x4xf64> -> tensor<1x4xf64>
// CHECK-DAG: %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x4xf64>
// CHECK: %[[ONES:.*]] = kiln.full 1.000000e+00{{ ?}}[%[[D]]] : tensor<?xf64>
// CHECK-NEXT: %[[N:.*]] = kiln.sum %[[ONES]] [0] : tensor<?xf64> -> tensor<f64>
// CHECK-NEXT: %[[M:.*]] = kiln.div %[[S]], %[[N]] : (tensor<1x4xf64>, tensor<f64>) -> tensor<1x4xf64>
// CHECK-NEXT: return %[[M]]
func.func @mean_dynamic(%x: tensor<?x4xf64>) -> tensor<1x4xf64> {
  %0 = kiln.mean %x [0] keepdim : tensor<?x4xf64> -> tensor<1x4xf64>
  return %0 : tensor<1x4xf64>
}

// CHECK-LABEL: func.func @mean_dynamic_all(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4xf32>
// CHECK-DAG: %[[FOUR:.*]] = kiln.constant dense<4.000000e+00> : tensor<f32>
// CHECK-DAG: %[[S:.*]] = kiln.sum %[[X]] [0, 1] : tensor<?x4xf32> -> tensor<f32>
// CHECK-DAG: %[[ONES:.*]] = kiln.full 1.000000e+00{{ ?}}[%{{.*}}] : tensor<?xf32>
// CHECK-DAG: %[[N:.*]] = kiln.sum %[[ONES]] [0] : tensor<?xf32> -> tensor<f32>
// CHECK-DAG: %[[N4:.*]] = kiln.mul %[[N]], %[[FOUR]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: kiln.div %[[S]], %[[N4]]
func.func @mean_dynamic_all(%x: tensor<?x4xf32>) -> tensor<f32> {
  %0 = kiln.mean %x [0, 1] : tensor<?x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x10xf32>
// CHECK-NEXT: %[[MAX:.*]] = kiln.reduce_max %[[X]] [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.detach %[[MAX]] : tensor<4x1xf32>
// CHECK-NEXT: %[[SH:.*]] = kiln.sub %[[X]], %[[D]] : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[SH]] : tensor<4x10xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[E]] [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.recip %[[S]] : tensor<4x1xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.mul %[[E]], %[[R]] : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: return %[[Y]]
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = kiln.softmax %x axis = 1 : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// Dynamic dims and a leading axis change nothing in the recipe.

// CHECK-LABEL: func.func @softmax_dynamic(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x?xf16>
// CHECK-NEXT: %[[MAX:.*]] = kiln.reduce_max %[[X]] [0] keepdim : tensor<?x?xf16> -> tensor<1x?xf16>
// CHECK-NEXT: %[[D:.*]] = kiln.detach %[[MAX]]
// CHECK-NEXT: %[[SH:.*]] = kiln.sub %[[X]], %[[D]] : (tensor<?x?xf16>, tensor<1x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[SH]]
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[E]] [0] keepdim
// CHECK-NEXT: %[[R:.*]] = kiln.recip %[[S]]
// CHECK-NEXT: %[[Y:.*]] = kiln.mul %[[E]], %[[R]] : (tensor<?x?xf16>, tensor<1x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT: return %[[Y]]
func.func @softmax_dynamic(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = kiln.softmax %x axis = 0 : tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}

// -----

// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT: %[[MAX:.*]] = kiln.reduce_max %[[X]] [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.detach %[[MAX]]
// CHECK-NEXT: %[[SH:.*]] = kiln.sub %[[X]], %[[D]]
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[SH]]
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[E]] [1] keepdim
// CHECK-NEXT: %[[L:.*]] = kiln.log %[[S]] : tensor<2x1xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.sub %[[SH]], %[[L]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.log_softmax %x axis = 1 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// logsumexp without keepdim squeezes the kept dims away at the end. An
// infinite row max shifts by 0 instead, so that a row of -inf gives -inf.

// CHECK-LABEL: func.func @logsumexp(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[INF:.*]] = kiln.constant dense<0x7F800000> : tensor<f32>
// CHECK: %[[MAX:.*]] = kiln.reduce_max %[[X]] [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.detach %[[MAX]]
// CHECK-NEXT: %[[ABS:.*]] = kiln.abs %[[D]]
// CHECK-NEXT: %[[ISINF:.*]] = kiln.eq %[[ABS]], %[[INF]]
// CHECK-NEXT: %[[M:.*]] = kiln.where %[[ISINF]], %[[ZERO]], %[[D]]
// CHECK-NEXT: %[[SH:.*]] = kiln.sub %[[X]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[SH]]
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[E]] [1] keepdim
// CHECK-NEXT: %[[L:.*]] = kiln.log %[[S]]
// CHECK-NEXT: %[[A:.*]] = kiln.add %[[L]], %[[M]] : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.squeeze %[[A]] [1] : tensor<2x1xf32> -> tensor<2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @logsumexp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = kiln.logsumexp %x [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @logsumexp_keepdim(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x?xbf16>
// CHECK: %[[MAX:.*]] = kiln.reduce_max %[[X]] [0, 1] keepdim : tensor<2x?xbf16> -> tensor<1x1xbf16>
// CHECK-NEXT: %[[D:.*]] = kiln.detach %[[MAX]]
// CHECK-NEXT: %[[ABS:.*]] = kiln.abs %[[D]]
// CHECK-NEXT: %[[ISINF:.*]] = kiln.eq %[[ABS]], %{{.*}} : (tensor<1x1xbf16>, tensor<bf16>)
// CHECK-NEXT: %[[M:.*]] = kiln.where %[[ISINF]], %{{.*}}, %[[D]]
// CHECK-NEXT: %[[SH:.*]] = kiln.sub %[[X]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = kiln.exp %[[SH]]
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[E]] [0, 1] keepdim
// CHECK-NEXT: %[[L:.*]] = kiln.log %[[S]]
// CHECK-NEXT: %[[A:.*]] = kiln.add %[[L]], %[[M]] : (tensor<1x1xbf16>, tensor<1x1xbf16>) -> tensor<1x1xbf16>
// CHECK-NEXT: return %[[A]]
func.func @logsumexp_keepdim(%x: tensor<2x?xbf16>) -> tensor<1x1xbf16> {
  %0 = kiln.logsumexp %x [0, 1] keepdim : tensor<2x?xbf16> -> tensor<1x1xbf16>
  return %0 : tensor<1x1xbf16>
}

// -----

// layer_norm: mean and variance over the last dim, then the optional affine.

// CHECK-LABEL: func.func @layer_norm_affine(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xf32>, %[[W:[^:]+]]: tensor<16xf32>, %[[B:[^:]+]]: tensor<16xf32>
// CHECK-DAG: %[[EPS:.*]] = kiln.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = kiln.constant dense<1.600000e+01> : tensor<f32>
// CHECK: %[[S:.*]] = kiln.sum %[[X]] [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
// CHECK-NEXT: %[[MEAN:.*]] = kiln.div %[[S]], %[[N]]
// CHECK-NEXT: %[[C:.*]] = kiln.sub %[[X]], %[[MEAN]] : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[SQ:.*]] = kiln.mul %[[C]], %[[C]]
// CHECK-NEXT: %[[SS:.*]] = kiln.sum %[[SQ]] [1] keepdim
// CHECK-NEXT: %[[VAR:.*]] = kiln.div %[[SS]], %[[N]]
// CHECK-NEXT: %[[VE:.*]] = kiln.add %[[VAR]], %[[EPS]]
// CHECK-NEXT: %[[INV:.*]] = kiln.rsqrt %[[VE]] : tensor<8x1xf32>
// CHECK-NEXT: %[[NORM:.*]] = kiln.mul %[[C]], %[[INV]]
// CHECK-NEXT: %[[SC:.*]] = kiln.mul %[[NORM]], %[[W]] : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.add %[[SC]], %[[B]] : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_affine(%x: tensor<8x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = kiln.layer_norm %x weight %w bias %b eps 1.0e-05 : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_plain(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xf32>
// CHECK: %[[INV:.*]] = kiln.rsqrt
// CHECK-NEXT: %[[NORM:.*]] = kiln.mul %{{.*}}, %[[INV]] : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[NORM]]
func.func @layer_norm_plain(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = kiln.layer_norm %x eps 1.0e-05 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Bias without weight: only the add. eps = 0 folds away.

// CHECK-LABEL: func.func @layer_norm_bias(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x?xbf16>, %[[B:[^:]+]]: tensor<?xbf16>
// CHECK: kiln.full 1.000000e+00
// CHECK: %[[INV:.*]] = kiln.rsqrt %{{.*}} : tensor<?x1xbf16>
// CHECK-NEXT: %[[NORM:.*]] = kiln.mul %{{.*}}, %[[INV]]
// CHECK-NEXT: %[[Y:.*]] = kiln.add %[[NORM]], %[[B]] : (tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_bias(%x: tensor<?x?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = kiln.layer_norm %x bias %b eps 0.0 : (tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}

// -----

// A static weight against a dynamic last dim makes the product more precise
// than the op's type; a tensor.cast gives the op's type back.

// CHECK-LABEL: func.func @layer_norm_refined(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x?xf32>, %[[W:[^:]+]]: tensor<4xf32>
// CHECK: %[[SC:.*]] = kiln.mul %{{.*}}, %[[W]] : (tensor<?x?xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: %[[Y:.*]] = tensor.cast %[[SC]] : tensor<?x4xf32> to tensor<?x?xf32>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_refined(%x: tensor<?x?xf32>, %w: tensor<4xf32>) -> tensor<?x?xf32> {
  %0 = kiln.layer_norm %x weight %w eps 1.0e-05 : (tensor<?x?xf32>, tensor<4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// dropout with p = 0 is its input.

// CHECK-LABEL: func.func @dropout_zero(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xf32>
// CHECK-NEXT: return %[[X]]
func.func @dropout_zero(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.dropout %x p = 0.0 seed = 0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// dropout with p > 0 keeps x / (1 - p) where a uniform draw is >= p.

// CHECK-LABEL: func.func @dropout(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xf32>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = kiln.constant dense<1.33333337> : tensor<f32>
// CHECK-DAG: %[[P:.*]] = kiln.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[U:.*]] = kiln.rand seed = 3, 0.000000e+00, 1.000000e+00 : tensor<8xf32>
// CHECK-NEXT: %[[KEEP:.*]] = kiln.ge %[[U]], %[[P]] : (tensor<8xf32>, tensor<f32>) -> tensor<8xi1>
// CHECK-NEXT: %[[SX:.*]] = kiln.mul %[[X]], %[[SCALE]]
// CHECK-NEXT: %[[Y:.*]] = kiln.where %[[KEEP]], %[[SX]], %[[ZERO]] : (tensor<8xi1>, tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @dropout(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.dropout %x p = 2.5e-01 seed = 3 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The run-time offset of dropout's seed goes to the draw.

// CHECK-LABEL: func.func @dropout_offset(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8xf32>, %[[O:[^:]+]]: tensor<i64>
// CHECK: %[[U:.*]] = kiln.rand seed = 3 offset %[[O]] : tensor<i64>, 0.000000e+00, 1.000000e+00 : tensor<8xf32>
// CHECK-NEXT: kiln.ge %[[U]]
func.func @dropout_offset(%x: tensor<8xf32>, %o: tensor<i64>) -> tensor<8xf32> {
  %0 = kiln.dropout %x p = 2.5e-01 seed = 3 offset %o : tensor<i64> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// rms_norm: x * rsqrt(sum(x^2) / n + eps) * weight over the last dim.

// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[G:[^:]+]]: tensor<8xf32>
// CHECK-DAG: %[[N:.*]] = kiln.constant dense<8.000000e+00> : tensor<f32>
// CHECK-DAG: %[[EPS:.*]] = kiln.constant dense<9.99999997E-7> : tensor<f32>
// CHECK: %[[SQ:.*]] = kiln.mul %[[X]], %[[X]]
// CHECK: %[[S:.*]] = kiln.sum %[[SQ]] [1] keepdim
// CHECK: %[[M:.*]] = kiln.div %[[S]], %[[N]]
// CHECK: %[[A:.*]] = kiln.add %[[M]], %[[EPS]]
// CHECK: %[[R:.*]] = kiln.rsqrt %[[A]]
// CHECK: %[[Y:.*]] = kiln.mul %[[X]], %[[R]]
// CHECK: %[[Z:.*]] = kiln.mul %[[Y]], %[[G]]
// CHECK: return %[[Z]]
func.func @rms_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.rms_norm %x weight %g eps 1.0e-06 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rope (half-split): x cos(p f) + x[perm] (sign sin(p f)), with the
// positions a constant column plus the run-time offset; D = 4 pairs
// element j with j + 2, at frequencies 1 and 100^(-1/2).

// CHECK-LABEL: func.func @rope(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[O:[^:]+]]: tensor<i64>
// CHECK-DAG: %[[POS:.*]] = kiln.constant dense<{{\[}}[0.000000e+00], [1.000000e+00], [2.000000e+00]]> : tensor<3x1xf32>
// CHECK-DAG: %[[F:.*]] = kiln.constant dense<{{\[}}[1.000000e+00, 1.000000e-01, 1.000000e+00, 1.000000e-01]]> : tensor<1x4xf32>
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<{{\[}}[-1.000000e+00, -1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<1x4xf32>
// CHECK-DAG: %[[PERM:.*]] = kiln.constant dense<[2, 3, 0, 1]> : tensor<4xi64>
// CHECK: %[[OF:.*]] = kiln.cast %[[O]] : tensor<i64> -> tensor<f32>
// CHECK: %[[P:.*]] = kiln.add %[[OF]], %[[POS]]
// CHECK: %[[A:.*]] = kiln.mul %[[P]], %[[F]]
// CHECK: %[[C:.*]] = kiln.cos %[[A]]
// CHECK: %[[SN:.*]] = kiln.sin %[[A]]
// CHECK: %[[SS:.*]] = kiln.mul %[[SN]], %[[S]]
// CHECK: %[[R:.*]] = kiln.index_select %[[X]][%[[PERM]]] axis = 2
// CHECK: %[[XC:.*]] = kiln.mul %[[X]], %[[C]]
// CHECK: %[[RS:.*]] = kiln.mul %[[R]], %[[SS]]
// CHECK: %[[Y:.*]] = kiln.add %[[XC]], %[[RS]]
// CHECK: return %[[Y]]
func.func @rope(%x: tensor<2x3x4xf32>, %o: tensor<i64>) -> tensor<2x3x4xf32> {
  %0 = kiln.rope %x offset %o : tensor<i64> theta 100.0 : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Interleaved rope pairs (2k, 2k + 1); a dynamic T counts its positions
// with a cumsum; bf16 input takes f32 angles, cast once.

// CHECK-LABEL: func.func @rope_interleaved_dynamic(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4xbf16>
// CHECK-DAG: %[[PERM:.*]] = kiln.constant dense<[1, 0, 3, 2]> : tensor<4xi64>
// CHECK-DAG: %[[F:.*]] = kiln.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e-01, 1.000000e-01]]> : tensor<1x4xf32>
// CHECK: %[[T:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xbf16>
// CHECK: %[[ONES:.*]] = kiln.full 1.000000e+00{{ ?}}[%[[T]]] : tensor<?x1xf32>
// CHECK: %[[CS:.*]] = kiln.cumsum %[[ONES]] axis = 0
// CHECK: %[[P:.*]] = kiln.sub %[[CS]]
// CHECK: %[[A:.*]] = kiln.mul %[[P]], %[[F]]
// CHECK: kiln.cast %{{.*}} : tensor<?x4xf32> -> tensor<?x4xbf16>
// CHECK: kiln.cast %{{.*}} : tensor<?x4xf32> -> tensor<?x4xbf16>
// CHECK: kiln.index_select %[[X]][%[[PERM]]] axis = 1
func.func @rope_interleaved_dynamic(%x: tensor<?x4xbf16>) -> tensor<?x4xbf16> {
  %0 = kiln.rope %x theta 100.0 interleaved : tensor<?x4xbf16>
  return %0 : tensor<?x4xbf16>
}

// -----

// The activations: softplus in its stable form (max(z, 0) + log1p(e^-|z|))
// under the threshold, leaky_relu and elu as a select, hardswish through a
// clamp, log_sigmoid as -softplus(-x), mish as x tanh(softplus(x)).

// CHECK-LABEL: func.func @activations(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[Z:.*]] = kiln.mul %[[X]], %{{.*}} : (tensor<4xf32>, tensor<f32>)
// CHECK: %[[AZ:.*]] = kiln.abs %[[Z]]
// CHECK: %[[NZ:.*]] = kiln.neg %[[AZ]]
// CHECK: %[[EZ:.*]] = kiln.exp %[[NZ]]
// CHECK: %[[LZ:.*]] = kiln.log1p %[[EZ]]
// CHECK: %[[MZ:.*]] = kiln.max %[[Z]], %{{.*}}
// CHECK: %[[SZ:.*]] = kiln.add %[[MZ]], %[[LZ]]
// CHECK: %[[SP:.*]] = kiln.div %[[SZ]], %{{.*}}
// CHECK: %[[LIN:.*]] = kiln.gt %[[Z]], %{{.*}}
// CHECK: %[[SOFT:.*]] = kiln.where %[[LIN]], %[[X]], %[[SP]]
// CHECK: %[[POS:.*]] = kiln.gt %[[X]], %{{.*}}
// CHECK: %[[NEG:.*]] = kiln.mul %[[X]], %{{.*}}
// CHECK: %[[LEAKY:.*]] = kiln.where %[[POS]], %[[X]], %[[NEG]]
// CHECK: %[[MIN:.*]] = kiln.min %[[X]], %{{.*}}
// CHECK: %[[EM:.*]] = kiln.exp %[[MIN]]
// CHECK: %[[EM1:.*]] = kiln.sub %[[EM]], %{{.*}}
// CHECK: %[[AEM1:.*]] = kiln.mul %[[EM1]], %{{.*}}
// CHECK: %[[ELU:.*]] = kiln.where %{{.*}}, %[[X]], %[[AEM1]]
// CHECK: %[[X3:.*]] = kiln.add %[[X]], %{{.*}}
// CHECK: %[[GATE:.*]] = kiln.clamp %[[X3]]{{ ?}}[0.000000e+00, 6.000000e+00]
// CHECK: %[[XG:.*]] = kiln.mul %[[X]], %[[GATE]]
// CHECK: %[[HS:.*]] = kiln.div %[[XG]], %{{.*}}
// CHECK: %[[NX:.*]] = kiln.neg %[[X]]
// CHECK: kiln.abs %[[NX]]
// CHECK: %[[NS:.*]] = kiln.add
// CHECK: %[[LS:.*]] = kiln.neg %[[NS]]
// CHECK: kiln.abs %[[X]]
// CHECK: %[[SX:.*]] = kiln.add
// CHECK: %[[T:.*]] = kiln.tanh %[[SX]]
// CHECK: %[[MISH:.*]] = kiln.mul %[[X]], %[[T]]
// CHECK: return %[[SOFT]], %[[LEAKY]], %[[ELU]], %[[HS]], %[[LS]], %[[MISH]]
func.func @activations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.softplus %x beta = 2.0 threshold = 20.0 : tensor<4xf32>
  %1 = kiln.leaky_relu %x negative_slope = 0.1 : tensor<4xf32>
  %2 = kiln.elu %x alpha = 1.5 : tensor<4xf32>
  %3 = kiln.hardswish %x : tensor<4xf32>
  %4 = kiln.log_sigmoid %x : tensor<4xf32>
  %5 = kiln.mish %x : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The mask of a dynamic shape draws with the input's run-time dims.

// CHECK-LABEL: func.func @dropout_dynamic(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4xf16>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf16>
// CHECK-NEXT: %[[U:.*]] = kiln.rand seed = 0, 0.000000e+00, 1.000000e+00{{ ?}}[%[[D]]] : tensor<?x4xf16>
// CHECK-NEXT: %[[KEEP:.*]] = kiln.ge %[[U]]
// CHECK-NEXT: %[[SX:.*]] = kiln.mul %[[X]]
// CHECK-NEXT: %[[Y:.*]] = kiln.where %[[KEEP]], %[[SX]]
// CHECK-NEXT: return %[[Y]]
func.func @dropout_dynamic(%x: tensor<?x4xf16>) -> tensor<?x4xf16> {
  %0 = kiln.dropout %x p = 5.0e-01 seed = 0 : tensor<?x4xf16>
  return %0 : tensor<?x4xf16>
}

// -----

// cross_entropy: -log_softmax at the labels (class 0 for an ignored
// label, whose loss is then 0), summed and divided by the count of labels
// that are not ignore_index (-100 by default); the log_softmax it creates
// is decomposed too.

// CHECK-LABEL: func.func @cross_entropy(
// CHECK-SAME: %[[L:[^:]+]]: tensor<4x10xf32>, %[[T:[^:]+]]: tensor<4xi64>
// CHECK-DAG: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ZI:.*]] = kiln.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[IGN:.*]] = kiln.constant dense<-100> : tensor<i64>
// CHECK-DAG: kiln.reduce_max %[[L]] [1] keepdim
// CHECK: %[[LSE:.*]] = kiln.log %{{.*}} : tensor<4x1xf32>
// CHECK-NEXT: %[[LOGP:.*]] = kiln.sub %{{.*}}, %[[LSE]] : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: %[[OK:.*]] = kiln.ne %[[T]], %[[IGN]] : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
// CHECK-NEXT: %[[SAFE:.*]] = kiln.where %[[OK]], %[[T]], %[[ZI]]
// CHECK-NEXT: %[[IDX:.*]] = kiln.reshape %[[SAFE]] [4, 1] : tensor<4xi64> -> tensor<4x1xi64>
// CHECK-NEXT: %[[PICK:.*]] = kiln.gather %[[LOGP]][%[[IDX]]] axis = 1 : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[P:.*]] = kiln.sum %[[PICK]] [1] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[NLL:.*]] = kiln.neg %[[P]] : tensor<4xf32>
// CHECK-NEXT: %[[LOSS:.*]] = kiln.where %[[OK]], %[[NLL]], %[[Z]]
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[LOSS]] [0] : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT: %[[C:.*]] = kiln.cast %[[OK]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[N:.*]] = kiln.sum %[[C]] [0] : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT: %[[Y:.*]] = kiln.div %[[S]], %[[N]]
// CHECK-NEXT: return %[[Y]]
func.func @cross_entropy(%l: tensor<4x10xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %0 = kiln.cross_entropy %l, %t : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A dynamic batch keeps its labels' reshape dynamic.

// CHECK-LABEL: func.func @cross_entropy_dynamic(
// CHECK-SAME: %[[L:[^:]+]]: tensor<?x3xf64>, %[[T:[^:]+]]: tensor<?xi32>
// CHECK: %[[IDX:.*]] = kiln.reshape %{{.*}} [-1, 1] : tensor<?xi32> -> tensor<?x1xi32>
// CHECK-NEXT: %[[PICK:.*]] = kiln.gather %{{.*}}[%[[IDX]]] axis = 1 : (tensor<?x3xf64>, tensor<?x1xi32>) -> tensor<?x1xf64>
// CHECK: kiln.div
func.func @cross_entropy_dynamic(%l: tensor<?x3xf64>, %t: tensor<?xi32>) -> tensor<f64> {
  %0 = kiln.cross_entropy %l, %t : (tensor<?x3xf64>, tensor<?xi32>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// Smoothing mixes in the mean of -log_softmax; reduction none keeps each
// element's loss over rank-3 logits ([N, C, D] -> [N, D]).

// CHECK-LABEL: func.func @cross_entropy_options(
// CHECK-SAME: %[[L:[^:]+]]: tensor<2x5x3xf32>, %[[T:[^:]+]]: tensor<2x3xi64>
// CHECK-DAG: %[[IGN:.*]] = kiln.constant dense<7> : tensor<i64>
// CHECK: %[[OK:.*]] = kiln.ne %[[T]], %[[IGN]]
// CHECK: kiln.reshape %{{.*}} [2, 1, 3] : tensor<2x3xi64> -> tensor<2x1x3xi64>
// CHECK: %[[PICK:.*]] = kiln.gather %{{.*}} axis = 1 : (tensor<2x5x3xf32>, tensor<2x1x3xi64>) -> tensor<2x1x3xf32>
// CHECK: %[[NLL:.*]] = kiln.neg
// CHECK: %[[U:.*]] = kiln.neg %{{.*}} : tensor<2x3xf32>
// CHECK: %[[A:.*]] = kiln.mul %[[NLL]], %{{.*}}
// CHECK: %[[B:.*]] = kiln.mul %[[U]], %{{.*}}
// CHECK: %[[SUM:.*]] = kiln.add %[[A]], %[[B]]
// CHECK: %[[Y:.*]] = kiln.where %[[OK]], %[[SUM]], %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @cross_entropy_options(%l: tensor<2x5x3xf32>, %t: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = kiln.cross_entropy %l, %t ignore_index = 7 label_smoothing = 0.1 reduction = none : (tensor<2x5x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// conv1d is a conv2d over a height of 1; the bias goes with it.

// CHECK-LABEL: func.func @conv1d_bias(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4x10xf32>, %[[W:[^:]+]]: tensor<6x2x3xf32>, %[[B:[^:]+]]: tensor<6xf32>
// CHECK-NEXT: %[[X4:.*]] = kiln.unsqueeze %[[X]] [2] : tensor<2x4x10xf32> -> tensor<2x4x1x10xf32>
// CHECK-NEXT: %[[W4:.*]] = kiln.unsqueeze %[[W]] [2] : tensor<6x2x3xf32> -> tensor<6x2x1x3xf32>
// CHECK-NEXT: %[[C:.*]] = kiln.conv2d %[[X4]], %[[W4]], %[[B]] stride [1, 2] padding [0, 1] dilation [1, 2] groups 2 : (tensor<2x4x1x10xf32>, tensor<6x2x1x3xf32>, tensor<6xf32>) -> tensor<2x6x1x4xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.squeeze %[[C]] [2] : tensor<2x6x1x4xf32> -> tensor<2x6x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @conv1d_bias(%x: tensor<2x4x10xf32>, %w: tensor<6x2x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x4xf32> {
  %0 = kiln.conv1d %x, %w, %b stride [2] padding [1] dilation [2] groups 2 : (tensor<2x4x10xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv1d_dynamic(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x1x?xbf16>, %[[W:[^:]+]]: tensor<1x1x2xbf16>
// CHECK-NEXT: %[[X4:.*]] = kiln.unsqueeze %[[X]] [2] : tensor<?x1x?xbf16> -> tensor<?x1x1x?xbf16>
// CHECK-NEXT: %[[W4:.*]] = kiln.unsqueeze %[[W]] [2]
// CHECK-NEXT: %[[C:.*]] = kiln.conv2d %[[X4]], %[[W4]] stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<?x1x1x?xbf16>, tensor<1x1x1x2xbf16>) -> tensor<?x1x1x?xbf16>
// CHECK-NEXT: %[[Y:.*]] = kiln.squeeze %[[C]] [2] : tensor<?x1x1x?xbf16> -> tensor<?x1x?xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @conv1d_dynamic(%x: tensor<?x1x?xbf16>, %w: tensor<1x1x2xbf16>) -> tensor<?x1x?xbf16> {
  %0 = kiln.conv1d %x, %w stride [1] padding [0] dilation [1] groups 1 : (tensor<?x1x?xbf16>, tensor<1x1x2xbf16>) -> tensor<?x1x?xbf16>
  return %0 : tensor<?x1x?xbf16>
}

// -----

// mask_fill is a where with the fill value as a scalar constant.

// CHECK-LABEL: func.func @mask_fill(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[M:[^:]+]]: tensor<3xi1>
// CHECK-NEXT: %[[V:.*]] = kiln.constant dense<-1.000000e+09> : tensor<f32>
// CHECK-NEXT: %[[Y:.*]] = kiln.where %[[M]], %[[V]], %[[X]] : (tensor<3xi1>, tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mask_fill(%x: tensor<2x3xf32>, %m: tensor<3xi1>) -> tensor<2x3xf32> {
  %0 = kiln.mask_fill %x, %m value -1.0e+09 : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// An integer input takes an integer fill; a static mask against a dynamic
// input refines the where's type, and a tensor.cast gives it back.

// CHECK-LABEL: func.func @mask_fill_int_refined(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x3xi32>, %[[M:[^:]+]]: tensor<2x3xi1>
// CHECK-NEXT: %[[V:.*]] = kiln.constant dense<7> : tensor<i32>
// CHECK-NEXT: %[[W:.*]] = kiln.where %[[M]], %[[V]], %[[X]] : (tensor<2x3xi1>, tensor<i32>, tensor<?x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT: %[[Y:.*]] = tensor.cast %[[W]] : tensor<2x3xi32> to tensor<?x3xi32>
// CHECK-NEXT: return %[[Y]]
func.func @mask_fill_int_refined(%x: tensor<?x3xi32>, %m: tensor<2x3xi1>) -> tensor<?x3xi32> {
  %0 = kiln.mask_fill %x, %m value 7.0 : (tensor<?x3xi32>, tensor<2x3xi1>) -> tensor<?x3xi32>
  return %0 : tensor<?x3xi32>
}

// -----

// embedding: flatten the indices, select rows, reshape to indices + [dim].

// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[W:[^:]+]]: tensor<100x16xf32>, %[[I:[^:]+]]: tensor<4x8xi64>
// CHECK-NEXT: %[[F:.*]] = kiln.reshape %[[I]] [-1] : tensor<4x8xi64> -> tensor<32xi64>
// CHECK-NEXT: %[[R:.*]] = kiln.index_select %[[W]][%[[F]]] axis = 0 : (tensor<100x16xf32>, tensor<32xi64>) -> tensor<32x16xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.reshape %[[R]] [4, 8, 16] : tensor<32x16xf32> -> tensor<4x8x16xf32>
// CHECK-NEXT: return %[[Y]]
func.func @embedding(%w: tensor<100x16xf32>, %i: tensor<4x8xi64>) -> tensor<4x8x16xf32> {
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// -----

// 1-D indices need no reshape, whatever is dynamic; a scalar index selects
// one row.

// CHECK-LABEL: func.func @embedding_shapes(
// CHECK-SAME: %[[W:[^:]+]]: tensor<?x?xbf16>, %[[J:[^:]+]]: tensor<?xi32>, %[[V:[^:]+]]: tensor<100x16xf32>, %[[K:[^:]+]]: tensor<i64>
// CHECK-NEXT: %[[A:.*]] = kiln.index_select %[[W]][%[[J]]] axis = 0 : (tensor<?x?xbf16>, tensor<?xi32>) -> tensor<?x?xbf16>
// CHECK-NEXT: %[[F:.*]] = kiln.reshape %[[K]] [-1] : tensor<i64> -> tensor<1xi64>
// CHECK-NEXT: %[[R:.*]] = kiln.index_select %[[V]][%[[F]]] axis = 0 : (tensor<100x16xf32>, tensor<1xi64>) -> tensor<1x16xf32>
// CHECK-NEXT: %[[B:.*]] = kiln.reshape %[[R]] [16] : tensor<1x16xf32> -> tensor<16xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @embedding_shapes(%w: tensor<?x?xbf16>, %j: tensor<?xi32>, %v: tensor<100x16xf32>, %k: tensor<i64>) -> (tensor<?x?xbf16>, tensor<16xf32>) {
  %0 = kiln.embedding %w[%j] : (tensor<?x?xbf16>, tensor<?xi32>) -> tensor<?x?xbf16>
  %1 = kiln.embedding %v[%k] : (tensor<100x16xf32>, tensor<i64>) -> tensor<16xf32>
  return %0, %1 : tensor<?x?xbf16>, tensor<16xf32>
}

// -----

// With 2-D indices and two dynamic result dims, the reshape back could name
// only one of them: the op stays, and the pass still succeeds.

// CHECK-LABEL: func.func @embedding_kept(
// CHECK-NEXT: kiln.embedding
// CHECK-NEXT: return
func.func @embedding_kept(%w: tensor<100x16xf32>, %i: tensor<?x?xi64>) -> tensor<?x?x16xf32> {
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<?x?xi64>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

// Composites inside a nested region and chained composites all go.

// CHECK-LABEL: func.func @chained(
// CHECK-NOT: kiln.silu
// CHECK: scf.if
// CHECK: kiln.sigmoid
// CHECK: kiln.reduce_max
// CHECK: return
func.func @chained(%x: tensor<4x8xf32>, %c: i1) -> tensor<4x8xf32> {
  %0 = scf.if %c -> tensor<4x8xf32> {
    %1 = kiln.silu %x : tensor<4x8xf32>
    scf.yield %1 : tensor<4x8xf32>
  } else {
    scf.yield %x : tensor<4x8xf32>
  }
  %2 = kiln.softmax %0 axis = 1 : tensor<4x8xf32>
  %3 = kiln.mean %2 [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %4 = kiln.sub %2, %3 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// batch_norm: the per-channel scale rsqrt(var + eps) * weight on [C], then
// (x - mean) * scale + bias with each vector viewed as [1, C, 1, 1].

// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x3x4x4xf32>, %[[M:[^:]+]]: tensor<3xf32>, %[[V:[^:]+]]: tensor<3xf32>, %[[G:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>
// CHECK: %[[EPS:.*]] = kiln.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-NEXT: %[[VE:.*]] = kiln.add %[[V]], %[[EPS]]
// CHECK-NEXT: %[[INV:.*]] = kiln.rsqrt %[[VE]] : tensor<3xf32>
// CHECK-NEXT: %[[SCALE:.*]] = kiln.mul %[[INV]], %[[G]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[MV:.*]] = kiln.unsqueeze %[[M]] [0, 2, 3] : tensor<3xf32> -> tensor<1x3x1x1xf32>
// CHECK-NEXT: %[[C:.*]] = kiln.sub %[[X]], %[[MV]] : (tensor<?x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<?x3x4x4xf32>
// CHECK-NEXT: %[[SV:.*]] = kiln.unsqueeze %[[SCALE]] [0, 2, 3]
// CHECK-NEXT: %[[N:.*]] = kiln.mul %[[C]], %[[SV]]
// CHECK-NEXT: %[[BV:.*]] = kiln.unsqueeze %[[B]] [0, 2, 3]
// CHECK-NEXT: %[[Y:.*]] = kiln.add %[[N]], %[[BV]] : (tensor<?x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<?x3x4x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @batch_norm(%x: tensor<?x3x4x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<?x3x4x4xf32> {
  %y = kiln.batch_norm %x, %m, %v weight %g bias %b eps 1.0e-05 : (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x4x4xf32>
  return %y : tensor<?x3x4x4xf32>
}

// -----

// group_norm: each sample's group is a row of [N, G, C / G * H * W] that is
// normalized as layer_norm would (mean, centred square, rsqrt), then the
// shape comes back and the weight scales each channel.

// CHECK-LABEL: func.func @group_norm(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4x3x3xf32>, %[[G:[^:]+]]: tensor<4xf32>
// CHECK: %[[ROWS:.*]] = kiln.reshape %[[X]] [-1, 2, 18] : tensor<?x4x3x3xf32> -> tensor<?x2x18xf32>
// CHECK-NEXT: %[[S:.*]] = kiln.sum %[[ROWS]] [2] keepdim
// CHECK: %[[C:.*]] = kiln.sub %[[ROWS]],
// CHECK: kiln.rsqrt
// CHECK-NEXT: %[[NORM:.*]] = kiln.mul %[[C]],
// CHECK-NEXT: %[[BACK:.*]] = kiln.reshape %[[NORM]] [-1, 4, 3, 3] : tensor<?x2x18xf32> -> tensor<?x4x3x3xf32>
// CHECK-NEXT: %[[GV:.*]] = kiln.unsqueeze %[[G]] [0, 2, 3] : tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.mul %[[BACK]], %[[GV]]
// CHECK-NEXT: return %[[Y]]
func.func @group_norm(%x: tensor<?x4x3x3xf32>, %g: tensor<4xf32>) -> tensor<?x4x3x3xf32> {
  %y = kiln.group_norm %x weight %g groups 2 eps 1.0e-05 : (tensor<?x4x3x3xf32>, tensor<4xf32>) -> tensor<?x4x3x3xf32>
  return %y : tensor<?x4x3x3xf32>
}

// -----

// adaptive_avg_pool2d: to 1x1, a mean over H and W; when the sizes divide,
// an avg_pool2d of one window size and step; otherwise two matmuls with
// averaging matrices (5 -> 3 rows: windows [0, 2), [1, 4), [3, 5)).

// CHECK-LABEL: func.func @adaptive_avg_pool2d(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x5x8xf32>
// CHECK-DAG: %[[N:.*]] = kiln.constant dense<4.000000e+01> : tensor<f32>
// CHECK-DAG: %[[PH:.*]] = kiln.constant dense<{{\[\[}}5.000000e-01, 5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.333333343, 0.333333343, 0.333333343, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e-01, 5.000000e-01]]> : tensor<3x5xf32>
// CHECK-DAG: %[[PW:.*]] = kiln.constant dense<{{.*}}> : tensor<8x3xf32>
// CHECK: %[[S:.*]] = kiln.sum %[[X]] [2, 3] keepdim : tensor<2x3x5x8xf32> -> tensor<2x3x1x1xf32>
// CHECK-NEXT: %[[GLOBAL:.*]] = kiln.div %[[S]], %[[N]]
// CHECK-NEXT: %[[POOL:.*]] = kiln.avg_pool2d %[[X]] kernel [5, 2] stride [5, 2] padding [0, 0] count_include_pad : tensor<2x3x5x8xf32> -> tensor<2x3x1x4xf32>
// CHECK-NEXT: %[[T:.*]] = kiln.matmul %[[X]], %[[PW]] : (tensor<2x3x5x8xf32>, tensor<8x3xf32>) -> tensor<2x3x5x3xf32>
// CHECK-NEXT: %[[Y:.*]] = kiln.matmul %[[PH]], %[[T]] : (tensor<3x5xf32>, tensor<2x3x5x3xf32>) -> tensor<2x3x3x3xf32>
// CHECK-NEXT: return %[[GLOBAL]], %[[POOL]], %[[Y]]
func.func @adaptive_avg_pool2d(%x: tensor<2x3x5x8xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x1x4xf32>, tensor<2x3x3x3xf32>) {
  %0 = kiln.adaptive_avg_pool2d %x size [1, 1] : tensor<2x3x5x8xf32> -> tensor<2x3x1x1xf32>
  %1 = kiln.adaptive_avg_pool2d %x size [1, 4] : tensor<2x3x5x8xf32> -> tensor<2x3x1x4xf32>
  %2 = kiln.adaptive_avg_pool2d %x size [3, 3] : tensor<2x3x5x8xf32> -> tensor<2x3x3x3xf32>
  return %0, %1, %2 : tensor<2x3x1x1xf32>, tensor<2x3x1x4xf32>, tensor<2x3x3x3xf32>
}

// -----

// adaptive_max_pool2d: per spatial dim, index_select the rows of every
// window (a shorter window repeats its last row), then reduce_max over them.

// CHECK-LABEL: func.func @adaptive_max_pool2d(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x3x5x7xf32>
// CHECK-DAG: %[[IW:.*]] = kiln.constant dense<[0, 1, 2, 3, 3, 4, 5, 6]> : tensor<8xi64>
// CHECK-DAG: %[[IH:.*]] = kiln.constant dense<[0, 1, 1, 1, 2, 3, 3, 4, 4]> : tensor<9xi64>
// CHECK-DAG: %[[MAXW:.*]] = kiln.reduce_max %[[X]] [2, 3] keepdim
// CHECK: %[[RH:.*]] = kiln.index_select %[[X]][%[[IH]]] axis = 2 : (tensor<?x3x5x7xf32>, tensor<9xi64>) -> tensor<?x3x9x7xf32>
// CHECK-NEXT: %[[WH:.*]] = kiln.reshape %[[RH]] [-1, 3, 3, 3, 7]
// CHECK-NEXT: %[[MH:.*]] = kiln.reduce_max %[[WH]] [3] : tensor<?x3x3x3x7xf32> -> tensor<?x3x3x7xf32>
// CHECK-NEXT: %[[RW:.*]] = kiln.index_select %[[MH]][%[[IW]]] axis = 3
// CHECK-NEXT: %[[WW:.*]] = kiln.reshape %[[RW]] [-1, 3, 3, 2, 4]
// CHECK-NEXT: %[[Y:.*]] = kiln.reduce_max %[[WW]] [4] : tensor<?x3x3x2x4xf32> -> tensor<?x3x3x2xf32>
// CHECK-NEXT: return %[[MAXW]], %[[Y]]
func.func @adaptive_max_pool2d(%x: tensor<?x3x5x7xf32>) -> (tensor<?x3x1x1xf32>, tensor<?x3x3x2xf32>) {
  %0 = kiln.adaptive_max_pool2d %x size [1, 1] : tensor<?x3x5x7xf32> -> tensor<?x3x1x1xf32>
  %1 = kiln.adaptive_max_pool2d %x size [3, 2] : tensor<?x3x5x7xf32> -> tensor<?x3x3x2xf32>
  return %0, %1 : tensor<?x3x1x1xf32>, tensor<?x3x3x2xf32>
}

// -----

// conv_transpose2d is conv2d_backward_input with the result's shape (its
// output_padding), plus the bias per channel; conv_transpose1d goes through
// a 2-D one of height 1.

// CHECK-LABEL: func.func @conv_transpose(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x4x5x5xf32>, %[[W:[^:]+]]: tensor<4x3x3x3xf32>, %[[B:[^:]+]]: tensor<6xf32>, %[[X1:[^:]+]]: tensor<2x4x7xf32>, %[[W1:[^:]+]]: tensor<4x1x3xf32>
// CHECK: %[[Y0:.*]] = kiln.conv2d_backward_input %[[X]], %[[W]] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x10x10xf32>
// CHECK-NEXT: %[[Y1:.*]] = kiln.conv2d_backward_input %[[X]], %[[W]] stride [2, 1] padding [0, 1] dilation [1, 2] groups 2 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x6x11x7xf32>
// CHECK-NEXT: %[[BV:.*]] = kiln.unsqueeze %[[B]] [0, 2, 3] : tensor<6xf32> -> tensor<1x6x1x1xf32>
// CHECK-NEXT: %[[Y1B:.*]] = kiln.add %[[Y1]], %[[BV]]
// CHECK-NEXT: %[[X2:.*]] = kiln.unsqueeze %[[X1]] [2] : tensor<2x4x7xf32> -> tensor<2x4x1x7xf32>
// CHECK-NEXT: %[[W2:.*]] = kiln.unsqueeze %[[W1]] [2] : tensor<4x1x3xf32> -> tensor<4x1x1x3xf32>
// CHECK-NEXT: %[[Y2:.*]] = kiln.conv2d_backward_input %[[X2]], %[[W2]] stride [1, 2] padding [0, 0] dilation [1, 1] groups 4 : (tensor<2x4x1x7xf32>, tensor<4x1x1x3xf32>) -> tensor<2x4x1x16xf32>
// CHECK-NEXT: %[[Y2S:.*]] = kiln.squeeze %[[Y2]] [2] : tensor<2x4x1x16xf32> -> tensor<2x4x16xf32>
// CHECK-NEXT: return %[[Y0]], %[[Y1B]], %[[Y2S]]
func.func @conv_transpose(%x: tensor<?x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>, %x1: tensor<2x4x7xf32>, %w1: tensor<4x1x3xf32>) -> (tensor<?x3x10x10xf32>, tensor<?x6x11x7xf32>, tensor<2x4x16xf32>) {
  %0 = kiln.conv_transpose2d %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x10x10xf32>
  %1 = kiln.conv_transpose2d %x, %w, %b stride [2, 1] padding [0, 1] output_padding [0, 0] dilation [1, 2] groups 2 : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<?x6x11x7xf32>
  %2 = kiln.conv_transpose1d %x1, %w1 stride [2] padding [0] output_padding [1] dilation [1] groups 4 : (tensor<2x4x7xf32>, tensor<4x1x3xf32>) -> tensor<2x4x16xf32>
  return %0, %1, %2 : tensor<?x3x10x10xf32>, tensor<?x6x11x7xf32>, tensor<2x4x16xf32>
}

// -----

// max_pool: a plain 2-D window is kiln.max_pool2d; a ceil-mode window past
// the input pads it with -inf on the high side, and the result is the
// maximum of one strided slice per window offset; a 1-D pooling is a 2-D
// one of height 1.

// CHECK-LABEL: func.func @max_pool(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x3x5x6xf32>, %[[Y:[^:]+]]: tensor<2x3x9xf32>
// CHECK: %[[PLAIN:.*]] = kiln.max_pool2d %[[X]] kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<?x3x5x6xf32> -> tensor<?x3x2x3xf32>
// CHECK-NEXT: %[[P:.*]] = kiln.pad %[[X]] low [0, 0, 0, 0] high [0, 0, 1, 0] value 0xFFF0000000000000 : tensor<?x3x5x6xf32> -> tensor<?x3x6x6xf32>
// CHECK-NEXT: %[[S00:.*]] = kiln.slice %[[P]] [0, 0, 0, 0] [9223372036854775807, 9223372036854775807, 5, 5] [1, 1, 2, 2] : tensor<?x3x6x6xf32> -> tensor<?x3x3x3xf32>
// CHECK-NEXT: %[[S01:.*]] = kiln.slice %[[P]] [0, 0, 0, 1] [9223372036854775807, 9223372036854775807, 5, 6] [1, 1, 2, 2]
// CHECK-NEXT: %[[M1:.*]] = kiln.max %[[S00]], %[[S01]]
// CHECK-NEXT: %[[S10:.*]] = kiln.slice %[[P]] [0, 0, 1, 0]
// CHECK-NEXT: %[[M2:.*]] = kiln.max %[[M1]], %[[S10]]
// CHECK-NEXT: %[[S11:.*]] = kiln.slice %[[P]] [0, 0, 1, 1]
// CHECK-NEXT: %[[CEIL:.*]] = kiln.max %[[M2]], %[[S11]] : (tensor<?x3x3x3xf32>, tensor<?x3x3x3xf32>) -> tensor<?x3x3x3xf32>
// CHECK-NEXT: %[[Y2:.*]] = kiln.unsqueeze %[[Y]] [2] : tensor<2x3x9xf32> -> tensor<2x3x1x9xf32>
// CHECK-NEXT: %[[YP:.*]] = kiln.pad %[[Y2]] low [0, 0, 0, 1] high [0, 0, 0, 1] value 0xFFF0000000000000
// CHECK-NEXT: %[[D0:.*]] = kiln.slice %[[YP]] [0, 0, 0, 0] [9223372036854775807, 9223372036854775807, 1, 7] [1, 1, 1, 2] : tensor<2x3x1x11xf32> -> tensor<2x3x1x4xf32>
// CHECK-NEXT: %[[D1:.*]] = kiln.slice %[[YP]] [0, 0, 0, 2] [9223372036854775807, 9223372036854775807, 1, 9] [1, 1, 1, 2]
// CHECK-NEXT: %[[DM:.*]] = kiln.max %[[D0]], %[[D1]]
// CHECK-NEXT: %[[D2:.*]] = kiln.slice %[[YP]] [0, 0, 0, 4] [9223372036854775807, 9223372036854775807, 1, 11] [1, 1, 1, 2]
// CHECK-NEXT: %[[DM2:.*]] = kiln.max %[[DM]], %[[D2]]
// CHECK-NEXT: %[[DIL:.*]] = kiln.squeeze %[[DM2]] [2] : tensor<2x3x1x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[PLAIN]], %[[CEIL]], %[[DIL]]
func.func @max_pool(%x: tensor<?x3x5x6xf32>, %y: tensor<2x3x9xf32>) -> (tensor<?x3x2x3xf32>, tensor<?x3x3x3xf32>, tensor<2x3x4xf32>) {
  %0 = kiln.max_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x3x5x6xf32> -> tensor<?x3x2x3xf32>
  %1 = kiln.max_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode : tensor<?x3x5x6xf32> -> tensor<?x3x3x3xf32>
  %2 = kiln.max_pool %y kernel [3] stride [2] padding [1] dilation [2] : tensor<2x3x9xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<?x3x2x3xf32>, tensor<?x3x3x3xf32>, tensor<2x3x4xf32>
}

// -----

// max_pool_indices: the offsets are scanned in order; a greater value (or
// a NaN) takes its place and its flat input index (a constant map per
// offset; the ceil-mode column past the 3 x 3 input is clamped to it).

// CHECK-LABEL: func.func @max_pool_indices(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x1x3x3xf32>
// CHECK-DAG: %[[I01:.*]] = kiln.constant dense<{{\[\[}}1, 2], [7, 8]]> : tensor<2x2xi64>
// CHECK-DAG: %[[I00:.*]] = kiln.constant dense<{{\[\[\[\[}}0, 2], [6, 8]]]]> : tensor<1x1x2x2xi64>
// CHECK: %[[P:.*]] = kiln.pad %[[X]] low [0, 0, 0, 0] high [0, 0, 0, 1] value 0xFFF0000000000000
// CHECK-NEXT: %[[V0:.*]] = kiln.slice %[[P]] [0, 0, 0, 0] [9223372036854775807, 9223372036854775807, 3, 3] [1, 1, 2, 2]
// CHECK-NEXT: %[[V1:.*]] = kiln.slice %[[P]] [0, 0, 0, 1] [9223372036854775807, 9223372036854775807, 3, 4] [1, 1, 2, 2]
// CHECK-NEXT: %[[GT:.*]] = kiln.gt %[[V1]], %[[V0]]
// CHECK-NEXT: %[[NAN:.*]] = kiln.ne %[[V1]], %[[V1]]
// CHECK-NEXT: %[[TAKE:.*]] = kiln.or %[[GT]], %[[NAN]]
// CHECK-NEXT: %[[IDX:.*]] = kiln.where %[[TAKE]], %[[I01]], %[[I00]] : (tensor<1x1x2x2xi1>, tensor<2x2xi64>, tensor<1x1x2x2xi64>) -> tensor<1x1x2x2xi64>
// CHECK-NEXT: return %[[IDX]]
func.func @max_pool_indices(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xi64> {
  %0 = kiln.max_pool_indices %x kernel [1, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode : tensor<1x1x3x3xf32> -> tensor<1x1x2x2xi64>
  return %0 : tensor<1x1x2x2xi64>
}

// -----

// avg_pool: a plain window is kiln.avg_pool2d; a ceil-mode window sums one
// slice per offset of the zero-padded input and multiplies by a constant
// map of 1 / divisor (here a last row and column of windows clipped to the
// 5 x 5 input: divisors 2 and 1 where the full window's is 4).

// CHECK-LABEL: func.func @avg_pool(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x5x5xf32>
// CHECK-DAG: %[[DIV:.*]] = kiln.constant dense<{{\[\[}}2.500000e-01, 2.500000e-01, 5.000000e-01], [2.500000e-01, 2.500000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01, 1.000000e+00]]> : tensor<3x3xf32>
// CHECK: %[[PLAIN:.*]] = kiln.avg_pool2d %[[X]] kernel [2, 2] stride [2, 2] padding [0, 0] count_include_pad : tensor<2x3x5x5xf32> -> tensor<2x3x2x2xf32>
// CHECK-NEXT: %[[P:.*]] = kiln.pad %[[X]] low [0, 0, 0, 0] high [0, 0, 1, 1] value 0.000000e+00
// CHECK-NEXT: %[[S0:.*]] = kiln.slice %[[P]] [0, 0, 0, 0]
// CHECK-NEXT: %[[S1:.*]] = kiln.slice %[[P]] [0, 0, 0, 1]
// CHECK-NEXT: %[[A1:.*]] = kiln.add %[[S0]], %[[S1]]
// CHECK-NEXT: %[[S2:.*]] = kiln.slice %[[P]] [0, 0, 1, 0]
// CHECK-NEXT: %[[A2:.*]] = kiln.add %[[A1]], %[[S2]]
// CHECK-NEXT: %[[S3:.*]] = kiln.slice %[[P]] [0, 0, 1, 1]
// CHECK-NEXT: %[[A3:.*]] = kiln.add %[[A2]], %[[S3]]
// CHECK-NEXT: %[[Y:.*]] = kiln.mul %[[A3]], %[[DIV]] : (tensor<2x3x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3x3xf32>
// CHECK-NEXT: return %[[PLAIN]], %[[Y]]
func.func @avg_pool(%x: tensor<2x3x5x5xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x3x3xf32>) {
  %0 = kiln.avg_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] count_include_pad : tensor<2x3x5x5xf32> -> tensor<2x3x2x2xf32>
  %1 = kiln.avg_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] count_include_pad ceil_mode : tensor<2x3x5x5xf32> -> tensor<2x3x3x3xf32>
  return %0, %1 : tensor<2x3x2x2xf32>, tensor<2x3x3x3xf32>
}

// -----

// interpolate: nearest is an index_select per resized dim (source rows
// floor(o * in / out)); linear is a constant [out, in] matrix per dim,
// multiplied on the left for H and on the right (transposed) for the last
// dim, here with aligned corners (2 -> 3 rows: 0, the middle, 1) and, in
// 1-D, a given scale of 1.5 (4 -> 6).

// CHECK-LABEL: func.func @interpolate(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x3x2x3xf32>, %[[Y:[^:]+]]: tensor<2x3x4xf32>
// CHECK-DAG: %[[L1:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 5.000000e-01, 0.833333313, 0.166666672, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.166666672, 0.833333313, 5.000000e-01, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e-01, 1.000000e+00]]> : tensor<4x6xf32>
// CHECK-DAG: %[[AC:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [5.000000e-01, 5.000000e-01], [0.000000e+00, 1.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: %[[NW:.*]] = kiln.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi64>
// CHECK-DAG: %[[NH:.*]] = kiln.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK: %[[R:.*]] = kiln.index_select %[[X]][%[[NH]]] axis = 2 : (tensor<?x3x2x3xf32>, tensor<4xi64>) -> tensor<?x3x4x3xf32>
// CHECK-NEXT: %[[N:.*]] = kiln.index_select %[[R]][%[[NW]]] axis = 3 : (tensor<?x3x4x3xf32>, tensor<6xi64>) -> tensor<?x3x4x6xf32>
// CHECK-NEXT: %[[A:.*]] = kiln.matmul %[[AC]], %[[X]] : (tensor<3x2xf32>, tensor<?x3x2x3xf32>) -> tensor<?x3x3x3xf32>
// CHECK-NEXT: %[[L:.*]] = kiln.matmul %[[Y]], %[[L1]] : (tensor<2x3x4xf32>, tensor<4x6xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT: return %[[N]], %[[A]], %[[L]]
func.func @interpolate(%x: tensor<?x3x2x3xf32>, %y: tensor<2x3x4xf32>) -> (tensor<?x3x4x6xf32>, tensor<?x3x3x3xf32>, tensor<2x3x6xf32>) {
  %0 = kiln.interpolate %x size [4, 6] mode nearest : tensor<?x3x2x3xf32> -> tensor<?x3x4x6xf32>
  %1 = kiln.interpolate %x size [3, 3] mode linear align_corners : tensor<?x3x2x3xf32> -> tensor<?x3x3x3xf32>
  %2 = kiln.interpolate %y size [6] mode linear scales [1.5] : tensor<2x3x4xf32> -> tensor<2x3x6xf32>
  return %0, %1, %2 : tensor<?x3x4x6xf32>, tensor<?x3x3x3xf32>, tensor<2x3x6xf32>
}
