// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the indexing ops (KilnIndexingOps.td).

func.func @gather_indices_rank(%x: tensor<2x5xf32>, %i: tensor<3xi64>) {
  // expected-error@+2 {{'kiln.gather' op indices of shape [3] must have the input's rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_indices_exceed(%x: tensor<2x5xf32>, %i: tensor<3x1xi64>) {
  // expected-error@+2 {{'kiln.gather' op indices of shape [3, 1] exceed input [2, 5] in dim 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<3x1xi64>) -> tensor<3x1xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<2x5xf32>, %i: tensor<2x3xi64>) {
  // expected-error@+2 {{'kiln.gather' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x[%i] axis = 2 : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<2x5xf32>, %i: tensor<2x3xf32>) {
  // expected-error@+1 {{'kiln.gather' op operand #1 must be ranked tensor of i64/i32 indices, but got 'tensor<2x3xf32>'}}
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<2x5xf32>, %i: tensor<2x3xi32>) {
  // expected-error@+2 {{'kiln.gather' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.gather %x[%i] axis = 1 : (tensor<2x5xf32>, tensor<2x3xi32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @scatter_add_updates_shape(%u: tensor<3x3xf32>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>) {
  // expected-error@+2 {{'kiln.scatter_add' op updates of shape [3, 3] must match indices of shape [3, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3x3xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_updates_rank(%u: tensor<6xf32>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>) {
  // expected-error@+2 {{'kiln.scatter_add' op updates of shape [6] must match indices of shape [3, 2]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<6xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_dtype(%u: tensor<3x2xf16>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>) {
  // expected-error@+2 {{'kiln.scatter_add' op dtype mismatch between operands (f32[4, 2], f16[3, 2])}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3x2xf16>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_axis(%u: tensor<3x2xf32>, %x: tensor<4x2xf32>, %i: tensor<3x2xi64>) {
  // expected-error@+2 {{'kiln.scatter_add' op axis -1 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.scatter_add %u into %x[%i] axis = -1 : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_of_bool(%u: tensor<3xi1>, %x: tensor<4xi1>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'kiln.scatter_add' op operand #0 must be ranked tensor of a numeric (non-bool) dtype}}
  %0 = kiln.scatter_add %u into %x[%i] axis = 0 : (tensor<3xi1>, tensor<4xi1>, tensor<3xi64>) -> tensor<4xi1>
  return
}

// -----

func.func @index_select_indices_not_1d(%x: tensor<10x4xf32>, %i: tensor<3x1xi64>) {
  // expected-error@+2 {{'kiln.index_select' op indices must be 1-D, got [3, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.index_select %x[%i] axis = 0 : (tensor<10x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @index_select_axis(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+2 {{'kiln.index_select' op axis 2 is out of range for rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.index_select %x[%i] axis = 2 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @index_select_small_index_dtype(%x: tensor<10x4xf32>, %i: tensor<3xi16>) {
  // expected-error@+1 {{'kiln.index_select' op operand #1 must be ranked tensor of i64/i32 indices, but got 'tensor<3xi16>'}}
  %0 = kiln.index_select %x[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi16>) -> tensor<3x4xf32>
  return
}

// -----

func.func @mask_fill_mask_shape(%x: tensor<2x3xf32>, %m: tensor<2x4xi1>) {
  // expected-error@+2 {{'kiln.mask_fill' op mask of shape [2, 4] does not broadcast to the input [2, 3] (dim 1: 4 vs 3)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.mask_fill %x, %m value 0.0 : (tensor<2x3xf32>, tensor<2x4xi1>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mask_fill_mask_rank(%x: tensor<3xf32>, %m: tensor<2x3xi1>) {
  // expected-error@+2 {{'kiln.mask_fill' op mask of shape [2, 3] has more dims than the input [3]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.mask_fill %x, %m value 0.0 : (tensor<3xf32>, tensor<2x3xi1>) -> tensor<3xf32>
  return
}

// -----

func.func @mask_fill_mask_not_bool(%x: tensor<3xf32>, %m: tensor<3xi8>) {
  // expected-error@+1 {{'kiln.mask_fill' op operand #1 must be ranked tensor of bool (i1), but got 'tensor<3xi8>'}}
  %0 = kiln.mask_fill %x, %m value 0.0 : (tensor<3xf32>, tensor<3xi8>) -> tensor<3xf32>
  return
}

// -----

func.func @mask_fill_value_not_int(%x: tensor<3xi32>, %m: tensor<3xi1>) {
  // expected-error@+1 {{'kiln.mask_fill' op fill value 5.000000e-01 is not an integer, but the dtype is 'i32'}}
  %0 = kiln.mask_fill %x, %m value 0.5 : (tensor<3xi32>, tensor<3xi1>) -> tensor<3xi32>
  return
}

// -----

func.func @mask_fill_value_out_of_range(%x: tensor<3xi16>, %m: tensor<3xi1>) {
  // expected-error@+1 {{'kiln.mask_fill' op fill value -1.000000e+09 is out of range for 'i16'}}
  %0 = kiln.mask_fill %x, %m value -1.0e9 : (tensor<3xi16>, tensor<3xi1>) -> tensor<3xi16>
  return
}

// -----

func.func @one_hot_result_rank(%i: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.one_hot' op result shape [4] must be the indices shape [4] plus a class dim}}
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @one_hot_result_shape(%i: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.one_hot' op result shape [5, 10] must be the indices shape [4] plus a class dim}}
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<5x10xf32>
  return
}

// -----

func.func @one_hot_dynamic_classes(%i: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.one_hot' op the class dim must be static and >= 1}}
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<4x?xf32>
  return
}

// -----

func.func @one_hot_no_classes(%i: tensor<4xi64>) {
  // expected-error@+1 {{'kiln.one_hot' op the class dim must be static and >= 1}}
  %0 = kiln.one_hot %i : tensor<4xi64> -> tensor<4x0xf32>
  return
}

// -----

func.func @one_hot_float_indices(%i: tensor<4xf32>) {
  // expected-error@+1 {{'kiln.one_hot' op operand #0 must be ranked tensor of i64/i32 indices}}
  %0 = kiln.one_hot %i : tensor<4xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @embedding_weight_rank(%w: tensor<100xf32>, %i: tensor<4xi64>) {
  // expected-error@+2 {{'kiln.embedding' op weight must be [vocab, dim], got [100]}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.embedding %w[%i] : (tensor<100xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @embedding_result(%w: tensor<100x16xf32>, %i: tensor<4x8xi64>) {
  // expected-error@+2 {{'kiln.embedding' op inferred type(s) 'tensor<4x8x16xf32>' are incompatible with return type(s) of operation 'tensor<32x16xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4x8xi64>) -> tensor<32x16xf32>
  return
}

// -----

func.func @embedding_bool_indices(%w: tensor<100x16xf32>, %i: tensor<4xi1>) {
  // expected-error@+1 {{'kiln.embedding' op operand #1 must be ranked tensor of i64/i32 indices, but got 'tensor<4xi1>'}}
  %0 = kiln.embedding %w[%i] : (tensor<100x16xf32>, tensor<4xi1>) -> tensor<4x16xf32>
  return
}
