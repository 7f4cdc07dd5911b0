#include "lib/Runtime/Flex/FlexKernels.h"
