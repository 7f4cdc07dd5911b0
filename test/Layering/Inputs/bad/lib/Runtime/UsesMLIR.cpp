#include "mlir/IR/Operation.h"
