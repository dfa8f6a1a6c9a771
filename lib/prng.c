/* stub: being written */
#include "core.h"
eddy_rng eddy_rng_seed(uint64_t seed, uint64_t stream) { eddy_rng r = {seed, stream * 2u + 1u}; return r; }
uint32_t eddy_rng_next_u32(eddy_rng *r) { r->state = r->state * 6364136223846793005ull + r->inc; return (uint32_t)(r->state >> 33); }
float eddy_rng_next_float(eddy_rng *r) { return (float)(eddy_rng_next_u32(r) >> 8) * (1.0f / 16777216.0f); }
float eddy_rng_spread(eddy_rng *r, float s) { return s * (eddy_rng_next_float(r) - 0.5f); }
