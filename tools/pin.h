/* SPDX-License-Identifier: MIT */
/* eddy worker pinning with hwloc (outside lib/ by design). */
#ifndef EDDY_PIN_H
#define EDDY_PIN_H
#include "eddy/eddy.h"

typedef enum eddy_pin_policy {
    EDDY_PIN_NONE = 0,  /* leave threads to the OS */
    EDDY_PIN_CORE = 1,  /* worker i on core i mod cores */
    EDDY_PIN_PU = 2,    /* worker i on processing unit i mod PUs */
} eddy_pin_policy;

typedef struct eddy_pinner eddy_pinner;

/* Parse "none" | "core" | "pu"; returns false on anything else. */
bool eddy_pin_parse(const char *text, eddy_pin_policy *out);
const char *eddy_pin_name(eddy_pin_policy policy);

/* Load the machine topology once; NULL on failure (message in errbuf). */
eddy_pinner *eddy_pinner_create(eddy_pin_policy policy, char *errbuf, size_t errbuf_size);
void eddy_pinner_destroy(eddy_pinner *pinner);
int eddy_pinner_core_count(const eddy_pinner *pinner);
int eddy_pinner_pu_count(const eddy_pinner *pinner);

/* Pin the calling thread as worker worker_index (0 = the stepping thread).
 * Returns false if hwloc refused (the thread keeps running unpinned). */
bool eddy_pinner_pin_self(eddy_pinner *pinner, int worker_index);

/* eddy_worker_start_fn adapter: context is an eddy_pinner*. */
void eddy_pin_worker_start(int worker_index, void *context);

/* Fill the threading fields of def for worker_count workers pinned by pinner
 * (pinner may be NULL for unpinned), and pin the calling thread as worker 0. */
void eddy_pin_configure(eddy_world_def *def, int worker_count, eddy_pinner *pinner);
#endif
