#include "kiln/Transforms/Fusion.h"
