/* SPDX-License-Identifier: MIT */
/* Determinism fingerprint: what the recording build was, and the policy for
 * which differences refuse a replay (docs/replay-format.md §3).
 *
 * eddy promises the same bits across worker counts, compilers, optimisation
 * levels and x86-64/aarch64, so architecture, compiler, optimisation and
 * instruction-set flags are recorded for the bug report and only warned
 * about. Refused are the differences that make the recorded hashes
 * meaningless or the recording unreadable: another hash spec, snapshot,
 * input or definition encoding version (EDDY_ERROR_VERSION), and another FP
 * model — an unknown model id, or a build (either side) with fast-math or
 * excess float precision (EDDY_ERROR_FINGERPRINT). The flush-to-zero policy
 * belongs to the recorded world's definition, which the player uses as is.
 * Another eddy version is a warning: the hash spec covers the state, and a
 * version that changed the physics shows up as a divergence the player
 * reports, which is what a bug report about it needs. strict refuses any
 * difference. */
#include "replay_format.h"

#include <float.h>
#include <stdio.h>

#define STR2(x) #x
#define STR(x) STR2(x)

static uint32_t build_flags(void) {
    uint32_t f = 0;
#if defined(__OPTIMIZE__)
    f |= EDDY_BUILD_OPTIMIZED;
#endif
#if defined(NDEBUG)
    f |= EDDY_BUILD_NDEBUG;
#endif
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    f |= EDDY_BUILD_NATIVE_FMA;
#endif
#if defined(__AVX2__)
    f |= EDDY_BUILD_AVX2;
#endif
#if defined(__SANITIZE_ADDRESS__)
    f |= EDDY_BUILD_SANITIZED;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
    f |= EDDY_BUILD_SANITIZED;
#endif
#endif
#if defined(__FAST_MATH__)
    f |= EDDY_BUILD_FAST_MATH;
#endif
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
    f |= EDDY_BUILD_EXCESS_PRECISION;
#endif
    return f;
}

static const char *compiler_text(void) {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " STR(__GNUC__) "." STR(__GNUC_MINOR__) "." STR(__GNUC_PATCHLEVEL__);
#else
    return "unknown";
#endif
}

eddy_replay_fingerprint eddy_replay_fingerprint_current(bool flush_denormals) {
    eddy_replay_fingerprint f;
    memset(&f, 0, sizeof f);
    snprintf(f.eddy_version, sizeof f.eddy_version, "%s", eddy_version_string());
    f.hash_spec_version = EDDY_HASH_SPEC_VERSION;
    f.snapshot_version = EDDY_SNAPSHOT_VERSION;
    f.input_version = EDDY_INPUT_ENCODING_VERSION;
    f.def_version = EDDY_DEF_ENCODING_VERSION;
#if defined(__x86_64__) || defined(_M_X64)
    f.arch = EDDY_ARCH_X86_64;
#elif defined(__aarch64__)
    f.arch = EDDY_ARCH_AARCH64;
#else
    f.arch = EDDY_ARCH_OTHER;
#endif
    f.fp_model = EDDY_FP_MODEL_CANONICAL;
    f.flush_denormals = flush_denormals;
    f.build_flags = build_flags();
    snprintf(f.compiler, sizeof f.compiler, "%s", compiler_text());
    return f;
}

const char *eddy_replay_arch_name(eddy_replay_arch arch) {
    switch (arch) {
    case EDDY_ARCH_X86_64: return "x86_64";
    case EDDY_ARCH_AARCH64: return "aarch64";
    case EDDY_ARCH_OTHER: break;
    }
    return "other";
}

static eddy_status check_versions(const eddy_replay_fingerprint *r, const eddy_replay_fingerprint *c,
                                  char *message, size_t size) {
    /* oldest: the oldest recorded version this build still reads. Definition
     * encoding 1 (before the treecode traversal field) reads as the original
     * traversal, which is what such a replay ran with. */
    struct { const char *name; uint32_t recorded, current, oldest; } v[] = {
        {"hash spec", r->hash_spec_version, c->hash_spec_version, c->hash_spec_version},
        {"snapshot format", r->snapshot_version, c->snapshot_version, c->snapshot_version},
        /* input encoding 1 is a subset of 2 (inputs without blasts or bullets) */
        {"input encoding", r->input_version, c->input_version, 1},
        {"definition encoding", r->def_version, c->def_version, 1},
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
        if (v[k].recorded > v[k].current || v[k].recorded < v[k].oldest)
            return eddy_replay_fail(message, size, EDDY_ERROR_VERSION,
                               "recorded with %s version %u; this build has version %u", v[k].name,
                               (unsigned)v[k].recorded, (unsigned)v[k].current);
    return EDDY_OK;
}

static const uint32_t k_breaking_flags = EDDY_BUILD_FAST_MATH | EDDY_BUILD_EXCESS_PRECISION;

static eddy_status check_fp(const eddy_replay_fingerprint *r, const eddy_replay_fingerprint *c,
                            char *message, size_t size) {
    if (r->fp_model != c->fp_model)
        return eddy_replay_fail(message, size, EDDY_ERROR_FINGERPRINT,
                           "recorded with floating-point model %u; this build implements model %u",
                           (unsigned)r->fp_model, (unsigned)c->fp_model);
    if (r->build_flags & k_breaking_flags)
        return eddy_replay_fail(message, size, EDDY_ERROR_FINGERPRINT,
                           "recorded by a build with %s, whose results are not reproducible",
                           (r->build_flags & EDDY_BUILD_FAST_MATH) ? "fast-math"
                                                                   : "excess float precision");
    if (c->build_flags & k_breaking_flags)
        return eddy_replay_fail(message, size, EDDY_ERROR_FINGERPRINT,
                           "this build uses fast-math or excess float precision and cannot "
                           "reproduce any recording");
    return EDDY_OK;
}

static void note(char *warnings, size_t size, const char *fmt, ...)
    __attribute__((format(EDDY_REPLAY_PRINTF, 3, 4)));
static void note(char *warnings, size_t size, const char *fmt, ...) {
    if (!warnings || size == 0) return;
    size_t used = strlen(warnings);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warnings + used, size - used, fmt, ap);
    va_end(ap);
}

/* Accepted differences, as text; returns true if there were any. */
static bool soft_differences(const eddy_replay_fingerprint *r, const eddy_replay_fingerprint *c,
                             char *warnings, size_t size) {
    bool any = false;
    if (strcmp(r->eddy_version, c->eddy_version) != 0) {
        note(warnings, size, "recorded with eddy %s, playing with eddy %s; ", r->eddy_version,
             c->eddy_version);
        any = true;
    }
    if (r->arch != c->arch) {
        note(warnings, size, "recorded on %s, playing on %s; ", eddy_replay_arch_name(r->arch),
             eddy_replay_arch_name(c->arch));
        any = true;
    }
    if (strcmp(r->compiler, c->compiler) != 0) {
        note(warnings, size, "recorded by %s, playing with %s; ", r->compiler, c->compiler);
        any = true;
    }
    if (r->build_flags != c->build_flags) {
        note(warnings, size, "build flags 0x%x recorded, 0x%x here; ", (unsigned)r->build_flags,
             (unsigned)c->build_flags);
        any = true;
    }
    return any;
}

eddy_status eddy_fingerprint_check(const eddy_replay_fingerprint *recorded, bool strict, char *message,
                              size_t message_size, char *warnings, size_t warnings_size) {
    const eddy_replay_fingerprint current = eddy_replay_fingerprint_current(recorded->flush_denormals);
    eddy_status s = check_versions(recorded, &current, message, message_size);
    if (s == EDDY_OK) s = check_fp(recorded, &current, message, message_size);
    if (s != EDDY_OK) return s;
    char soft[256] = "";
    if (!soft_differences(recorded, &current, soft, sizeof soft)) return EDDY_OK;
    if (strict)
        return eddy_replay_fail(message, message_size, EDDY_ERROR_FINGERPRINT,
                           "strict fingerprint check: %s", soft);
    note(warnings, warnings_size, "%s", soft);
    return EDDY_OK;
}
