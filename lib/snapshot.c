/* being written */
#include "core.h"
