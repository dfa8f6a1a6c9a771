/* SPDX-License-Identifier: MIT */
/* The tracer narrow phase against a solid in SIMD lanes where the build has
 * them (SSE2 on x86-64, NEON on aarch64; plain C lanes elsewhere): the code
 * and its design note are in contact_lanes_body.h. */
#include "runtime/lanes4.h"

#define CONTACT_LANES_ENTRY eddy_contact_tracers
#include "bodies/contact_lanes_body.h"
