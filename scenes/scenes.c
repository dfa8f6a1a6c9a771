#include "scenes.h"
