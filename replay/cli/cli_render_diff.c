/* SPDX-License-Identifier: MIT */
/* eddy-replay render-diff: where two re-simulations part, drawn for people.
 *
 * Design notes.
 * - Two players stepped side by side (two files, or one file at two worker
 *   counts) until their world hashes differ: the first divergent frame F.
 *   --frame N draws a later frame instead, to see how the divergence spread.
 * - Different worlds are not a divergence. When the two recordings have
 *   different definitions (the physical fields eddy_world_def_encode
 *   writes) or differ at their first common frame (another scene, another
 *   initial state), a particle-by-particle diff means nothing: the tool says
 *   so on standard output and on the picture, names the scenes (the built-in
 *   scene whose frame 0 has each file's initial hash) and the differing
 *   fields, and draws the two worlds plainly side by side.
 * - The picture keeps the scene. Each panel is the ordinary render of its
 *   world (tracers shaded by how many fall in a pixel, vortons, bodies); a
 *   pixel holding tracers that differ takes the colour of how far apart
 *   their two positions are (the largest there), on a log scale over this
 *   frame's whole decades from the nearest to the farthest, times the
 *   plain picture's shading: a divergence that has reached every particle
 *   still shows the smoke's shape and density. Differing vortons are dots of
 *   the same colours; a few differing particles (SMALL_SET or fewer) get
 *   dots too, to be seen at all.
 * - The --top K (default 10) farthest apart are ringed in green and
 *   numbered from 1, the farthest, and listed on standard output.
 * - With --frame N after F, the particles that differed at F, the first
 *   divergent ones, are marked with cyan crosses where they are at N: a
 *   particle is followed by its birth frame and its rank among the
 *   particles of its kind born that frame, which the only removal (kill by
 *   age, a stable compaction of whole birth frames) never changes.
 * - A legend in each panel: the colour bar with its decades, the rings, the
 *   crosses, the counts. The counts also go to standard output and to the
 *   PNG's "eddy-diff" text chunk.
 * - The picture is for people, not for comparison: floats and libm are
 *   fine here. */
#include "cli_render.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SMALL_SET = 500, MANY_CROSSES = 500 };

static const rgb k_ring = {90, 255, 90}, k_cross = {40, 210, 255}, k_body_diff = {255, 40, 255};
static const rgb k_unmatched = {90, 110, 255};
static const rgb k_text = {235, 235, 235}, k_warning = {255, 90, 90};

/* ---------------------------------------------------------------- identities */
/* Which particle is which. Particles have no ids in a replay, and two worlds
 * that diverged may hold different particles at one index (a bullet's wake
 * vortons come before the vortons emitted in the same step). A particle is
 * known by its kind, its birth frame and its rank among the particles of
 * its kind born that frame (in storage order): kill by age, the only
 * removal, is a stable compaction that takes whole birth frames, so this
 * never changes while the particle lives. Two worlds are matched birth
 * frame by birth frame: where both hold as many particles born that frame,
 * rank to rank; where they do not, that frame's particles are "unmatched"
 * (in one world only, or not told apart), counted and drawn as such. */
typedef struct identity {
    int32_t birth, rank;
    int32_t vorton;
} identity;

static int by_identity(const void *pa, const void *pb) {
    const identity *a = pa, *b = pb;
    if (a->vorton != b->vorton) return a->vorton - b->vorton;
    if (a->birth != b->birth) return a->birth < b->birth ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

typedef struct birth_index {
    int32_t birth, index;
} birth_index;

static int by_birth_index(const void *pa, const void *pb) {
    const birth_index *a = pa, *b = pb;
    if (a->birth != b->birth) return a->birth < b->birth ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The view's particles by birth frame, then index; NULL when out of memory. */
static birth_index *birth_order(const eddy_particle_view *v) {
    birth_index *order = malloc((size_t)(v->count > 0 ? v->count : 1) * sizeof *order);
    if (!order) return NULL;
    for (int i = 0; i < v->count; ++i) order[i] = (birth_index){v->birth_frame[i], i};
    qsort(order, (size_t)v->count, sizeof *order, by_birth_index);
    return order;
}

/* How many of order[at..n) share order[at]'s birth frame. */
static int group_size(const birth_index *order, int at, int n) {
    int k = at;
    while (k < n && order[k].birth == order[at].birth) ++k;
    return k - at;
}

/* ---------------------------------------------------------------- differences */
/* A particle whose state differs, or that is unmatched: where it is in
 * world A and in world B (index -1 where it is not), how far apart (0 when
 * unmatched), who it is. */
typedef struct difference {
    eddy_vec3 at[2];
    float apart;
    int index[2];
    identity id;
    bool both;
} difference;

typedef struct difference_list {
    difference *items;
    int count, capacity;
    int vortons, tracers, unmatched; /* of count */
    float nearest, farthest;         /* over the matched ones, 0 if none */
} difference_list;

static eddy_vec3 position_of(const eddy_particle_view *v, int i) {
    return (eddy_vec3){v->position_x[i], v->position_y[i], v->position_z[i]};
}

/* Any bit of position, velocity, vorticity or density deviation. */
static bool particle_differs(const eddy_particle_view *a, int i, const eddy_particle_view *b, int j) {
    const float *fa[] = {a->position_x, a->position_y, a->position_z, a->velocity_x, a->velocity_y,
                         a->velocity_z, a->vorticity_x, a->vorticity_y, a->vorticity_z,
                         a->density_deviation};
    const float *fb[] = {b->position_x, b->position_y, b->position_z, b->velocity_x, b->velocity_y,
                         b->velocity_z, b->vorticity_x, b->vorticity_y, b->vorticity_z,
                         b->density_deviation};
    for (int k = 0; k < 10; ++k)
        if (fa[k] && fb[k] && memcmp(&fa[k][i], &fb[k][j], sizeof(float)) != 0) return true;
    return false;
}

static bool push(difference_list *l, difference d) {
    if (l->count == l->capacity) {
        const int cap = l->capacity ? 2 * l->capacity : 1024;
        difference *q = realloc(l->items, (size_t)cap * sizeof *q);
        if (!q) return false;
        l->items = q, l->capacity = cap;
    }
    l->items[l->count++] = d;
    d.id.vorton ? ++l->vortons : ++l->tracers;
    if (!d.both) ++l->unmatched;
    if (d.apart > 0.0f) {
        if (l->nearest == 0.0f || d.apart < l->nearest) l->nearest = d.apart;
        if (d.apart > l->farthest) l->farthest = d.apart;
    }
    return true;
}

static difference matched(const eddy_particle_view *v[2], int i, int j, identity id) {
    difference d = {{position_of(v[0], i), position_of(v[1], j)}, 0.0f, {i, j}, id, true};
    const float dx = d.at[0].x - d.at[1].x, dy = d.at[0].y - d.at[1].y, dz = d.at[0].z - d.at[1].z;
    d.apart = sqrtf(dx * dx + dy * dy + dz * dz);
    if (!isfinite(d.apart)) d.apart = 0.0f;
    return d;
}

static difference unmatched(const eddy_particle_view *v, int side, int i, identity id) {
    difference d = {{position_of(v, i), position_of(v, i)}, 0.0f, {-1, -1}, id, false};
    d.index[side] = i;
    return d;
}

/* One kind of particle, birth frame by birth frame. */
static bool collect_kind(difference_list *l, const eddy_particle_view *va, const eddy_particle_view *vb,
                         bool vorton) {
    const eddy_particle_view *v[2] = {va, vb};
    birth_index *order[2] = {birth_order(va), birth_order(vb)};
    bool ok = order[0] && order[1];
    for (int at[2] = {0, 0}; ok && (at[0] < va->count || at[1] < vb->count);) {
        int32_t birth = INT32_MAX;
        for (int k = 0; k < 2; ++k)
            if (at[k] < v[k]->count && order[k][at[k]].birth < birth) birth = order[k][at[k]].birth;
        int size[2];
        for (int k = 0; k < 2; ++k)
            size[k] = at[k] < v[k]->count && order[k][at[k]].birth == birth
                          ? group_size(order[k], at[k], v[k]->count) : 0;
        for (int r = 0; ok && size[0] == size[1] && r < size[0]; ++r) {
            const int i = order[0][at[0] + r].index, j = order[1][at[1] + r].index;
            if (particle_differs(va, i, vb, j)) ok = push(l, matched(v, i, j, (identity){birth, r, vorton}));
        }
        for (int k = 0; ok && size[0] != size[1] && k < 2; ++k)
            for (int r = 0; ok && r < size[k]; ++r)
                ok = push(l, unmatched(v[k], k, order[k][at[k] + r].index, (identity){birth, r, vorton}));
        at[0] += size[0], at[1] += size[1];
    }
    free(order[0]);
    free(order[1]);
    return ok;
}

static bool collect_differences(difference_list *l, eddy_world *a, eddy_world *b) {
    memset(l, 0, sizeof *l);
    const eddy_particle_view va = eddy_world_view_vortons(a), vb = eddy_world_view_vortons(b);
    const eddy_particle_view ta = eddy_world_view_tracers(a), tb = eddy_world_view_tracers(b);
    return collect_kind(l, &va, &vb, true) && collect_kind(l, &ta, &tb, false);
}

/* Farthest apart first; ties by who (a fixed order). */
static int by_apart_desc(const void *pa, const void *pb) {
    const difference *a = pa, *b = pb;
    if (a->apart != b->apart) return a->apart > b->apart ? -1 : 1;
    return by_identity(&a->id, &b->id);
}

/* The identities of the differing particles, sorted, each once (a birth
 * frame's unmatched particles are listed from both worlds). */
typedef struct identity_set {
    identity *items;
    int count;
} identity_set;

static bool identities_of(const difference_list *l, identity_set *out) {
    out->items = malloc((size_t)(l->count > 0 ? l->count : 1) * sizeof *out->items);
    if (!out->items) return false;
    for (int k = 0; k < l->count; ++k) out->items[k] = l->items[k].id;
    qsort(out->items, (size_t)l->count, sizeof *out->items, by_identity);
    out->count = 0;
    for (int k = 0; k < l->count; ++k)
        if (out->count == 0 || by_identity(&out->items[out->count - 1], &out->items[k]) != 0)
            out->items[out->count++] = out->items[k];
    return true;
}

/* Body k is in both lists at the same position and orientation, bit for bit. */
static bool body_same(const cli_body *a, int na, const cli_body *b, int nb, int k) {
    return k < na && k < nb && !memcmp(&a[k].state.position, &b[k].state.position, sizeof(eddy_vec3)) &&
           !memcmp(&a[k].state.orientation, &b[k].state.orientation, sizeof(eddy_quat));
}

static int count_body_differences(eddy_world *a, eddy_world *b) {
    cli_body *ba, *bb;
    const int na = cli_world_bodies(a, &ba), nb = cli_world_bodies(b, &bb);
    int differ = 0;
    for (int k = 0; k < na || k < nb; ++k) differ += !body_same(ba, na, bb, nb, k);
    free(ba);
    free(bb);
    return differ;
}

/* ---------------------------------------------------------------- colours */
typedef struct apart_scale {
    double lo, hi; /* log10 of the nearest and the farthest distance, metres */
} apart_scale;

/* From the nearest to the farthest apart, at least a quarter of a decade wide. */
static apart_scale scale_of(const difference_list *l) {
    apart_scale s = {-7.0, -1.0};
    if (l->farthest > 0.0f) {
        s.lo = log10((double)l->nearest);
        s.hi = log10((double)l->farthest);
        if (s.hi - s.lo < 0.25) {
            const double mid = 0.5 * (s.lo + s.hi);
            s.lo = mid - 0.125, s.hi = mid + 0.125;
        }
    }
    return s;
}

/* yellow (the nearest) .. red .. magenta (the farthest), log scale */
static rgb apart_colour(const apart_scale *s, float apart) {
    float t = apart > 0.0f ? (float)((log10((double)apart) - s->lo) / (s->hi - s->lo)) : 0.0f;
    t = fmaxf(0.0f, fminf(1.0f, t));
    if (t < 0.5f) {
        const float u = 2.0f * t;
        return (rgb){255, (uint8_t)(235.0f - 185.0f * u), (uint8_t)(50.0f - 10.0f * u)};
    }
    const float u = 2.0f * t - 1.0f;
    return (rgb){(uint8_t)(255.0f - 25.0f * u), (uint8_t)(50.0f - 10.0f * u), (uint8_t)(40.0f + 200.0f * u)};
}

static rgb scaled(rgb c, float f) {
    return (rgb){(uint8_t)(c.r * f), (uint8_t)(c.g * f), (uint8_t)(c.b * f)};
}

/* ---------------------------------------------------------------- marks */
static void ring(image *im, float x, float y, float r, rgb col) {
    for (int q = 0; q < 32; ++q) {
        const float a0 = 6.2831853f * (float)q / 32.0f, a1 = 6.2831853f * (float)(q + 1) / 32.0f;
        image_line(im, x + r * cosf(a0), y + r * sinf(a0), x + r * cosf(a1), y + r * sinf(a1), col);
    }
}

static void cross(image *im, float x, float y, int arm, rgb col) {
    image_line(im, x - (float)arm, y, x + (float)arm, y, col);
    image_line(im, x, y - (float)arm, x, y + (float)arm, col);
}

/* Tracers: each pixel that holds differing ones takes the colour of the
 * farthest apart there, times the plain picture's brightness (one that
 * differs in another field only, 0 apart, takes the nearest end). Vortons
 * (and every particle of a small set) as dots. */
static bool mark_differences(image *im, const cli_camera *c, const difference_list *l, int side,
                             const apart_scale *s) {
    const size_t n = (size_t)c->size * (size_t)c->size;
    float *far = calloc(n, sizeof *far);
    if (!far) return false;
    for (int k = 0; k < l->count; ++k) {
        const difference *d = &l->items[k];
        if (d->id.vorton || !d->both) continue;
        float x, y;
        cli_to_pixel(c, d->at[side], &x, &y);
        if (!(x >= 0.0f && y >= 0.0f && x < (float)c->size && y < (float)c->size)) continue;
        float *p = &far[(size_t)y * (size_t)c->size + (size_t)x];
        const float apart = d->apart > FLT_MIN ? d->apart : FLT_MIN;
        if (apart > *p) *p = apart;
    }
    for (size_t k = 0; k < n; ++k) {
        if (far[k] <= 0.0f) continue;
        const int x = (int)(k % (size_t)c->size), y = (int)(k / (size_t)c->size);
        const rgb base = image_get(im, x, y);
        const float lum = ((float)base.r + (float)base.g + (float)base.b) / 3.0f;
        const float shade = 0.35f + 0.65f * fminf(1.0f, fmaxf(0.0f, (lum - 16.0f) / 200.0f));
        image_put(im, x, y, scaled(apart_colour(s, far[k]), shade));
    }
    free(far);
    const bool small = l->count <= SMALL_SET;
    for (int k = 0; k < l->count; ++k) {
        const difference *d = &l->items[k];
        if (d->index[side] < 0 || !(d->id.vorton || small || !d->both)) continue;
        float x, y;
        cli_to_pixel(c, d->at[side], &x, &y);
        image_fill_disc(im, x, y, d->id.vorton ? 2.0f : 1.5f,
                        d->both ? apart_colour(s, d->apart) : k_unmatched, 1.0f);
    }
    return true;
}

/* The K farthest apart (l sorted), ringed and numbered; a number is left
 * out where it would cover an earlier one. */
static void mark_top(image *im, const cli_camera *c, const difference_list *l, int side, int top) {
    const int scale = cli_text_scale(c);
    float placed[64][2];
    int labels = 0;
    for (int k = 0; k < top && k < l->count && l->items[k].apart > 0.0f; ++k) {
        float x, y;
        cli_to_pixel(c, l->items[k].at[side], &x, &y);
        ring(im, x, y, 7.0f, k_ring);
        bool clear = labels < 64;
        for (int j = 0; j < labels && clear; ++j)
            clear = fabsf(placed[j][0] - x) > 14.0f * (float)scale || fabsf(placed[j][1] - y) > 9.0f * (float)scale;
        if (!clear) continue;
        char number[16];
        snprintf(number, sizeof number, "%d", k + 1);
        image_label(im, (int)x + 8, (int)y - 10 * scale, number, scale, k_ring);
        placed[labels][0] = x, placed[labels][1] = y, ++labels;
    }
}

/* The first divergent particles where they are now, in world w. */
static int mark_first(image *im, const cli_camera *c, eddy_world *w, const identity_set *first) {
    const eddy_particle_view views[2] = {eddy_world_view_tracers(w), eddy_world_view_vortons(w)};
    int found = 0;
    for (int kind = 0; kind < 2; ++kind) {
        const eddy_particle_view *v = &views[kind];
        birth_index *order = birth_order(v);
        for (int k = 0, rank = 0; order && k < v->count; ++k) {
            rank = k > 0 && order[k].birth == order[k - 1].birth ? rank + 1 : 0;
            const identity key = {order[k].birth, rank, kind};
            if (!bsearch(&key, first->items, (size_t)first->count, sizeof key, by_identity)) continue;
            ++found;
            float x, y;
            cli_to_pixel(c, position_of(v, order[k].index), &x, &y);
            if (first->count > MANY_CROSSES) image_put(im, (int)x, (int)y, k_cross);
            else cross(im, x, y, 3, k_cross);
        }
        free(order);
    }
    return found;
}

static void mark_bodies(image *im, const cli_camera *c, eddy_world *w, eddy_world *other) {
    cli_body *ba, *bb;
    const int na = cli_world_bodies(w, &ba), nb = cli_world_bodies(other, &bb);
    for (int k = 0; k < na; ++k)
        if (!body_same(ba, na, bb, nb, k)) cli_draw_body(im, c, &ba[k], k_body_diff);
    free(ba);
    free(bb);
}

/* ---------------------------------------------------------------- legend */
typedef struct sides {
    eddy_player *p[2];
    const char *name[2]; /* "FILE, N workers" */
} sides;

/* Right-aligned rows under the frame label, and the colour bar. */
static int legend_row_y(const cli_camera *c, int row) {
    const int s = cli_text_scale(c);
    return 16 * s + 3 + row * (7 * s + 2);
}

static void legend_text(image *im, const cli_camera *c, int row, const char *text, rgb col) {
    const int s = cli_text_scale(c);
    image_label(im, c->size - text_width(text, s) - 3 * s, legend_row_y(c, row), text, s, col);
}

/* A tick and its label under the bar at log10 distance e. */
static void bar_tick(image *im, const cli_camera *c, int x0, int width, int y, const apart_scale *sc,
                     double e, const char *label) {
    const int s = cli_text_scale(c);
    const int x = x0 + (int)lround((double)width * (e - sc->lo) / (sc->hi - sc->lo));
    const int w = text_width(label, s);
    int lx = x - w / 2;
    if (lx + w > c->size - s) lx = c->size - s - w;
    if (lx < x0 - w) lx = x0 - w;
    image_rect(im, x, y + 1, x, y + 2 * s, k_text);
    image_label(im, lx, y + 3 * s + 1, label, s, k_text);
}

/* The colour bar from the nearest to the farthest apart: its ends labelled
 * with their distances, whole decades between them ticked (every other one
 * beyond six). */
static void colour_bar(image *im, const cli_camera *c, int row, const apart_scale *sc) {
    const int s = cli_text_scale(c);
    const int width = c->size / 3, x1 = c->size - 4 * s - 12 * s, x0 = x1 - width;
    const int y = legend_row_y(c, row), h = 4 * s;
    image_rect(im, x0 - s, y - s, x1 + s, y + h + s, (rgb){0, 0, 0});
    for (int x = x0; x <= x1; ++x) {
        const double e = sc->lo + (sc->hi - sc->lo) * (double)(x - x0) / (double)(x1 - x0);
        image_rect(im, x, y, x, y + h, apart_colour(sc, (float)pow(10.0, e)));
    }
    char label[32];
    const int first = (int)ceil(sc->lo + 0.15), last = (int)floor(sc->hi - 0.15);
    const int every = last - first > 6 ? 2 : 1;
    for (int d = first; d <= last; d += every) {
        snprintf(label, sizeof label, "1E%d", d);
        bar_tick(im, c, x0, width, y + h, sc, (double)d, label);
    }
    snprintf(label, sizeof label, "%.2g", pow(10.0, sc->lo));
    bar_tick(im, c, x0, width, y + h + 7 * s, sc, sc->lo, label);
    snprintf(label, sizeof label, "%.2g", pow(10.0, sc->hi));
    bar_tick(im, c, x0, width, y + h + 7 * s, sc, sc->hi, label);
}

typedef struct diff_facts {
    int64_t first_frame, frame; /* the first divergent frame, the frame drawn */
    int top;
    int first_differ;           /* particles differing at first_frame */
    int first_count;            /* of them, particles (one per identity: see identities_of) */
    int first_found[2];         /* of them, found in each world at frame */
    int bodies;
} diff_facts;

/* The legend, right-aligned from row on: the colour bar and what each
 * mark means. */
static void draw_legend(image *im, const cli_camera *c, int row, const apart_scale *sc,
                        const difference_list *l, const diff_facts *f, int side) {
    legend_text(im, c, row++, "COLOUR: DISTANCE APART (M)", k_text);
    colour_bar(im, c, row, sc);
    row += 4;
    char text[160];
    if (f->top > 0) {
        snprintf(text, sizeof text, "RINGS 1-%d: FARTHEST APART", f->top < l->count ? f->top : l->count);
        legend_text(im, c, row++, text, k_ring);
    }
    if (f->frame > f->first_frame) {
        snprintf(text, sizeof text, "CROSSES: %d FIRST DIVERGENT (FRAME %lld)", f->first_found[side],
                 (long long)f->first_frame);
        legend_text(im, c, row++, text, k_cross);
    } else {
        legend_text(im, c, row++, "FIRST DIVERGENT FRAME: EVERY MARK", k_text);
    }
    if (l->unmatched > 0) {
        snprintf(text, sizeof text, "BLUE: %d NOT MATCHED (NEW IN ONE WORLD)", l->unmatched);
        legend_text(im, c, row++, text, k_unmatched);
    }
    if (f->bodies > 0) legend_text(im, c, row++, "MAGENTA OUTLINE: BODY DIFFERS", k_body_diff);
}

/* The legend's widest line, to see whether it fits beside the left lines. */
static int legend_width(const cli_camera *c) {
    const int s = cli_text_scale(c);
    const int text = text_width("BLUE: 99999 NOT MATCHED (NEW IN ONE WORLD)", s) + 3 * s;
    const int bar = c->size / 3 + 18 * s;
    return text > bar ? text : bar;
}

/* Lines under the frame label, at the left: row 0 names the side's file. */
static void left_line(image *im, const cli_camera *c, int row, const char *text, rgb col) {
    const int s = cli_text_scale(c);
    image_label(im, 2 * s + 1, legend_row_y(c, row), text, s, col);
}

static void upper(char *s) {
    for (; *s; ++s)
        if (*s >= 'a' && *s <= 'z') *s = (char)(*s - 32);
}

/* "A: FILE, 1 WORKER" (the file's name without its folder); returns its width. */
static int side_title(image *im, const cli_camera *c, const sides *s, int k) {
    char title[320];
    const char *slash = strrchr(s->name[k], '/');
    snprintf(title, sizeof title, "%s: %s", k ? "B" : "A", slash ? slash + 1 : s->name[k]);
    upper(title);
    left_line(im, c, 0, title, k_text);
    return text_width(title, cli_text_scale(c));
}

/* text in upper case from row on, broken after ", " to fit the panel;
 * returns the next row. */
static int left_lines(image *im, const cli_camera *c, int row, const char *text, rgb col) {
    const int fit = (c->size - 8) / (4 * cli_text_scale(c));
    char line[256];
    while (*text) {
        int n = (int)strlen(text);
        if (n > fit) {
            n = fit;
            for (int k = fit - 1; k > fit / 3; --k)
                if (text[k] == ',' && text[k + 1] == ' ') {
                    n = k + 1;
                    break;
                }
        }
        snprintf(line, sizeof line, "%.*s", n < 255 ? n : 255, text);
        upper(line);
        left_line(im, c, row++, line, col);
        text += n;
        while (*text == ' ') ++text;
    }
    return row;
}

/* ---------------------------------------------------------------- stepping */
/* Step both players in lockstep until their world hashes differ. Returns
 * EXIT_OK with *frame set (-1: they agree on every common frame). */
static int first_divergent_frame(eddy_player *a, eddy_player *b, int64_t *frame) {
    *frame = -1;
    const eddy_replay_info ia = eddy_player_info(a), ib = eddy_player_info(b);
    const int64_t first = ia.first_frame > ib.first_frame ? ia.first_frame : ib.first_frame;
    const int64_t last = ia.last_frame < ib.last_frame ? ia.last_frame : ib.last_frame;
    eddy_divergence d;
    for (int64_t f = first; f <= last; ++f) {
        eddy_status sa = f == first ? eddy_player_seek(a, f, &d) : eddy_player_step(a, &d);
        eddy_status sb = f == first ? eddy_player_seek(b, f, &d) : eddy_player_step(b, &d);
        if (sa != EDDY_OK && sa != EDDY_ERROR_DIVERGED)
            return cli_fail(cli_exit_code(sa), "%s", eddy_player_error_message(a));
        if (sb != EDDY_OK && sb != EDDY_ERROR_DIVERGED)
            return cli_fail(cli_exit_code(sb), "%s", eddy_player_error_message(b));
        progress_show("comparing:", f, last);
        if (eddy_world_hash(eddy_player_world(a)).frame_hash !=
            eddy_world_hash(eddy_player_world(b)).frame_hash) {
            *frame = f;
            break;
        }
    }
    progress_done();
    return EXIT_OK;
}

static int step_both_to(eddy_player *const *p, int64_t frame) {
    eddy_divergence d;
    for (int k = 0; k < 2; ++k)
        while (eddy_player_frame(p[k]) < frame) {
            const eddy_status s = eddy_player_step(p[k], &d);
            if (s != EDDY_OK && s != EDDY_ERROR_DIVERGED)
                return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p[k]));
        }
    return EXIT_OK;
}

/* ---------------------------------------------------------------- pictures */
/* The panel of side k: its world drawn plainly, labelled with its file. */
static bool plain_panel(image *im, const cli_camera *c, const sides *s, int k) {
    cli_camera own = *c;
    const char *slash = strrchr(s->name[k], '/');
    snprintf(own.label, sizeof own.label, "%s", slash ? slash + 1 : s->name[k]);
    char *comma = strchr(own.label, ',');
    if (comma) *comma = '\0';
    upper(own.label);
    return cli_draw_panel(im, &own, eddy_player_world(s->p[k]), k ? "B" : "A");
}

/* The two panels side by side, written with the PNG text chunks. */
static int write_pair(const cli_options *o, const cli_camera *c, const sides *s, image panel[2],
                      const char *diff_text, int *width) {
    image out = {0};
    if (!image_init(&out, 2 * c->size + 4, c->size, (rgb){90, 90, 90}))
        return cli_fail(EXIT_IO, "out of memory");
    image_blit(&out, &panel[0], 0, 0);
    image_blit(&out, &panel[1], c->size + 4, 0);
    eddy_world *w[2] = {eddy_player_world(s->p[0]), eddy_player_world(s->p[1])};
    char ft[32], tt[32], ha[32], hb[32], hashes[80];
    cli_frame_text(w[0], ft, tt, sizeof ft);
    cli_hash_text(w[0], ha, sizeof ha);
    cli_hash_text(w[1], hb, sizeof hb);
    snprintf(hashes, sizeof hashes, "A %s B %s", ha, hb);
    const int code = cli_write_picture(o, o->output, &out, c, ft, tt, hashes, diff_text);
    *width = out.width;
    image_free(&out);
    return code;
}

/* Different worlds: say why, draw both plainly. */
static int draw_different_worlds(const cli_options *o, const cli_camera *c, const sides *s,
                                 char scene[2][96], const char *def_diff, bool first_differs) {
    FILE *out = cli_info_stream(o);
    fprintf(out, "A and B are different worlds, not a divergence: A is %s; B is %s\n", scene[0],
            scene[1]);
    if (def_diff[0]) fprintf(out, "  their definitions differ: %s (A vs B)\n", def_diff);
    if (first_differs)
        fprintf(out, "  their first common frame %lld differs\n",
                (long long)eddy_player_frame(s->p[0]));
    image panel[2] = {{0}, {0}};
    int code = EXIT_OK;
    char reason[160];
    snprintf(reason, sizeof reason, "%s", def_diff[0] && first_differs ? "FIRST FRAMES AND DEFINITIONS DIFFER:"
                                          : def_diff[0] ? "DEFINITIONS DIFFER (A VS B):"
                                                        : "FIRST FRAMES DIFFER");
    for (int k = 0; k < 2 && code == EXIT_OK; ++k) {
        if (!plain_panel(&panel[k], c, s, k)) {
            code = cli_fail(EXIT_IO, "out of memory");
            break;
        }
        side_title(&panel[k], c, s, k);
        int row = left_lines(&panel[k], c, 1, scene[k], k_text);
        left_line(&panel[k], c, row++, "DIFFERENT WORLDS, NOT A DIVERGENCE", k_warning);
        left_line(&panel[k], c, row++, reason, k_warning);
        if (def_diff[0]) left_lines(&panel[k], c, row, def_diff, k_warning);
    }
    char text[1024];
    snprintf(text, sizeof text, "different worlds; A %s; B %s; definitions %s%s", scene[0], scene[1],
             def_diff[0] ? def_diff : "same", first_differs ? "; first frames differ" : "");
    int width = 0;
    if (code == EXIT_OK) code = write_pair(o, c, s, panel, text, &width);
    if (code == EXIT_OK && !o->quiet)
        fprintf(out, "wrote %s: both worlds at frame %lld, side by side, no diff drawn (%dx%d)\n",
                o->output, (long long)eddy_player_frame(s->p[0]), width, c->size);
    image_free(&panel[0]);
    image_free(&panel[1]);
    return code == EXIT_OK ? EXIT_DIVERGED : code;
}

static void print_divergence(FILE *out, const difference_list *l, const diff_facts *f,
                             eddy_world *a) {
    const int total = eddy_world_vorton_count(a) + eddy_world_tracer_count(a);
    if (f->frame == f->first_frame)
        fprintf(out, "first divergent frame %lld: ", (long long)f->frame);
    else
        fprintf(out, "first divergent frame %lld, %d particles differed; at frame %lld: ",
                (long long)f->first_frame, f->first_differ, (long long)f->frame);
    fprintf(out, "%d of %d particles differ (%d vortons, %d tracers; %d not matched: born in a frame "
                 "whose count differs), %d bodies",
            l->count, total, l->vortons, l->tracers, l->unmatched, f->bodies);
    if (l->farthest > 0.0f)
        fprintf(out, "; %.3g to %.3g m apart", (double)l->nearest, (double)l->farthest);
    fprintf(out, "\n");
    if (f->frame > f->first_frame)
        fprintf(out, "the %d first divergent particles (frame %lld) are marked: %d found in A, %d in B\n",
                f->first_count, (long long)f->first_frame, f->first_found[0], f->first_found[1]);
    const int top = f->top < l->count ? f->top : l->count;
    if (top > 0 && l->items[0].apart > 0.0f)
        fprintf(out, "farthest apart (ringed, numbered):\n");
    for (int k = 0; k < top && l->items[k].apart > 0.0f; ++k) {
        const difference *d = &l->items[k];
        char who[64];
        if (d->index[0] == d->index[1]) snprintf(who, sizeof who, "%d", d->index[0]);
        else snprintf(who, sizeof who, "%d/%d", d->index[0], d->index[1]);
        fprintf(out, "  %2d  %s %-7s born %-4d A (%.6g, %.6g, %.6g)  B (%.6g, %.6g, %.6g)  %.3g m apart\n",
                k + 1, d->id.vorton ? "vorton" : "tracer", who, (int)d->id.birth,
                (double)d->at[0].x, (double)d->at[0].y,
                (double)d->at[0].z, (double)d->at[1].x, (double)d->at[1].y, (double)d->at[1].z,
                (double)d->apart);
    }
}

static int draw_divergence(const cli_options *o, const cli_camera *c, const sides *s,
                           difference_list *l, diff_facts *f, const identity_set *first) {
    eddy_world *w[2] = {eddy_player_world(s->p[0]), eddy_player_world(s->p[1])};
    qsort(l->items, (size_t)l->count, sizeof *l->items, by_apart_desc);
    const apart_scale sc = scale_of(l);
    image panel[2] = {{0}, {0}};
    int code = EXIT_OK;
    for (int k = 0; k < 2 && code == EXIT_OK; ++k) {
        if (!plain_panel(&panel[k], c, s, k) || !mark_differences(&panel[k], c, l, k, &sc)) {
            code = cli_fail(EXIT_IO, "out of memory");
            break;
        }
        mark_bodies(&panel[k], c, w[k], w[1 - k]);
        if (f->frame > f->first_frame) f->first_found[k] = mark_first(&panel[k], c, w[k], first);
        mark_top(&panel[k], c, l, k, f->top);
    }
    for (int k = 0; k < 2 && code == EXIT_OK; ++k) {
        char line[200];
        const int scale = cli_text_scale(c);
        int width = side_title(&panel[k], c, s, k), rows = 1;
        snprintf(line, sizeof line, "%d PARTICLES DIFFER, %d BODIES", l->count, f->bodies);
        left_line(&panel[k], c, rows++, line, k_text);
        if (text_width(line, scale) > width) width = text_width(line, scale);
        if (l->farthest > 0.0f) {
            snprintf(line, sizeof line, "%.2g TO %.2g M APART", (double)l->nearest, (double)l->farthest);
            left_line(&panel[k], c, rows++, line, k_text);
        }
        /* beside the left lines when both fit, else under them */
        const bool beside = width + legend_width(c) + 8 * scale < c->size;
        draw_legend(&panel[k], c, beside ? 0 : rows, &sc, l, f, k);
    }
    char text[400];
    snprintf(text, sizeof text,
             "first_divergent_frame %lld frame %lld differ %d vortons %d tracers %d unmatched %d "
             "bodies %d nearest %.3g farthest %.3g top %d first_differ %d first %d first_found %d %d",
             (long long)f->first_frame, (long long)f->frame, l->count, l->vortons, l->tracers,
             l->unmatched, f->bodies, (double)l->nearest, (double)l->farthest,
             f->top < l->count ? f->top : l->count, f->first_differ, f->first_count, f->first_found[0],
             f->first_found[1]);
    int width = 0;
    if (code == EXIT_OK) code = write_pair(o, c, s, panel, text, &width);
    if (code == EXIT_OK && !o->quiet) {
        FILE *out = cli_info_stream(o);
        print_divergence(out, l, f, w[0]);
        fprintf(out, "wrote %s (%dx%d, A left, B right)\n", o->output, width, c->size);
    }
    image_free(&panel[0]);
    image_free(&panel[1]);
    return code == EXIT_OK ? EXIT_DIVERGED : code;
}

/* ---------------------------------------------------------------- command */
/* Different worlds: different physics, or different first frames. */
static bool different_worlds(const cli_options *o, const cli_camera *c, const sides *s,
                             int64_t divergent, int *code) {
    eddy_world *w[2] = {eddy_player_world(s->p[0]), eddy_player_world(s->p[1])};
    char def_diff[512];
    const bool defs = cli_def_differences(eddy_world_get_def(w[0]), eddy_world_get_def(w[1]),
                                          def_diff, sizeof def_diff) != 0;
    const int64_t first_a = eddy_player_info(s->p[0]).first_frame;
    const int64_t first_b = eddy_player_info(s->p[1]).first_frame;
    const bool first_differs = divergent == (first_a > first_b ? first_a : first_b);
    if (!defs && !first_differs) return false;
    /* the scenes from each file's initial state */
    char scene[2][96];
    eddy_divergence d;
    for (int k = 0; k < 2; ++k) {
        const int64_t first = eddy_player_info(s->p[k]).first_frame;
        const char *name = NULL;
        if (eddy_player_seek(s->p[k], first, &d) == EDDY_OK)
            name = cli_scene_of(eddy_player_world(s->p[k]), NULL);
        if (name) snprintf(scene[k], sizeof scene[k], "the scene %s", name);
        else if (first == 0) snprintf(scene[k], sizeof scene[k], "none of the built-in scenes");
        else snprintf(scene[k], sizeof scene[k], "a world from frame %lld", (long long)first);
    }
    *code = step_both_to(s->p, divergent);
    if (*code == EXIT_OK) {
        cli_print_camera(o, c);
        cli_camera plain = *c;
        plain.diff = true; /* the panels' own lines take the legend's place */
        *code = draw_different_worlds(o, &plain, s, scene, defs ? def_diff : "", first_differs);
    }
    return true;
}

static int render_divergence(const cli_options *o, const cli_camera *c, const sides *s,
                             int64_t divergent) {
    diff_facts f = {divergent, o->frame >= 0 ? o->frame : divergent, o->top, 0, 0, {0, 0}, 0};
    const int64_t last_a = eddy_player_info(s->p[0]).last_frame;
    const int64_t last_b = eddy_player_info(s->p[1]).last_frame;
    if (f.frame < divergent || f.frame > (last_a < last_b ? last_a : last_b))
        return cli_fail(EXIT_USAGE,
                        "--frame %lld: A and B first differ at frame %lld; draw a frame from "
                        "there to %lld",
                        (long long)f.frame, (long long)divergent,
                        (long long)(last_a < last_b ? last_a : last_b));
    difference_list l;
    identity_set first = {NULL, 0};
    eddy_world *w[2] = {eddy_player_world(s->p[0]), eddy_player_world(s->p[1])};
    int code = collect_differences(&l, w[0], w[1]) ? EXIT_OK : cli_fail(EXIT_IO, "out of memory");
    f.first_differ = f.first_count = l.count;
    if (code == EXIT_OK && f.frame > divergent) {
        if (!identities_of(&l, &first)) code = cli_fail(EXIT_IO, "out of memory");
        f.first_count = first.count;
        free(l.items);
        l.items = NULL;
        if (code == EXIT_OK) code = step_both_to(s->p, f.frame);
        if (code == EXIT_OK && !collect_differences(&l, w[0], w[1]))
            code = cli_fail(EXIT_IO, "out of memory");
    }
    f.bodies = count_body_differences(w[0], w[1]);
    if (code == EXIT_OK) {
        cli_print_camera(o, c);
        code = draw_divergence(o, c, s, &l, &f, &first);
    }
    free(l.items);
    free(first.items);
    return code;
}

int cmd_render_diff(const cli_options *o) {
    if (o->file_count == 0 || (o->file_count == 1) != (o->against_threads > 0))
        return cli_fail(EXIT_USAGE, "render-diff needs A B, or A --against-threads T (try --help)");
    if (!o->output) return cli_fail(EXIT_USAGE, "render-diff needs -o OUT.png (try --help)");
    int code = cli_check_output(o->output, o);
    if (code != EXIT_OK) return code;
    eddy_pinner *pinner[2] = {NULL, NULL};
    sides s = {{NULL, NULL}, {NULL, NULL}};
    char names[2][300];
    cli_options second = *o;
    if (o->against_threads > 0) second.threads = o->against_threads;
    for (int k = 0; k < 2 && code == EXIT_OK; ++k) {
        const char *path = o->files[o->file_count == 2 ? k : 0];
        const cli_options *ok = k ? &second : o;
        bool truncated;
        code = cli_open(path, ok, &pinner[k], &s.p[k], &truncated);
        if (code == EXIT_OK && !eddy_player_world(s.p[k]))
            code = cli_fail(EXIT_INVALID_FILE, "%s", eddy_player_error_message(s.p[k]));
        snprintf(names[k], sizeof names[k], "%s, %d worker%s", path, ok->threads,
                 ok->threads == 1 ? "" : "s");
        s.name[k] = names[k];
    }
    cli_camera c;
    memset(&c, 0, sizeof c);
    if (code == EXIT_OK) code = cli_setup_camera(o, &c, s.p, 2);
    int64_t frame = -1;
    if (code == EXIT_OK) code = first_divergent_frame(s.p[0], s.p[1], &frame);
    if (code == EXIT_OK && frame < 0) {
        printf("no divergence: A and B agree on every common frame; no picture written\n");
    } else if (code == EXIT_OK && !different_worlds(o, &c, &s, frame, &code)) {
        c.diff = true;
        code = render_divergence(o, &c, &s, frame);
    }
    for (int k = 0; k < 2; ++k) {
        eddy_player_close(s.p[k]);
        eddy_pinner_destroy(pinner[k]);
    }
    return code;
}
