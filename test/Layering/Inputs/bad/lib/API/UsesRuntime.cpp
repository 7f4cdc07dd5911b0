#include "kiln/Runtime/Backend.h"
