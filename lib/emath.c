/* stub: being written */
#include "core.h"
#include <math.h>
float eddy_expf(float x) { return (float)exp(x); }
float eddy_cbrtf(float x) { return (float)cbrt(x); }
float eddy_sinf(float x) { return (float)sin(x); }
float eddy_cosf(float x) { return (float)cos(x); }
float eddy_logf(float x) { return (float)log(x); }
float eddy_tanhf(float x) { return (float)tanh(x); }
float eddy_atan2f(float y, float x) { return (float)atan2(y, x); }
