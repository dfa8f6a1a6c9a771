#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Windows x64 stage of the test command (docs/verify.md, "Windows x64"):
#
# 1. lib/ and include/ use no GCC-only extension (scripts/check_portable_c.sh);
# 2. cross-builds the library, the scenes, eddy-verify and eddy-fp-contract
#    with MinGW-w64 (cmake/mingw-w64-x86_64.cmake; standalone verify build:
#    no hwloc, so no pinning; no zstd, so no replays) and scans the library for
#    FMA instructions;
# 3. under wine, in one process each: every scene against the same golden
#    files as Linux at 1, 2 and 4 workers, the same in the hostile FP mode, and
#    the FP contract check (caller modes with traps unmasked).
#
#   scripts/check_windows.sh
#
# Environment:
#   EDDY_WERROR=ON|OFF            warnings as errors (default OFF; CI sets ON)
#   EDDY_WINDOWS_BUILD_DIR=dir    cross build directory (default build-mingw)
#   EDDY_WINDOWS_FRAMES=N         frames per scene and run (default 60)
# wine runs with WINEDEBUG=-all and a private WINEPREFIX inside the build
# directory (created on first use, about 15 s); no display is needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

werror=${EDDY_WERROR:-OFF}
dir=${EDDY_WINDOWS_BUILD_DIR:-build-mingw}
frames=${EDDY_WINDOWS_FRAMES:-60}
threads=1,2,4
jobs=$(nproc 2>/dev/null || echo 2)

stage_start=$SECONDS
step() {
    printf -- '--> windows: %s (at %d s)\n' "$*" $((SECONDS - stage_start))
}
fail() { printf -- '--> windows: FAILED: %s\n' "$*" >&2; exit 1; }

find_wine() {
    local candidate
    for candidate in wine wine64 /usr/lib/wine/wine64; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

portable_check() {
    step "lib/ and include/ without GCC-only extensions"
    bash scripts/check_portable_c.sh || fail "scripts/check_portable_c.sh"
}

cross_build() {
    step "cross-building with MinGW-w64 in $dir (EDDY_WERROR=$werror)"
    command -v x86_64-w64-mingw32-gcc-win32 >/dev/null ||
        fail "x86_64-w64-mingw32-gcc-win32 not found (scripts/setup.sh installs gcc-mingw-w64-x86-64)"
    cmake -S verify -B "$dir" --log-level=WARNING -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DEDDY_WERROR="$werror" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64-x86_64.cmake" ||
        fail "cmake configure (MinGW-w64)"
    cmake --build "$dir" -j "$jobs" || fail "build (MinGW-w64)"
}

# Rule 5: a flag is not a proof; no fused multiply-add in what was built.
fma_scan() {
    step "FMA scan of libeddy.a and eddy-verify.exe"
    local found
    found=$(x86_64-w64-mingw32-objdump -d "$dir/eddy/libeddy.a" "$dir/eddy-verify.exe" |
        grep -cE '\svfn?m(add|sub)' || true)
    [[ $found == 0 ]] || fail "$found FMA instructions in the Windows build"
}

wine_run() {
    local prefix=$dir/wineprefix
    [[ $prefix == /* ]] || prefix=$PWD/$prefix
    env -u DISPLAY WINEDEBUG=-all WINEPREFIX="$prefix" \
        WINEDLLOVERRIDES="mscoree,mshtml=" timeout 600 "$wine" "$@"
}

golden_checks() {
    wine=$(find_wine) || fail "wine not found (scripts/setup.sh installs wine64)"
    step "goldens under wine: every scene, $frames frames, workers {$threads}"
    wine_run "$dir/eddy-verify.exe" --golden golden --frames "$frames" --threads "$threads" ||
        fail "eddy-verify under wine"
    step "goldens under wine, hostile FP mode"
    wine_run "$dir/eddy-verify.exe" --golden golden --frames "$frames" --threads "$threads" \
        --hostile-fp || fail "eddy-verify --hostile-fp under wine"
    step "FP contract under wine: every scene, caller modes with traps unmasked"
    wine_run "$dir/eddy-fp-contract.exe" --threads "$threads" || fail "eddy-fp-contract under wine"
}

main() {
    portable_check
    cross_build
    fma_scan
    golden_checks
    step "passed"
}

main "$@"
