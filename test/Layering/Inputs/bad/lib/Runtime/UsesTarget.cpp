#include "kiln/Target/Target.h"
