#include "kiln/Engine/Engine.h"
