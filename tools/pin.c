/* SPDX-License-Identifier: MIT */
/* eddy worker pinning with hwloc.
 *
 * Design note: why this lives in tools/ and not in lib/.
 *
 * - Dependency rule (STYLE.md, shape 2): lib/ needs only libc, pthreads and the
 *   xxHash header. hwloc is a tools-and-verifier dependency; a game that links
 *   libeddy must never pull it in.
 * - Policy (STYLE.md, "shapes to avoid"): where threads run is the host's
 *   decision, not the library's. A game usually has its own job system and its
 *   own affinity plan. The library only offers the hook (eddy_worker_start_fn,
 *   called once on every built-in pool thread before it runs work); the demo,
 *   bench and verifier plug this file into that hook.
 * - Determinism (DETERMINISM.md, the contract): pinning can change speed, never
 *   results. Chunk sizes and the reduction tree do not depend on which CPU a
 *   worker runs on, so the verifier can compare "none", "core" and "pu" runs
 *   frame by frame and expect identical hashes.
 *
 * Thread safety: a pinner is immutable after eddy_pinner_create. The topology
 * is loaded once and the cpuset of every core and PU is copied out then, so
 * eddy_pinner_pin_self only reads the pinner and calls hwloc_set_cpubind,
 * which reads the topology without modifying it. hwloc documents concurrent
 * reads of one loaded topology as safe ("Thread Safety" in the hwloc manual),
 * so several workers may pin themselves at the same time without a lock.
 *
 * Mapping: worker i goes to core (i mod cores) or PU (i mod PUs) in hwloc's
 * logical order, so workers wrap round when they outnumber the hardware.
 * Worker 0 is the thread that calls eddy_world_step. Threads inherit the
 * affinity of the thread that creates them, so pool threads start out bound
 * where worker 0 is and are then moved by their own start hook. */
#include "pin.h"

#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct eddy_pinner {
    eddy_pin_policy policy;
    hwloc_topology_t topology;
    int core_count;
    int pu_count;
    /* cpusets of the targets for the policy, in hwloc logical order */
    hwloc_bitmap_t *targets;
    int target_count;
};

static void pin_error(char *errbuf, size_t errbuf_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void pin_error(char *errbuf, size_t errbuf_size, const char *format, ...)
{
    if (errbuf == NULL || errbuf_size == 0) {
        return;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(errbuf, errbuf_size, format, args);
    va_end(args);
}

bool eddy_pin_parse(const char *text, eddy_pin_policy *out)
{
    if (text == NULL || out == NULL) {
        return false;
    }
    if (strcmp(text, "none") == 0) {
        *out = EDDY_PIN_NONE;
    } else if (strcmp(text, "core") == 0) {
        *out = EDDY_PIN_CORE;
    } else if (strcmp(text, "pu") == 0) {
        *out = EDDY_PIN_PU;
    } else {
        return false;
    }
    return true;
}

const char *eddy_pin_name(eddy_pin_policy policy)
{
    switch (policy) {
    case EDDY_PIN_NONE: return "none";
    case EDDY_PIN_CORE: return "core";
    case EDDY_PIN_PU: return "pu";
    }
    return "unknown";
}

/* Count objects of one type; 0 when the type is absent or spread over several
 * depths (hwloc returns -1 then, which no supported machine does for cores). */
static int pin_count_objects(hwloc_topology_t topology, hwloc_obj_type_t type)
{
    int count = hwloc_get_nbobjs_by_type(topology, type);
    return count > 0 ? count : 0;
}

/* Copy the cpuset of every object of type into pinner->targets. */
static bool pin_collect_targets(eddy_pinner *pinner, hwloc_obj_type_t type, int count,
                                char *errbuf, size_t errbuf_size)
{
    pinner->targets = calloc((size_t)count, sizeof *pinner->targets);
    if (pinner->targets == NULL) {
        pin_error(errbuf, errbuf_size, "pin: out of memory for %d cpusets", count);
        return false;
    }
    for (int i = 0; i < count; ++i) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(pinner->topology, type, (unsigned)i);
        if (obj == NULL || obj->cpuset == NULL || hwloc_bitmap_iszero(obj->cpuset)) {
            pin_error(errbuf, errbuf_size, "pin: hwloc %s #%d has no usable cpuset",
                      hwloc_obj_type_string(type), i);
            return false;
        }
        pinner->targets[i] = hwloc_bitmap_dup(obj->cpuset);
        if (pinner->targets[i] == NULL) {
            pin_error(errbuf, errbuf_size, "pin: out of memory copying a cpuset");
            return false;
        }
        pinner->target_count = i + 1;
    }
    return true;
}

static bool pin_load_topology(eddy_pinner *pinner, char *errbuf, size_t errbuf_size)
{
    if (hwloc_topology_init(&pinner->topology) != 0) {
        pin_error(errbuf, errbuf_size, "pin: hwloc_topology_init failed: %s", strerror(errno));
        pinner->topology = NULL;
        return false;
    }
    if (hwloc_topology_load(pinner->topology) != 0) {
        pin_error(errbuf, errbuf_size, "pin: hwloc_topology_load failed: %s", strerror(errno));
        return false;
    }
    pinner->pu_count = pin_count_objects(pinner->topology, HWLOC_OBJ_PU);
    pinner->core_count = pin_count_objects(pinner->topology, HWLOC_OBJ_CORE);
    if (pinner->pu_count == 0) {
        pin_error(errbuf, errbuf_size, "pin: hwloc found no processing units on this machine");
        return false;
    }
    return true;
}

static bool pin_check_binding_support(const eddy_pinner *pinner, char *errbuf,
                                      size_t errbuf_size)
{
    const struct hwloc_topology_support *support = hwloc_topology_get_support(pinner->topology);
    if (support == NULL || support->cpubind == NULL ||
        !support->cpubind->set_thisthread_cpubind) {
        pin_error(errbuf, errbuf_size,
                  "pin: policy \"%s\" needs thread binding, which hwloc does not support "
                  "on this system (use \"none\")",
                  eddy_pin_name(pinner->policy));
        return false;
    }
    return true;
}

eddy_pinner *eddy_pinner_create(eddy_pin_policy policy, char *errbuf, size_t errbuf_size)
{
    pin_error(errbuf, errbuf_size, "%s", "");
    if (policy != EDDY_PIN_NONE && policy != EDDY_PIN_CORE && policy != EDDY_PIN_PU) {
        pin_error(errbuf, errbuf_size, "pin: unknown policy %d (expected none, core or pu)",
                  (int)policy);
        return NULL;
    }
    eddy_pinner *pinner = calloc(1, sizeof *pinner);
    if (pinner == NULL) {
        pin_error(errbuf, errbuf_size, "pin: out of memory");
        return NULL;
    }
    pinner->policy = policy;
    if (!pin_load_topology(pinner, errbuf, errbuf_size)) {
        goto fail;
    }
    if (policy == EDDY_PIN_NONE) {
        return pinner;
    }
    if (!pin_check_binding_support(pinner, errbuf, errbuf_size)) {
        goto fail;
    }
    if (policy == EDDY_PIN_CORE && pinner->core_count == 0) {
        pin_error(errbuf, errbuf_size,
                  "pin: hwloc reports no cores on this machine (%d PUs); use \"pu\"",
                  pinner->pu_count);
        goto fail;
    }
    hwloc_obj_type_t type = policy == EDDY_PIN_CORE ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int count = policy == EDDY_PIN_CORE ? pinner->core_count : pinner->pu_count;
    if (!pin_collect_targets(pinner, type, count, errbuf, errbuf_size)) {
        goto fail;
    }
    return pinner;

fail:
    eddy_pinner_destroy(pinner);
    return NULL;
}

void eddy_pinner_destroy(eddy_pinner *pinner)
{
    if (pinner == NULL) {
        return;
    }
    for (int i = 0; i < pinner->target_count; ++i) {
        hwloc_bitmap_free(pinner->targets[i]);
    }
    free(pinner->targets);
    if (pinner->topology != NULL) {
        hwloc_topology_destroy(pinner->topology);
    }
    free(pinner);
}

int eddy_pinner_core_count(const eddy_pinner *pinner)
{
    return pinner != NULL ? pinner->core_count : 0;
}

int eddy_pinner_pu_count(const eddy_pinner *pinner)
{
    return pinner != NULL ? pinner->pu_count : 0;
}

/* On false, errno says why (EINVAL for a bad argument, else hwloc's errno). */
bool eddy_pinner_pin_self(eddy_pinner *pinner, int worker_index)
{
    if (pinner == NULL || worker_index < 0) {
        errno = EINVAL;
        return false;
    }
    if (pinner->policy == EDDY_PIN_NONE) {
        return true;
    }
    hwloc_const_bitmap_t target = pinner->targets[worker_index % pinner->target_count];
    return hwloc_set_cpubind(pinner->topology, target, HWLOC_CPUBIND_THREAD) == 0;
}

/* Runs on a pool thread with no caller to report to: a failure is a warning on
 * stderr, and the thread keeps the affinity it inherited. */
void eddy_pin_worker_start(int worker_index, void *context)
{
    eddy_pinner *pinner = context;
    if (!eddy_pinner_pin_self(pinner, worker_index)) {
        int error = errno;
        fprintf(stderr, "eddy pin: could not pin worker %d (policy %s): %s\n", worker_index,
                pinner != NULL ? eddy_pin_name(pinner->policy) : "?", strerror(error));
    }
}

void eddy_pin_configure(eddy_world_def *def, int worker_count, eddy_pinner *pinner)
{
    if (def == NULL) {
        return;
    }
    def->worker_count = worker_count;
    /* No external task system: the world starts its own eddy_pool and calls
     * worker_start on each pool thread. */
    def->enqueue_task = NULL;
    def->finish_task = NULL;
    def->user_task_context = NULL;
    def->worker_start = pinner != NULL ? eddy_pin_worker_start : NULL;
    def->worker_start_context = pinner;
    if (pinner != NULL) {
        eddy_pin_worker_start(0, pinner);
    }
}
