/* SPDX-License-Identifier: MIT */
/* Scene registry (list, find, create, scripted input) and the helpers every
 * scene file shares: grid sizing, the AssignVortons skeleton, tracer seeding
 * and the particle lists.
 *
 * The registry is one static table. To add scenes, declare their builders in
 * scenes_internal.h and append rows here; names are a contract (goldens and
 * replays refer to them), so never rename or reuse one.
 *
 * Everything here (building, populating, scripted inputs) runs in the default
 * FP environment (round to nearest, no flushing) whatever the caller's is:
 * eddy_fp_set_ieee_default around each entry point, so a scene's initial
 * state and inputs never depend on the caller's FP mode, and the caller gets
 * its mode and flags back. eddy's own call, not <fenv.h>: MinGW-w64's
 * fesetenv(FE_DFL_ENV) resets only the x87 unit, leaving SSE as it was. */
#include "scenes_internal.h"

#include <math.h>
#include <stdlib.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const scene_entry k_scenes[] = {
    {{"vortex_ring", "one vortex ring (R=1, core 1) moving along +x", 240},
     0x5eed0001u, scene_build_vortex_ring, NULL, NULL},
    {{"jet_ring", "vorticity of a short jet along +x; tracers stream from its centre", 300},
     0x5eed0002u, scene_build_jet_ring, NULL, NULL},
    {{"vortex_sheet", "shear layer with a spanwise wobble that rolls up", 240},
     0x5eed0003u, scene_build_vortex_sheet, NULL, NULL},
    {{"crossed_tubes", "two perpendicular vortex tubes, one above the other", 240},
     0x5eed0004u, scene_build_crossed_tubes, NULL, NULL},
    {{"leapfrog", "two coaxial rings; the rear one passes through the front one", 300},
     0x5eed0005u, scene_build_leapfrog, NULL, NULL},
    {{"dye_drop", "heavy ball of dye (rho'=10) falling from z=5", 240},
     0x5eed0006u, scene_build_dye_drop, NULL, NULL},
    {{"two_drops", "heavy ball above a light ball: one sinks, one rises", 240},
     0x5eed0007u, scene_build_two_drops, NULL, NULL},
    {{"noise_cloud", "stress scene: 4096 random vortons, 262k tracers, a toggled emitter", 300},
     0x5eed0008u, scene_build_noise_cloud, NULL, scene_input_noise_cloud},
    {{"ball_through_smoke",
      "ball (r 0.2, 2 m/s) ploughs through a sheet of still smoke and slows down", 150},
     0x5eed0009u, scene_build_ball_through_smoke, scene_populate_ball_through_smoke, NULL},
    {{"rifled_ball",
      "ball at 5 m/s spinning about its flight axis (6.25 rad/s) through smoke", 120},
     0x5eed000au, scene_build_rifled_ball, scene_populate_rifled_ball, NULL},
    {{"curve_ball", "ball at 4 m/s with transverse spin (31.25 rad/s about y) through smoke", 150},
     0x5eed000bu, scene_build_curve_ball, scene_populate_curve_ball, NULL},
    {{"spinning_ball", "ball spinning about z (3 rad/s) in still fluid", 300},
     0x5eed000cu, scene_build_spinning_ball, scene_populate_spinning_ball, NULL},
    {{"wind_past_ball",
      "fixed ball in a 1 unit/s wind; emitted smoke and vortons stream past it", 240},
     0x5eed000du, scene_build_wind_past_ball, scene_populate_wind_past_ball, NULL},
    {{"rotated_cube",
      "fixed cube turned 0.5 rad about x in a noise cloud (embedded particles removed)", 150},
     0x5eed000eu, scene_build_rotated_cube, scene_populate_rotated_cube, NULL},
    {{"plate_lift", "flat plate at 0.2 rad angle of attack flies +x through smoke; lift is +z", 120},
     0x5eed000fu, scene_build_plate_lift, scene_populate_plate_lift, NULL},
    {{"box_spin", "box at 4 m/s spinning about its flight axis (7.5 rad/s) through smoke", 150},
     0x5eed0010u, scene_build_box_spin, scene_populate_box_spin, NULL},
    {{"box_magnus", "flat box at 2 m/s with transverse spin (16 rad/s about y) through smoke", 180},
     0x5eed0011u, scene_build_box_magnus, scene_populate_box_magnus, NULL},
    {{"airfoil",
      "symmetric airfoil at 0.2 rad angle of attack flies +x through smoke; lift is +z", 120},
     0x5eed0012u, scene_build_airfoil, scene_populate_airfoil, NULL},
    {{"buoyant_ball",
      "ball of ambient density between a light and a heavy layer in a closed box", 240},
     0x5eed0013u, scene_build_buoyant_ball, scene_populate_buoyant_ball, NULL},
    {{"container_drop", "heavy drop (rho'=10) falls and spreads in a closed 3x3x3 box", 180},
     0x5eed0014u, scene_build_container_drop, scene_populate_container_drop, NULL},
    {{"container_layers", "light layer over a heavy one in a closed (1,1,2) box", 240},
     0x5eed0015u, scene_build_container_layers, scene_populate_container_layers, NULL},
    {{"sloshing",
      "heavy layer in a closed (1,1,2) box shaken by the script (position and velocity)", 300},
     0x5eed0016u, scene_build_sloshing, scene_populate_sloshing, scene_input_sloshing},
    {{"rotating_container",
      "heavy fluid in a closed (3,0.5,2) box turning about y at 2 rad/s (script)", 300},
     0x5eed0017u, scene_build_rotating_container, scene_populate_rotating_container,
     scene_input_rotating_container},
    {{"dam_break", "heavy fluid filling half of a closed (3,0.5,2) box collapses sideways", 180},
     0x5eed0018u, scene_build_dam_break, scene_populate_dam_break, NULL},
    {{"plume_plate",
      "benchmark (part 13): light plume under a fixed plate, two balls, 50k tracers", 400},
     0x5eed0019u, scene_build_plume_plate, scene_populate_plume_plate, NULL},
    {{"smoke_grenade",
      "a grenade fills a closed 6x4x3 room with smoke; a blast and two bullets open the sight line",
      300},
     0x5eed001au, scene_build_smoke_grenade, scene_populate_smoke_grenade,
     scene_input_smoke_grenade},
    {{"two_rings_apart",
      "two rings 16 apart on one axis close in: a grid island each until frame 82, then one grid",
      150},
     0x5eed001bu, scene_build_two_rings_apart, NULL, NULL},
};

enum { k_scene_count = (int)(sizeof k_scenes / sizeof k_scenes[0]) };

static const scene_entry *scene_entry_find(const char *name) {
    if (name == NULL) return NULL;
    for (int i = 0; i < k_scene_count; ++i) {
        if (strcmp(k_scenes[i].info.name, name) == 0) return &k_scenes[i];
    }
    return NULL;
}

int eddy_scene_count(void) { return k_scene_count; }

const eddy_scene_info *eddy_scene_at(int index) {
    if (index < 0 || index >= k_scene_count) return NULL;
    return &k_scenes[index].info;
}

const eddy_scene_info *eddy_scene_find(const char *name) {
    const scene_entry *e = scene_entry_find(name);
    return e != NULL ? &e->info : NULL;
}

/* ---------------------------------------------------------------- create */

eddy_world_def scene_physics_default(uint64_t seed) {
    eddy_world_def d = eddy_world_def_default();
    d.dt = 0x1.111112p-5f; /* 1/30 rounded to nearest, written out: no run-time division */
    d.substeps = 1;
    d.viscosity = 0.01f;
    d.vorticity_dissipation = 0.01f;
    d.density_diffusivity = 1e-4f;
    d.density_relaxation = 1e-4f;
    d.ambient_density = 1.0f;
    d.gravity = scene_vec3(0.0f, 0.0f, -10.0f);
    d.wind = scene_vec3(0.0f, 0.0f, 0.0f);
    d.stretch_gain = 0.5f;
    d.mollify_length_scale = 1.0f;
    d.vorton_radius = 0.125f; /* replaced by scene_assign_vortons */
    d.tracer_radius = 0.01f;  /* replaced by scene_seed_tracers */
    d.vorton_max_age = -1;
    d.tracer_max_age = -1;
    d.seed = seed;
    return d;
}

/* The caller's threading, FP and test fields, and the solver options a caller
 * picks (velocity method, treecode, the vortons' step); never a scene's physics. */
static void scene_copy_base_fields(eddy_world_def *def, const eddy_world_def *base) {
    if (base == NULL) return;
    def->worker_count = base->worker_count;
    def->enqueue_task = base->enqueue_task;
    def->finish_task = base->finish_task;
    def->user_task_context = base->user_task_context;
    def->worker_start = base->worker_start;
    def->worker_start_context = base->worker_start_context;
    def->flush_denormals = base->flush_denormals;
    def->hash_every_step = base->hash_every_step;
    def->test_mutations = base->test_mutations;
    def->velocity_method = base->velocity_method;
    def->particle_ids = base->particle_ids;
    def->treecode_traversal = base->treecode_traversal;
    def->treecode_opening_angle = base->treecode_opening_angle;
    def->vorton_step = base->vorton_step;
    def->body_coupling = base->body_coupling;
    def->diffusion = base->diffusion;
    def->grid_extent = base->grid_extent;
}

static eddy_status scene_describe(const scene_entry *e, scene_build *b) {
    memset(b, 0, sizeof *b);
    b->def = scene_physics_default(e->seed);
    b->rng = eddy_rng_seed(e->seed, 1u);
    return e->build(b);
}

static eddy_status scene_populate_world(const scene_entry *e, const scene_build *b,
                                        eddy_world *w) {
    eddy_status status = EDDY_OK;
    if (b->vortons.count > 0) status = eddy_world_add_vortons(w, b->vortons.items, b->vortons.count);
    if (status == EDDY_OK && b->tracers.count > 0)
        status = eddy_world_add_tracers(w, b->tracers.items, b->tracers.count);
    for (int i = 0; status == EDDY_OK && i < b->emitter_count; ++i) {
        eddy_emitter_id id;
        status = eddy_world_create_emitter(w, &b->emitters[i], &id);
    }
    if (status == EDDY_OK && e->populate != NULL) status = e->populate(w, b);
    return status;
}

static eddy_status scene_create_in_default_env(const char *name, const eddy_world_def *base,
                                               eddy_world **out);

eddy_status eddy_scene_create(const char *name, const eddy_world_def *base, eddy_world **out) {
    const eddy_fp_saved saved = eddy_fp_save();
    eddy_fp_set_ieee_default();
    const eddy_status status = scene_create_in_default_env(name, base, out);
    eddy_fp_restore(saved);
    return status;
}

static eddy_status scene_create_in_default_env(const char *name, const eddy_world_def *base,
                                               eddy_world **out) {
    if (out == NULL) return EDDY_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (name == NULL) return EDDY_ERROR_INVALID_ARGUMENT;
    const scene_entry *e = scene_entry_find(name);
    if (e == NULL) return EDDY_ERROR_NOT_FOUND;

    scene_build b;
    eddy_world *w = NULL;
    eddy_status status = scene_describe(e, &b);
    if (status != EDDY_OK) goto fail;
    scene_copy_base_fields(&b.def, base);
    status = eddy_world_create(&b.def, &w);
    if (status != EDDY_OK) goto fail;
    status = scene_populate_world(e, &b, w);
    if (status != EDDY_OK) goto fail;
    scene_build_free(&b);
    *out = w;
    return EDDY_OK;
fail:
    eddy_world_destroy(w);
    scene_build_free(&b);
    return status;
}

const eddy_input *eddy_scene_input_for(const char *name, int64_t frame, eddy_scene_input *out) {
    const scene_entry *e = scene_entry_find(name);
    if (e == NULL || e->input == NULL || out == NULL) return NULL;
    memset(out, 0, sizeof *out);
    const eddy_fp_saved saved = eddy_fp_save();
    eddy_fp_set_ieee_default();
    const eddy_input *in = e->input(frame, out);
    eddy_fp_restore(saved);
    return in;
}

/* ---------------------------------------------------------------- lists */

static bool scene_grow(void **items, int *capacity, int needed, size_t item_size) {
    if (needed <= *capacity) return true;
    int cap = *capacity > 0 ? *capacity : 256;
    while (cap < needed) {
        if (cap > (1 << 29)) return false;
        cap *= 2;
    }
    void *p = realloc(*items, (size_t)cap * item_size);
    if (p == NULL) return false;
    *items = p;
    *capacity = cap;
    return true;
}

eddy_status scene_push_vorton(scene_build *b, const eddy_vorton *v) {
    scene_vortons *l = &b->vortons;
    void *items = l->items;
    if (!scene_grow(&items, &l->capacity, l->count + 1, sizeof *l->items))
        return EDDY_ERROR_OUT_OF_MEMORY;
    l->items = items;
    l->items[l->count++] = *v;
    return EDDY_OK;
}

eddy_status scene_push_tracer(scene_build *b, const eddy_tracer *t) {
    scene_tracers *l = &b->tracers;
    void *items = l->items;
    if (!scene_grow(&items, &l->capacity, l->count + 1, sizeof *l->items))
        return EDDY_ERROR_OUT_OF_MEMORY;
    l->items = items;
    l->items[l->count++] = *t;
    return EDDY_OK;
}

void scene_build_free(scene_build *b) {
    free(b->vortons.items);
    free(b->tracers.items);
    b->vortons.items = NULL;
    b->tracers.items = NULL;
    b->vortons.count = b->vortons.capacity = 0;
    b->tracers.count = b->tracers.capacity = 0;
}

eddy_status scene_add_emitter(scene_build *b, const eddy_emitter_def *def) {
    if (b->emitter_count >= SCENE_MAX_EMITTERS) return EDDY_ERROR_CAPACITY;
    b->emitters[b->emitter_count++] = *def;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- grids */

static int scene_next_pow2(int n) {
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

/* Reciprocal of the target cell edge for `target` cells over the non-zero
 * axes of e (volume, area or length). */
static float scene_target_inverse_edge(const float e[3], int target, int *dims) {
    float measure = 1.0f;
    *dims = 0;
    for (int a = 0; a < 3; ++a) {
        if (e[a] > 0.0f) {
            measure *= e[a];
            ++*dims;
        }
    }
    float per_cell = measure / (float)target;
    if (*dims == 3) return 1.0f / eddy_cbrtf(per_cell);
    if (*dims == 2) return 1.0f / sqrtf(per_cell);
    if (*dims == 1) return 1.0f / per_cell;
    return 0.0f;
}

void scene_grid_cells(const float extent[3], int target, int cells[3]) {
    float e[3];
    for (int a = 0; a < 3; ++a) e[a] = extent[a] * (1.0f + SCENE_FLT_EPSILON);
    if (target < 1) target = 1;
    int dims;
    float s = scene_target_inverse_edge(e, target, &dims);
    for (int a = 0; a < 3; ++a) {
        int n = e[a] > 0.0f ? (int)(e[a] * s + 0.5f) : 1;
        cells[a] = scene_next_pow2(n < 1 ? 1 : n);
    }
    const long long limit = 8LL * target;
    while ((long long)cells[0] * cells[1] * cells[2] >= limit) {
        for (int a = 0; a < 3; ++a) cells[a] = cells[a] > 1 ? cells[a] / 2 : 1;
    }
}

static void scene_grid_set_spacing(scene_grid *g, const float extent[3]) {
    for (int a = 0; a < 3; ++a) g->spacing[a] = extent[a] / (float)g->cells[a];
}

void scene_grid_define(scene_grid *g, const float lo[3], const float hi[3], int target) {
    float extent[3];
    for (int a = 0; a < 3; ++a) {
        g->min[a] = lo[a];
        extent[a] = hi[a] - lo[a];
    }
    scene_grid_cells(extent, target, g->cells);
    scene_grid_set_spacing(g, extent);
}

void scene_skeleton_define(scene_grid *g, eddy_vec3 domain, int nmax) {
    const float extent[3] = {domain.x, domain.y, domain.z};
    for (int a = 0; a < 3; ++a) g->min[a] = -0.5f * extent[a];
    scene_grid_cells(extent, nmax, g->cells);
    while ((long long)g->cells[0] * g->cells[1] * g->cells[2] > nmax) {
        for (int a = 0; a < 3; ++a) g->cells[a] = g->cells[a] > 1 ? g->cells[a] / 2 : 1;
        if (g->cells[0] == 1 && g->cells[1] == 1 && g->cells[2] == 1) break;
    }
    scene_grid_set_spacing(g, extent);
}

float scene_grid_cell_radius(const scene_grid *g) {
    const float *h = g->spacing;
    if (h[0] == h[1] && h[1] == h[2]) return 0.5f * h[0]; /* cbrt(h^3) = h exactly */
    return 0.5f * eddy_cbrtf(h[0] * h[1] * h[2]);
}

static float scene_cell_centre(const scene_grid *g, int axis, int index) {
    return g->min[axis] + ((float)index + 0.5f) * g->spacing[axis];
}

/* ---------------------------------------------------------------- vortons */

static eddy_status scene_set_vorton_radius(scene_build *b, float r) {
    if (b->vorton_radius_set && b->def.vorton_radius != r) return EDDY_ERROR_INVALID_ARGUMENT;
    b->def.vorton_radius = r;
    b->vorton_radius_set = true;
    return EDDY_OK;
}

static eddy_status scene_assign_cell(scene_build *b, const scene_distribution *d, eddy_vec3 p,
                                     float magnitude, eddy_vec3 translation) {
    scene_sample s = {{0.0f, 0.0f, 0.0f}, 0.0f};
    d->sample(d->params, p, &b->rng, &s);
    const eddy_vec3 w = s.vorticity;
    if (w.x * w.x + w.y * w.y + w.z * w.z <= SCENE_VORTICITY_FLOOR_SQ) return EDDY_OK;
    eddy_vorton v;
    memset(&v, 0, sizeof v);
    v.position = scene_vec3(p.x + translation.x, p.y + translation.y, p.z + translation.z);
    v.vorticity = scene_vec3(w.x * magnitude, w.y * magnitude, w.z * magnitude);
    v.density_deviation = s.density_deviation;
    v.birth_frame = 0;
    return scene_push_vorton(b, &v);
}

eddy_status scene_assign_vortons(scene_build *b, const scene_distribution *d, float magnitude,
                                 int nmax, eddy_vec3 translation) {
    scene_grid g;
    scene_skeleton_define(&g, d->domain, nmax);
    eddy_status status = scene_set_vorton_radius(b, scene_grid_cell_radius(&g));
    for (int k = 0; status == EDDY_OK && k < g.cells[2]; ++k) {
        for (int j = 0; status == EDDY_OK && j < g.cells[1]; ++j) {
            for (int i = 0; status == EDDY_OK && i < g.cells[0]; ++i) {
                eddy_vec3 p = scene_vec3(scene_cell_centre(&g, 0, i), scene_cell_centre(&g, 1, j),
                                         scene_cell_centre(&g, 2, k));
                status = scene_assign_cell(b, d, p, magnitude, translation);
            }
        }
    }
    return status;
}

/* ---------------------------------------------------------------- tracers */

void scene_tracer_grid(const scene_build *b, scene_grid *g) {
    const scene_vortons *v = &b->vortons;
    float lo[3], hi[3];
    for (int i = 0; i < v->count; ++i) {
        const float p[3] = {v->items[i].position.x, v->items[i].position.y,
                            v->items[i].position.z};
        for (int a = 0; a < 3; ++a) {
            if (i == 0 || p[a] < lo[a]) lo[a] = p[a];
            if (i == 0 || p[a] > hi[a]) hi[a] = p[a];
        }
    }
    const float r = b->def.vorton_radius;
    for (int a = 0; a < 3; ++a) {
        lo[a] = (v->count > 0 ? lo[a] : 0.0f) - r;
        hi[a] = (v->count > 0 ? hi[a] : 0.0f) + r;
    }
    scene_grid_define(g, lo, hi, v->count > 0 ? v->count : 1);
}

/* Trilinear stencil of p in g: base point index and fractions in [0, 1]. */
typedef struct scene_stencil {
    int base[3];
    float t[3];
} scene_stencil;

static scene_stencil scene_stencil_of(const scene_grid *g, const float p[3]) {
    scene_stencil s;
    for (int a = 0; a < 3; ++a) {
        float u = (p[a] - g->min[a]) / g->spacing[a];
        int i = (int)u;
        if (u < 0.0f) i = 0;
        if (i > g->cells[a] - 1) i = g->cells[a] - 1;
        float t = u - (float)i;
        s.base[a] = i;
        s.t[a] = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    }
    return s;
}

static int scene_point_index(const scene_grid *g, int i, int j, int k) {
    return i + (g->cells[0] + 1) * (j + (g->cells[1] + 1) * k);
}

/* Weight of corner (dx,dy,dz) in {0,1}^3. */
static float scene_corner_weight(const scene_stencil *s, int dx, int dy, int dz) {
    float wx = dx ? s->t[0] : 1.0f - s->t[0];
    float wy = dy ? s->t[1] : 1.0f - s->t[1];
    float wz = dz ? s->t[2] : 1.0f - s->t[2];
    return wx * wy * wz;
}

static void scene_accumulate(const scene_grid *g, float *field, const float p[3], float value) {
    scene_stencil s = scene_stencil_of(g, p);
    for (int c = 0; c < 8; ++c) {
        int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
        int idx = scene_point_index(g, s.base[0] + dx, s.base[1] + dy, s.base[2] + dz);
        field[idx] += scene_corner_weight(&s, dx, dy, dz) * value;
    }
}

static float scene_interpolate(const scene_grid *g, const float *field, const float p[3]) {
    scene_stencil s = scene_stencil_of(g, p);
    float sum = 0.0f;
    for (int c = 0; c < 8; ++c) {
        int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
        int idx = scene_point_index(g, s.base[0] + dx, s.base[1] + dy, s.base[2] + dz);
        sum += scene_corner_weight(&s, dx, dy, dz) * field[idx];
    }
    return sum;
}

/* P2G of rho'*V of every vorton onto the grid points; returns max |value|. */
static float scene_density_field(const scene_build *b, const scene_grid *g, float *field) {
    const float r = b->def.vorton_radius;
    const float volume = (4.0f / 3.0f) * SCENE_PI * r * r * r;
    for (int i = 0; i < b->vortons.count; ++i) {
        const eddy_vorton *v = &b->vortons.items[i];
        const float p[3] = {v->position.x, v->position.y, v->position.z};
        scene_accumulate(g, field, p, v->density_deviation * volume);
    }
    const int points = (g->cells[0] + 1) * (g->cells[1] + 1) * (g->cells[2] + 1);
    float max = 0.0f;
    for (int i = 0; i < points; ++i) {
        float a = field[i] < 0.0f ? -field[i] : field[i];
        if (a > max) max = a;
    }
    return max;
}

typedef struct scene_seeding {
    const scene_grid *grid;
    int m;
    float sub[3];       /* sub-cell edge h/m */
    float jitter[3];    /* RandomSpread width: 1.9999 (1-eps) * 0.5 h/m */
    const float *density; /* NULL: keep every tracer */
    float density_max;
    float inv_cell_volume;
} scene_seeding;

static eddy_status scene_seed_subcell(scene_build *b, const scene_seeding *s, const int cell[3],
                                      const int sub[3]) {
    float p[3];
    for (int a = 0; a < 3; ++a) {
        float corner = s->grid->min[a] + (float)cell[a] * s->grid->spacing[a];
        p[a] = corner + ((float)sub[a] + 0.5f) * s->sub[a];
    }
    p[0] += eddy_rng_spread(&b->rng, s->jitter[0]);
    p[1] += eddy_rng_spread(&b->rng, s->jitter[1]);
    p[2] += eddy_rng_spread(&b->rng, s->jitter[2]);
    eddy_tracer t;
    memset(&t, 0, sizeof t);
    t.position = scene_vec3(p[0], p[1], p[2]);
    if (s->density != NULL) {
        float value = scene_interpolate(s->grid, s->density, p);
        float a = value < 0.0f ? -value : value;
        if (!(a >= 0.5f * s->density_max)) return EDDY_OK;
        t.density_deviation = value * s->inv_cell_volume;
    }
    return scene_push_tracer(b, &t);
}

static eddy_status scene_seed_cell(scene_build *b, const scene_seeding *s, const int cell[3]) {
    eddy_status status = EDDY_OK;
    int sub[3];
    for (sub[2] = 0; status == EDDY_OK && sub[2] < s->m; ++sub[2])
        for (sub[1] = 0; status == EDDY_OK && sub[1] < s->m; ++sub[1])
            for (sub[0] = 0; status == EDDY_OK && sub[0] < s->m; ++sub[0])
                status = scene_seed_subcell(b, s, cell, sub);
    return status;
}

static eddy_status scene_seed_grid(scene_build *b, const scene_seeding *s) {
    const scene_grid *g = s->grid;
    eddy_status status = EDDY_OK;
    int cell[3];
    for (cell[2] = 0; status == EDDY_OK && cell[2] < g->cells[2]; ++cell[2])
        for (cell[1] = 0; status == EDDY_OK && cell[1] < g->cells[1]; ++cell[1])
            for (cell[0] = 0; status == EDDY_OK && cell[0] < g->cells[0]; ++cell[0])
                status = scene_seed_cell(b, s, cell);
    return status;
}

static eddy_status scene_reserve_tracers(scene_build *b, long long count) {
    if (count > (1 << 28)) return EDDY_ERROR_CAPACITY;
    void *items = b->tracers.items;
    if (!scene_grow(&items, &b->tracers.capacity, b->tracers.count + (int)count,
                    sizeof *b->tracers.items))
        return EDDY_ERROR_OUT_OF_MEMORY;
    b->tracers.items = items;
    return EDDY_OK;
}

eddy_status scene_seed_tracers(scene_build *b, int m, scene_tracer_mode mode) {
    if (m < 1 || b->vortons.count == 0) return EDDY_ERROR_INVALID_ARGUMENT;
    scene_grid g;
    scene_tracer_grid(b, &g);
    scene_seeding s = {&g, m, {0}, {0}, NULL, 0.0f, 0.0f};
    for (int a = 0; a < 3; ++a) {
        s.sub[a] = g.spacing[a] / (float)m;
        s.jitter[a] = 1.9999f * (1.0f - SCENE_FLT_EPSILON) * 0.5f * s.sub[a];
    }
    b->def.tracer_radius = scene_grid_cell_radius(&g) / (float)m;
    const long long cells = (long long)g.cells[0] * g.cells[1] * g.cells[2];
    float *density = NULL;
    if (mode == SCENE_TRACERS_FROM_DENSITY) {
        density = calloc((size_t)(g.cells[0] + 1) * (size_t)(g.cells[1] + 1) * (size_t)(g.cells[2] + 1),
                         sizeof *density);
        if (density == NULL) return EDDY_ERROR_OUT_OF_MEMORY;
        s.density_max = scene_density_field(b, &g, density);
        s.density = density;
        s.inv_cell_volume = 1.0f / (g.spacing[0] * g.spacing[1] * g.spacing[2]);
    }
    eddy_status status = EDDY_OK;
    /* No significant density anywhere: no tracers (as the original). */
    if (mode != SCENE_TRACERS_FROM_DENSITY || s.density_max > 0.0f) {
        status = scene_reserve_tracers(b, cells * m * m * m);
        if (status == EDDY_OK) status = scene_seed_grid(b, &s);
    }
    free(density);
    return status;
}

/* ---------------------------------------------------------------- wrong names */
/* Edit distance (insertions, deletions, substitutions), case-insensitive;
 * names longer than 63 characters count as far from everything. */
static int edit_distance(const char *a, const char *b) {
    enum { MAX = 64 };
    const size_t n = strlen(a), m = strlen(b);
    if (n >= MAX || m >= MAX) return MAX * 2;
    int prev[MAX + 1], cur[MAX + 1];
    for (size_t j = 0; j <= m; ++j) prev[j] = (int)j;
    for (size_t i = 1; i <= n; ++i) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= m; ++j) {
            const int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = prev[j - 1] + (same ? 0 : 1);
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof(int) * (m + 1));
    }
    return prev[m];
}

const char *eddy_scene_unknown_message(const char *name, const char *list, char *out, size_t size) {
    const char *nearest = NULL;
    int best = 1 << 30;
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const int d = edit_distance(name ? name : "", eddy_scene_at(i)->name);
        if (d < best) best = d, nearest = eddy_scene_at(i)->name;
    }
    snprintf(out, size, "unknown scene '%s' (the nearest is '%s'; %s shows them all)",
             name ? name : "", nearest ? nearest : "", list);
    return out;
}
