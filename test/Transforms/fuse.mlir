// RUN: tensor-opt %s --kiln-decompose --canonicalize --kiln-fuse -split-input-file | FileCheck %s

// Softmax becomes one row kernel; the matmul takes bias, gelu and the
// residual as its epilogue.
// CHECK-LABEL: func.func private @main_kernel0_reduction
// CHECK-SAME: kiln.kernel = #kiln.kernel_kind<reduction>, kiln.reduced_axes = array<i64: 1>
// CHECK: kiln.reduce_max
// CHECK: kiln.exp
// CHECK: kiln.sum
// CHECK: kiln.recip
// CHECK: kiln.mul
// CHECK-LABEL: func.func private @main_kernel1_matmul
// CHECK-SAME: kiln.kernel = #kiln.kernel_kind<matmul>
// CHECK: kiln.matmul
// CHECK: kiln.add
// CHECK: kiln.gelu
// CHECK: kiln.add
// CHECK-LABEL: func.func @main
// CHECK: %[[S:.*]] = call @main_kernel0_reduction(%arg0)
// CHECK: %[[M:.*]] = call @main_kernel1_matmul(%[[S]], %arg1, %arg2, %arg3)
// CHECK: return %[[S]], %[[M]]
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) {
  %0 = kiln.softmax %x axis = 1 : tensor<4x16xf32>
  %1 = kiln.matmul %0, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %2 = kiln.add %1, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = kiln.gelu %2 approximate = tanh : tensor<4x8xf32>
  %4 = kiln.add %3, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %4 : tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// An elementwise chain is one kernel; a value used by two kernels is
// computed once, in its own kernel.
// CHECK-LABEL: func.func private @main_kernel0_elementwise
// CHECK: kiln.mul
// CHECK-NOT: kiln.exp
// CHECK: return
// CHECK-LABEL: func.func private @main_kernel1_elementwise
// CHECK: kiln.exp
// CHECK-LABEL: func.func private @main_kernel2_reduction
// CHECK: kiln.sum
// CHECK-LABEL: func.func @main
// CHECK: %[[P:.*]] = call @main_kernel0_elementwise
// CHECK: call @main_kernel1_elementwise(%[[P]])
// CHECK: call @main_kernel2_reduction(%[[P]])
func.func @main(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
  %0 = kiln.mul %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = kiln.exp %0 : tensor<64xf32>
  %2 = kiln.sum %0 [0] : tensor<64xf32> -> tensor<f32>
  return %1, %2 : tensor<64xf32>, tensor<f32>
}

// -----

// Layout ops stay outside kernels; other ops get a kernel each.
// CHECK-LABEL: func.func private @main_kernel0_generic
// CHECK: kiln.gather
// CHECK-LABEL: func.func @main
// CHECK: kiln.permute
// CHECK: call @main_kernel0_generic
func.func @main(%x: tensor<4x8xf32>, %i: tensor<8x2xi64>) -> tensor<8x2xf32> {
  %t = kiln.permute %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %g = kiln.gather %t[%i] axis = 1 : (tensor<8x4xf32>, tensor<8x2xi64>) -> tensor<8x2xf32>
  return %g : tensor<8x2xf32>
}

// -----

// A chain longer than 256 ops is cut: fusion grows kernels from the
// result, so the kernel of the last 256 adds runs second and the first
// kernel takes the 4 left over.
// CHECK-LABEL: func.func private @long_chain_kernel0_elementwise
// CHECK-COUNT-4: kiln.add
// CHECK-NOT: kiln.add
// CHECK: return
// CHECK-LABEL: func.func private @long_chain_kernel1_elementwise
// CHECK-COUNT-256: kiln.add
// CHECK-NOT: kiln.add
// CHECK: return
// CHECK-LABEL: func.func @long_chain
// CHECK: call @long_chain_kernel0_elementwise
// CHECK: call @long_chain_kernel1_elementwise
func.func @long_chain(%x: tensor<16xf32>, %c: tensor<16xf32>) -> tensor<16xf32> {
  %v0 = kiln.add %x, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v1 = kiln.add %v0, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v2 = kiln.add %v1, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v3 = kiln.add %v2, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v4 = kiln.add %v3, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v5 = kiln.add %v4, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v6 = kiln.add %v5, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v7 = kiln.add %v6, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v8 = kiln.add %v7, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v9 = kiln.add %v8, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v10 = kiln.add %v9, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v11 = kiln.add %v10, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v12 = kiln.add %v11, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v13 = kiln.add %v12, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v14 = kiln.add %v13, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v15 = kiln.add %v14, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v16 = kiln.add %v15, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v17 = kiln.add %v16, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v18 = kiln.add %v17, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v19 = kiln.add %v18, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v20 = kiln.add %v19, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v21 = kiln.add %v20, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v22 = kiln.add %v21, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v23 = kiln.add %v22, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v24 = kiln.add %v23, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v25 = kiln.add %v24, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v26 = kiln.add %v25, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v27 = kiln.add %v26, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v28 = kiln.add %v27, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v29 = kiln.add %v28, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v30 = kiln.add %v29, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v31 = kiln.add %v30, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v32 = kiln.add %v31, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v33 = kiln.add %v32, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v34 = kiln.add %v33, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v35 = kiln.add %v34, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v36 = kiln.add %v35, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v37 = kiln.add %v36, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v38 = kiln.add %v37, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v39 = kiln.add %v38, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v40 = kiln.add %v39, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v41 = kiln.add %v40, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v42 = kiln.add %v41, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v43 = kiln.add %v42, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v44 = kiln.add %v43, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v45 = kiln.add %v44, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v46 = kiln.add %v45, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v47 = kiln.add %v46, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v48 = kiln.add %v47, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v49 = kiln.add %v48, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v50 = kiln.add %v49, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v51 = kiln.add %v50, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v52 = kiln.add %v51, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v53 = kiln.add %v52, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v54 = kiln.add %v53, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v55 = kiln.add %v54, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v56 = kiln.add %v55, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v57 = kiln.add %v56, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v58 = kiln.add %v57, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v59 = kiln.add %v58, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v60 = kiln.add %v59, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v61 = kiln.add %v60, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v62 = kiln.add %v61, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v63 = kiln.add %v62, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v64 = kiln.add %v63, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v65 = kiln.add %v64, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v66 = kiln.add %v65, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v67 = kiln.add %v66, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v68 = kiln.add %v67, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v69 = kiln.add %v68, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v70 = kiln.add %v69, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v71 = kiln.add %v70, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v72 = kiln.add %v71, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v73 = kiln.add %v72, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v74 = kiln.add %v73, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v75 = kiln.add %v74, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v76 = kiln.add %v75, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v77 = kiln.add %v76, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v78 = kiln.add %v77, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v79 = kiln.add %v78, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v80 = kiln.add %v79, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v81 = kiln.add %v80, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v82 = kiln.add %v81, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v83 = kiln.add %v82, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v84 = kiln.add %v83, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v85 = kiln.add %v84, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v86 = kiln.add %v85, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v87 = kiln.add %v86, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v88 = kiln.add %v87, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v89 = kiln.add %v88, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v90 = kiln.add %v89, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v91 = kiln.add %v90, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v92 = kiln.add %v91, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v93 = kiln.add %v92, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v94 = kiln.add %v93, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v95 = kiln.add %v94, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v96 = kiln.add %v95, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v97 = kiln.add %v96, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v98 = kiln.add %v97, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v99 = kiln.add %v98, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v100 = kiln.add %v99, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v101 = kiln.add %v100, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v102 = kiln.add %v101, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v103 = kiln.add %v102, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v104 = kiln.add %v103, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v105 = kiln.add %v104, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v106 = kiln.add %v105, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v107 = kiln.add %v106, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v108 = kiln.add %v107, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v109 = kiln.add %v108, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v110 = kiln.add %v109, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v111 = kiln.add %v110, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v112 = kiln.add %v111, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v113 = kiln.add %v112, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v114 = kiln.add %v113, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v115 = kiln.add %v114, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v116 = kiln.add %v115, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v117 = kiln.add %v116, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v118 = kiln.add %v117, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v119 = kiln.add %v118, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v120 = kiln.add %v119, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v121 = kiln.add %v120, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v122 = kiln.add %v121, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v123 = kiln.add %v122, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v124 = kiln.add %v123, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v125 = kiln.add %v124, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v126 = kiln.add %v125, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v127 = kiln.add %v126, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v128 = kiln.add %v127, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v129 = kiln.add %v128, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v130 = kiln.add %v129, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v131 = kiln.add %v130, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v132 = kiln.add %v131, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v133 = kiln.add %v132, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v134 = kiln.add %v133, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v135 = kiln.add %v134, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v136 = kiln.add %v135, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v137 = kiln.add %v136, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v138 = kiln.add %v137, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v139 = kiln.add %v138, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v140 = kiln.add %v139, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v141 = kiln.add %v140, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v142 = kiln.add %v141, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v143 = kiln.add %v142, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v144 = kiln.add %v143, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v145 = kiln.add %v144, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v146 = kiln.add %v145, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v147 = kiln.add %v146, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v148 = kiln.add %v147, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v149 = kiln.add %v148, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v150 = kiln.add %v149, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v151 = kiln.add %v150, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v152 = kiln.add %v151, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v153 = kiln.add %v152, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v154 = kiln.add %v153, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v155 = kiln.add %v154, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v156 = kiln.add %v155, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v157 = kiln.add %v156, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v158 = kiln.add %v157, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v159 = kiln.add %v158, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v160 = kiln.add %v159, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v161 = kiln.add %v160, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v162 = kiln.add %v161, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v163 = kiln.add %v162, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v164 = kiln.add %v163, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v165 = kiln.add %v164, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v166 = kiln.add %v165, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v167 = kiln.add %v166, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v168 = kiln.add %v167, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v169 = kiln.add %v168, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v170 = kiln.add %v169, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v171 = kiln.add %v170, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v172 = kiln.add %v171, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v173 = kiln.add %v172, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v174 = kiln.add %v173, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v175 = kiln.add %v174, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v176 = kiln.add %v175, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v177 = kiln.add %v176, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v178 = kiln.add %v177, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v179 = kiln.add %v178, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v180 = kiln.add %v179, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v181 = kiln.add %v180, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v182 = kiln.add %v181, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v183 = kiln.add %v182, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v184 = kiln.add %v183, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v185 = kiln.add %v184, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v186 = kiln.add %v185, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v187 = kiln.add %v186, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v188 = kiln.add %v187, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v189 = kiln.add %v188, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v190 = kiln.add %v189, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v191 = kiln.add %v190, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v192 = kiln.add %v191, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v193 = kiln.add %v192, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v194 = kiln.add %v193, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v195 = kiln.add %v194, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v196 = kiln.add %v195, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v197 = kiln.add %v196, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v198 = kiln.add %v197, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v199 = kiln.add %v198, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v200 = kiln.add %v199, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v201 = kiln.add %v200, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v202 = kiln.add %v201, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v203 = kiln.add %v202, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v204 = kiln.add %v203, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v205 = kiln.add %v204, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v206 = kiln.add %v205, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v207 = kiln.add %v206, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v208 = kiln.add %v207, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v209 = kiln.add %v208, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v210 = kiln.add %v209, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v211 = kiln.add %v210, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v212 = kiln.add %v211, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v213 = kiln.add %v212, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v214 = kiln.add %v213, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v215 = kiln.add %v214, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v216 = kiln.add %v215, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v217 = kiln.add %v216, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v218 = kiln.add %v217, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v219 = kiln.add %v218, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v220 = kiln.add %v219, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v221 = kiln.add %v220, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v222 = kiln.add %v221, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v223 = kiln.add %v222, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v224 = kiln.add %v223, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v225 = kiln.add %v224, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v226 = kiln.add %v225, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v227 = kiln.add %v226, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v228 = kiln.add %v227, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v229 = kiln.add %v228, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v230 = kiln.add %v229, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v231 = kiln.add %v230, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v232 = kiln.add %v231, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v233 = kiln.add %v232, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v234 = kiln.add %v233, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v235 = kiln.add %v234, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v236 = kiln.add %v235, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v237 = kiln.add %v236, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v238 = kiln.add %v237, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v239 = kiln.add %v238, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v240 = kiln.add %v239, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v241 = kiln.add %v240, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v242 = kiln.add %v241, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v243 = kiln.add %v242, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v244 = kiln.add %v243, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v245 = kiln.add %v244, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v246 = kiln.add %v245, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v247 = kiln.add %v246, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v248 = kiln.add %v247, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v249 = kiln.add %v248, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v250 = kiln.add %v249, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v251 = kiln.add %v250, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v252 = kiln.add %v251, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v253 = kiln.add %v252, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v254 = kiln.add %v253, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v255 = kiln.add %v254, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v256 = kiln.add %v255, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v257 = kiln.add %v256, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v258 = kiln.add %v257, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %v259 = kiln.add %v258, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %v259 : tensor<16xf32>
}

// -----

// argsort runs as a runtime step: the exp before it and the gather after it
// are kernels, and it stays between them in main.
// CHECK-LABEL: func.func @sort_between_kernels(
// CHECK: %[[E:.*]] = call @sort_between_kernels_kernel0_elementwise(%arg0)
// CHECK-NEXT: %[[I:.*]] = kiln.argsort %[[E]] axis = 1 descending
// CHECK-NEXT: call @sort_between_kernels_kernel1_{{[a-z]+}}(%[[E]], %[[I]])
func.func @sort_between_kernels(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.exp %x : tensor<4x8xf32>
  %i = kiln.argsort %e axis = 1 descending : tensor<4x8xf32> -> tensor<4x8xi64>
  %g = kiln.gather %e[%i] axis = 1 : (tensor<4x8xf32>, tensor<4x8xi64>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
