#include "scenes_internal.h"
