#include "kiln/Dialect/Kiln/IR/KilnOps.h"
