#include "kiln/API/Tensor.h"
