#include "kiln/API/Types.h"
