// Inputs bind in order, or by name (%argN, argN or N), or both.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py write %t/a.npy f32 3 10 20 30
// RUN: %python %S/Inputs/npy.py write %t/b.npy f32 3 1 2 3
// RUN: tensor-run %s --function sub %t/a.npy %t/b.npy --output-dir %t --print | FileCheck %s --check-prefix=AB
// RUN: tensor-run %s --function sub %t/b.npy %t/a.npy --output-dir %t --print | FileCheck %s --check-prefix=BA
// RUN: tensor-run %s --function sub --input %arg1=%t/b.npy --input %arg0=%t/a.npy --output-dir %t --print | FileCheck %s --check-prefix=AB
// RUN: tensor-run %s --function sub --input 1=%t/a.npy --input 0=%t/b.npy --output-dir %t --print | FileCheck %s --check-prefix=BA
// RUN: tensor-run %s --function=sub --input=arg1=%t/b.npy --input arg0=%t/a.npy --output-dir=%t --print | FileCheck %s --check-prefix=AB
// Positional files bind the first arguments, named ones the others.
// RUN: tensor-run %s --function sub %t/a.npy --input 1=%t/b.npy --output-dir %t --print | FileCheck %s --check-prefix=AB
// RUN: tensor-run %s --function sub --input %arg1=%t/a.npy %t/b.npy --output-dir %t --print | FileCheck %s --check-prefix=BA
// The default function is @main; outputs are named after the function.
// RUN: tensor-run %s %t/a.npy --output-dir %t --print | FileCheck %s --check-prefix=MAIN
// RUN: tensor-run %s --function none --output-dir %t --print | FileCheck %s --check-prefix=NONE

// AB: {{.*}}/sub_0.npy = [9, 18, 27] (shape [3])
// BA: {{.*}}/sub_0.npy = [-9, -18, -27] (shape [3])
// MAIN: {{.*}}/main_0.npy = [20, 40, 60] (shape [3])
// NONE: {{.*}}/none_0.npy = [1.5] (shape [])
func.func @sub(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.sub %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.add %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

func.func @none() -> tensor<f32> {
  %0 = kiln.constant dense<1.5> : tensor<f32>
  return %0 : tensor<f32>
}
