/* SPDX-License-Identifier: MIT */
/* A world's definition: its defaults and its validation (layer core,
 * docs/architecture.md), used by world creation and by the snapshot codec,
 * which checks the definition a snapshot carries. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { EDDY_DEF_COOKIE = 0x0EDD1DEF };

eddy_world_def eddy_world_def_default(void) {
    eddy_world_def d;
    memset(&d, 0, sizeof d);
    /* 1/30 rounded to nearest, as a literal: a division here could run at run
     * time in the caller's rounding mode (clang does not fold it under
     * -fno-unsafe-math-optimizations) and change the definition's bits. */
    d.dt = 0x1.111112p-5f;
    d.substeps = 1;
    d.viscosity = 0.01f;
    d.vorticity_dissipation = 0.01f;
    d.density_diffusivity = 1.0e-4f;
    d.density_relaxation = 1.0e-4f;
    d.diffusion = EDDY_DIFFUSION_NORMALISED; /* docs/physics.md §9 */
    d.ambient_density = 1.0f;
    d.gravity = (eddy_vec3){0.0f, 0.0f, -10.0f};
    d.stretch_gain = 0.5f;
    d.mollify_length_scale = 1.0f;
    d.velocity_method = EDDY_VELOCITY_TREECODE;
    d.treecode_traversal = EDDY_TREECODE_MULTIPOLE; /* docs/accuracy.md */
    d.treecode_opening_angle = EDDY_TREECODE_DEFAULT_OPENING_ANGLE;
    d.vorton_step = EDDY_VORTON_STEP_STRETCH_AB2; /* docs/physics.md §2 */
    d.grid_extent = EDDY_GRID_EXTENT_VORTONS; /* docs/algorithm.md */
    d.vorton_radius = 0.125f;
    d.tracer_radius = 0.01f;
    d.vorton_max_age = -1;
    d.tracer_max_age = -1;
    d.seed = 1;
    d.ambient_temperature = 300.0f;
    d.fluid_specific_heat = 1.0f;
    d.boundary_thickness = 1.5f;
    d.shedding_gain = 0.1f;
    d.spin_gain = 1.0f;
    d.tracer_restitution = 0.01f;
    d.wall_poisoning = EDDY_WALL_POISON_GRID;
    d.body_coupling = EDDY_BODY_COUPLING_FLOW; /* docs/coupling.md §8 */
    d.flush_denormals = false; /* IEEE gradual underflow: the same on every ISA, wasm included */
    d.hash_every_step = true;
    d.worker_count = 1;
    d.internal_value = EDDY_DEF_COOKIE;
    return d;
}




#define DEF_CHECK(cond, ...)                                                                 \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            if (message && message_size) snprintf(message, message_size, __VA_ARGS__);       \
            return EDDY_ERROR_INVALID_DEF;                                                   \
        }                                                                                    \
    } while (0)

eddy_status eddy_world_def_validate(const eddy_world_def *d, char *message, size_t message_size) {
    if (message && message_size) message[0] = '\0';
    if (!d) {
        if (message && message_size) snprintf(message, message_size, "def is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    DEF_CHECK(d->internal_value == EDDY_DEF_COOKIE,
              "def was not initialised with eddy_world_def_default()");
    DEF_CHECK(isfinite(d->dt) && d->dt > 0.0f && d->dt <= 1.0f, "dt must be in (0, 1] s, got %g",
              (double)d->dt);
    DEF_CHECK(d->substeps >= 1 && d->substeps <= 64, "substeps must be in [1, 64], got %d",
              d->substeps);
    DEF_CHECK(isfinite(d->viscosity) && d->viscosity >= 0.0f && d->viscosity <= EDDY_MAX_DIFFUSIVITY,
              "viscosity %g must be in [0, %g] m^2/s", (double)d->viscosity,
              (double)EDDY_MAX_DIFFUSIVITY);
    DEF_CHECK(isfinite(d->vorticity_dissipation) && d->vorticity_dissipation >= 0.0f &&
                  d->vorticity_dissipation * d->dt < 1.0f,
              "vorticity_dissipation must be >= 0 and below 1/dt");
    DEF_CHECK(isfinite(d->density_diffusivity) && d->density_diffusivity >= 0.0f &&
                  d->density_diffusivity <= EDDY_MAX_DIFFUSIVITY,
              "density_diffusivity %g must be in [0, %g] m^2/s", (double)d->density_diffusivity,
              (double)EDDY_MAX_DIFFUSIVITY);
    DEF_CHECK(isfinite(d->density_relaxation) && d->density_relaxation >= 0.0f &&
                  d->density_relaxation * d->dt < 1.0f,
              "density_relaxation must be >= 0 and below 1/dt");
    DEF_CHECK(isfinite(d->ambient_density) && d->ambient_density >= 1.0e-3f &&
                  d->ambient_density <= 1.0e4f,
              "ambient_density %g must be in [1e-3, 1e4] kg/m^3", (double)d->ambient_density);
    DEF_CHECK(eddy_within3(d->gravity, EDDY_MAX_ACCELERATION), "gravity must be finite, components in "
              "[-%g, %g]", (double)EDDY_MAX_ACCELERATION, (double)EDDY_MAX_ACCELERATION);
    DEF_CHECK(eddy_within3(d->wind, EDDY_MAX_SPEED), "wind must be finite, components in [-%g, %g]",
              (double)EDDY_MAX_SPEED, (double)EDDY_MAX_SPEED);
    DEF_CHECK(eddy_within(d->stretch_gain, -EDDY_MAX_GAIN, EDDY_MAX_GAIN),
              "stretch_gain %g must be in [-%g, %g]", (double)d->stretch_gain,
              (double)EDDY_MAX_GAIN, (double)EDDY_MAX_GAIN);
    DEF_CHECK(eddy_within(d->vorticity_alignment, 0.0f, EDDY_MAX_ALIGNMENT),
              "vorticity_alignment %g must be in [0, %g]", (double)d->vorticity_alignment,
              (double)EDDY_MAX_ALIGNMENT);
    DEF_CHECK(eddy_within(d->mollify_length_scale, 0.0f, EDDY_MAX_COORDINATE),
              "mollify_length_scale %g must be in [0, %g]", (double)d->mollify_length_scale,
              (double)EDDY_MAX_COORDINATE);
    DEF_CHECK(d->velocity_method >= EDDY_VELOCITY_TREECODE &&
                  d->velocity_method <= EDDY_VELOCITY_TREECODE_VORTONS,
              "velocity_method %d is not an eddy_velocity_method", (int)d->velocity_method);
    DEF_CHECK(d->treecode_traversal >= EDDY_TREECODE_MULTIPOLE &&
                  d->treecode_traversal <= EDDY_TREECODE_ORIGINAL,
              "treecode_traversal %d is not an eddy_treecode_traversal",
              (int)d->treecode_traversal);
    DEF_CHECK(d->velocity_method != EDDY_VELOCITY_TREECODE_VORTONS ||
                  d->treecode_traversal == EDDY_TREECODE_MULTIPOLE,
              "velocity_method EDDY_VELOCITY_TREECODE_VORTONS needs treecode_traversal "
              "EDDY_TREECODE_MULTIPOLE (the original traversal has no walk at the vortons)");
    DEF_CHECK(d->diffusion >= EDDY_DIFFUSION_NORMALISED && d->diffusion <= EDDY_DIFFUSION_SEED,
              "diffusion %d is not an eddy_diffusion", (int)d->diffusion);
    DEF_CHECK(d->vorton_step >= EDDY_VORTON_STEP_EULER && d->vorton_step <= EDDY_VORTON_STEP_HEUN_ADAPTIVE,
              "vorton_step %d is not an eddy_vorton_step", (int)d->vorton_step);
    DEF_CHECK(d->grid_extent >= EDDY_GRID_EXTENT_VORTONS &&
                  d->grid_extent <= EDDY_GRID_EXTENT_VORTONS_CUBIC,
              "grid_extent %d is not an eddy_grid_extent", (int)d->grid_extent);
    DEF_CHECK(isfinite(d->treecode_opening_angle) && d->treecode_opening_angle > 0.0f &&
                  d->treecode_opening_angle <= 2.0f,
              "treecode_opening_angle %g must be in (0, 2] (the multipole treecode opens a cell "
              "of edge s unless s < angle * distance)",
              (double)d->treecode_opening_angle);
    DEF_CHECK(eddy_within(d->vorton_radius, 1.0e-4f, 1.0e4f), "vorton_radius %g must be in [1e-4, 1e4] m",
              (double)d->vorton_radius);
    DEF_CHECK(eddy_within(d->tracer_radius, 1.0e-6f, 1.0e4f), "tracer_radius %g must be in [1e-6, 1e4] m",
              (double)d->tracer_radius);
    DEF_CHECK(d->vorton_max_age >= -1, "vorton_max_age must be >= -1 (-1: never)");
    DEF_CHECK(d->tracer_max_age >= -1, "tracer_max_age must be >= -1 (-1: never)");
    DEF_CHECK(isfinite(d->ambient_temperature) && d->ambient_temperature > 0.0f &&
                  d->ambient_temperature <= EDDY_MAX_TEMPERATURE,
              "ambient_temperature %g must be in (0, %g] K", (double)d->ambient_temperature,
              (double)EDDY_MAX_TEMPERATURE);
    DEF_CHECK(eddy_within(d->fluid_specific_heat, 1.0e-3f, 1.0e9f),
              "fluid_specific_heat %g must be in [1e-3, 1e9]", (double)d->fluid_specific_heat);
    DEF_CHECK(isfinite(d->boundary_thickness) && d->boundary_thickness >= 1.0f &&
                  d->boundary_thickness <= 8.0f,
              "boundary_thickness must be in [1, 8] vorton radii");
    DEF_CHECK(isfinite(d->shedding_gain) && d->shedding_gain >= 0.0f && d->shedding_gain <= 1.0f,
              "shedding_gain must be in [0, 1]");
    DEF_CHECK(eddy_within(d->spin_gain, -EDDY_MAX_GAIN, EDDY_MAX_GAIN), "spin_gain %g must be in [-%g, %g]",
              (double)d->spin_gain, (double)EDDY_MAX_GAIN, (double)EDDY_MAX_GAIN);
    DEF_CHECK(isfinite(d->tracer_restitution) && d->tracer_restitution >= 0.0f &&
                  d->tracer_restitution <= 1.0f,
              "tracer_restitution must be in [0, 1]");
    DEF_CHECK(d->wall_poisoning >= EDDY_WALL_POISON_NONE &&
                  d->wall_poisoning <= EDDY_WALL_POISON_VORTON_HITS,
              "wall_poisoning %d is not an eddy_wall_poisoning", (int)d->wall_poisoning);
    DEF_CHECK(d->body_coupling >= EDDY_BODY_COUPLING_FLOW &&
                  d->body_coupling <= EDDY_BODY_COUPLING_TRACERS,
              "body_coupling %d is not an eddy_body_coupling", (int)d->body_coupling);
    DEF_CHECK(EDDY_FPENV_CAN_FLUSH || !d->flush_denormals,
              "flush_denormals: this platform (WebAssembly) cannot flush denormals");
    DEF_CHECK(d->worker_count >= 1 && d->worker_count <= EDDY_MAX_WORKERS,
              "worker_count must be in [1, %d], got %d", EDDY_MAX_WORKERS, d->worker_count);
    DEF_CHECK((d->enqueue_task == NULL) == (d->finish_task == NULL),
              "enqueue_task and finish_task must both be set or both be NULL");
    DEF_CHECK(d->enqueue_task == NULL || d->worker_start == NULL,
              "worker_start is called on the built-in pool's threads only and would never be "
              "called with enqueue_task set: prepare your job system's threads yourself");
    DEF_CHECK((d->test_mutations & ~(uint32_t)(EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION |
                                               EDDY_MUTATION_SKIP_WORKER_FP_MODE |
                                               EDDY_MUTATION_RESTORE_KEEPS_FLOW_GRID |
                                               EDDY_MUTATION_NO_BROAD_PHASE |
                                               EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH |
                                               EDDY_MUTATION_NO_CONTACT_LANES |
                                               EDDY_MUTATION_NO_POISON_CULL |
                                               EDDY_MUTATION_SERIAL_EMISSION |
                                               EDDY_MUTATION_SCALAR_DENSITY_GATHER |
                                               EDDY_MUTATION_UNFUSED_TRACER_HASH |
                                               EDDY_MUTATION_EARLY_TRACER_HASH_ALWAYS)) == 0,
              "test_mutations has unknown bits");
    return EDDY_OK;
}
