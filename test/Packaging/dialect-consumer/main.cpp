// An outside project that links Kiln's dialect and passes: parse a kiln
// function, decompose it, and count the ops.
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdio>

int main() {
  mlir::MLIRContext context;
  context.loadDialect<mlir::kiln::KilnDialect, mlir::func::FuncDialect,
                      mlir::tensor::TensorDialect>();
  const char *source = R"(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %y = kiln.softmax %x axis = 1 : tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })";
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::kiln::createKilnDecompose());
  if (mlir::failed(pm.run(*module)))
    return 1;
  int kilnOps = 0;
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "kiln")
      ++kilnOps;
  });
  std::printf("kiln ops after decompose: %d\n", kilnOps);
  return kilnOps > 1 ? 0 : 1;
}
