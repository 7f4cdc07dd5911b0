#include "llvm/ADT/ArrayRef.h"
