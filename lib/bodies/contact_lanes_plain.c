/* SPDX-License-Identifier: MIT */
/* The tracer narrow phase against a solid (contact_lanes_body.h) in plain C
 * lanes on every platform: the reference the SIMD build must match bit for
 * bit (tests/test_contact_lanes.c). The step never calls it. */
#define EDDY_TREE_PLAIN_LANES 1
#include "runtime/lanes4.h"

#define CONTACT_LANES_ENTRY eddy_contact_tracers_plain
#include "bodies/contact_lanes_body.h"
