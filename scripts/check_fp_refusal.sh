#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A build of lib/ whose float math would not be IEEE binary32 without excess
# precision or contraction is refused, with a message saying why
# (lib/runtime/fpcheck.h, cmake/EddyContractionProbe.cmake, docs/determinism.md).
# Tries each such build and expects the refusal; run by ctest (fp_refusal).
#
#   scripts/check_fp_refusal.sh [WORK_DIR]     (default: a temporary directory)
#
# Per compiler (gcc and clang, when installed), on a translation unit of lib/:
#   eddy's own flags            compiles
#   -ffast-math, -Ofast         "built with -ffast-math"
#   -ffinite-math-only          "built with -ffinite-math-only"
#   -m32 -mfpmath=387 (x87)     "FLT_EVAL_METHOD != 0"
#   gcc -std=gnu17              "contracts a*b+c into FMA by default"
#   clang -ffp-contract=on -mfma  compiles, and emits no FMA (the pragma)
# and the configure-time probe: CMake with a compiler that appends
# -ffp-contract=fast after every other flag stops with "contracts a*b+c".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

work=${1:-}
if [[ -z $work ]]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
failures=0
unit=lib/runtime/emath.c
base=(-std=c17 -fsyntax-only -Iinclude -Ilib -DEDDY_FP_CONTRACT_OFF)

pass() { printf 'ok    %s\n' "$*"; }
failed() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }

# expect_refusal CC "what" "message fragment" FLAGS...
expect_refusal() {
    local cc=$1 what=$2 fragment=$3
    shift 3
    local output
    if output=$("$cc" "$@" "$unit" 2>&1); then
        failed "$cc $what: compiled, expected a refusal"
    elif grep -qF -- "$fragment" <<<"$output"; then
        pass "$cc $what: refused (\"$fragment\")"
    else
        failed "$cc $what: failed without eddy's message \"$fragment\":"$'\n'"$output"
    fi
}

expect_accepted() {
    local cc=$1 what=$2
    shift 2
    if "$cc" "$@" "$unit" >/dev/null 2>&1; then pass "$cc $what: compiles"
    else failed "$cc $what: does not compile"; fi
}

check_compiler() {
    local cc=$1
    expect_accepted "$cc" "eddy's flags" "${base[@]}" -ffp-contract=off -fno-fast-math
    expect_refusal "$cc" "-ffast-math" "built with -ffast-math" "${base[@]}" -ffast-math
    expect_refusal "$cc" "-Ofast" "built with -ffast-math" "${base[@]}" -Ofast
    expect_refusal "$cc" "-ffinite-math-only" "built with -ffinite-math-only" "${base[@]}" \
        -ffinite-math-only
    expect_refusal "$cc" "x87 (-m32 -mfpmath=387)" "FLT_EVAL_METHOD != 0" "${base[@]}" \
        -m32 -mfpmath=387
}

if command -v gcc >/dev/null; then
    check_compiler gcc
    expect_refusal gcc "-std=gnu17 (contraction on by default)" \
        "contracts a*b+c into FMA by default" -std=gnu17 -fsyntax-only -Iinclude -Ilib
fi
if command -v clang >/dev/null; then
    check_compiler clang
    # clang's default -ffp-contract=on is neutralised by the pragma: no FMA.
    printf '#include "runtime/runtime.h"\nfloat fma_probe(float a, float b, float c);\n%s\n' \
        'float fma_probe(float a, float b, float c) { return a * b + c; }' >"$work/probe.c"
    if clang -std=c17 -O2 -mfma -ffp-contract=on -Iinclude -Ilib -S -o "$work/probe.s" \
        "$work/probe.c" && ! grep -qE 'vfn?m(add|sub)[0-9]' "$work/probe.s"; then
        pass "clang -ffp-contract=on -mfma: no FMA emitted (#pragma STDC FP_CONTRACT OFF)"
    else
        failed "clang -ffp-contract=on -mfma: FMA emitted or did not compile"
    fi
fi

# The configure-time probe, with a compiler that fuses whatever CMake passes.
printf '#!/bin/sh\nexec %s "$@" -ffp-contract=fast\n' "$(command -v gcc || command -v cc)" \
    >"$work/cc-contract-fast"
chmod +x "$work/cc-contract-fast"
if output=$(cmake -S . -B "$work/probe-build" -DCMAKE_C_COMPILER="$work/cc-contract-fast" \
    -DEDDY_BUILD_TESTS=OFF -DEDDY_BUILD_TOOLS=OFF 2>&1); then
    failed "CMake with -ffp-contract=fast forced last: configured, expected a refusal"
elif grep -qF "contracts a*b+c into a fused" <<<"$output"; then
    pass "CMake with -ffp-contract=fast forced last: refused by the contraction probe"
else
    failed "CMake with -ffp-contract=fast forced last: failed without the probe's message:"$'\n'"$output"
fi

((failures == 0)) || { echo "check_fp_refusal: $failures failed"; exit 1; }
echo "check_fp_refusal: every non-IEEE build was refused"
