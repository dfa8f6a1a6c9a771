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
#    the FP contract check (caller modes with traps unmasked);
# 4. libeddy.dll and libeddy_replay.dll (dll_checks below; --dll-only runs
#    this stage alone).
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

# libeddy.dll and libeddy_replay.dll (docs/integration.md §11): the shared
# libraries cross-built with BUILD_SHARED_LIBS=ON, exporting the EDDY_API
# functions and nothing else and needing no MinGW runtime DLL. Debian has no
# MinGW build of libzstd, so libeddy_replay.dll writes stored zstd frames
# (EDDY_REPLAY_ZSTD_STORED, replay/zstd_stored/zstd.h): valid zstd that the
# Linux build reads. A game (tests/dll/dll_consumer.c, its own allocator and
# log hooks set across the DLL boundary) records a session and replays it
# hash for hash under wine, at 1 and 4 workers; then records it into a replay
# file with eddy_recorder and plays the file back with eddy_player at another
# worker count, every frame hash checked; it ends on the hash the same
# program gives on Linux, and the Linux eddy-verify plays the file written
# under wine.
dll_exports_check() { # $1: the DLL, $2: a function it must export, $3: the imports it may have
    local dll=$1 exports others imports
    exports=$(x86_64-w64-mingw32-objdump -p "$dll" |
        sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' | awk 'NR > 1 && NF { print $NF }')
    others=$(grep -v '^eddy_' <<<"$exports" || true)
    [[ -z $others ]] || fail "$(basename "$dll") exports non-eddy symbols: $others"
    grep -qx "$2" <<<"$exports" || fail "$(basename "$dll") does not export the API ($2)"
    imports=$(x86_64-w64-mingw32-objdump -p "$dll" | awk '/DLL Name:/ { print $3 }' | sort -u | xargs)
    [[ $imports == "$3" ]] || fail "$(basename "$dll") needs $imports"
    step "$(basename "$dll") exports $(wc -l <<<"$exports") eddy_ functions, imports $imports"
}

dll_checks() {
    wine=$(find_wine) || fail "wine not found (scripts/setup.sh installs wine64)"
    local ddir=$dir-dll
    mkdir -p "$dir" "$ddir/xxhash" # wine's prefix lives in $dir
    # lib/ inlines the xxHash header; a cross compiler does not search the host's
    cp /usr/include/xxhash.h "$ddir/xxhash/" || fail "xxhash.h not found (libxxhash-dev)"
    local absdir absddir
    absdir=$(cd "$dir" && pwd) && absddir=$(cd "$ddir" && pwd) || fail "build directories"
    step "cross-building libeddy.dll and libeddy_replay.dll in $ddir"
    cmake -S . -B "$ddir" --log-level=WARNING -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DEDDY_WERROR="$werror" -DBUILD_SHARED_LIBS=ON -DEDDY_BUILD_TOOLS=OFF \
        -DEDDY_BUILD_TESTS=OFF -DEDDY_REPLAY_ZSTD_STORED=ON \
        -DCMAKE_C_FLAGS="-isystem $absddir/xxhash" \
        -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64-x86_64.cmake" || fail "cmake configure (DLL)"
    cmake --build "$ddir" -j "$jobs" --target eddy eddy_replay || fail "build (the DLLs)"
    dll_exports_check "$ddir/libeddy.dll" eddy_world_create_checked "KERNEL32.dll msvcrt.dll"
    dll_exports_check "$ddir/replay/libeddy_replay.dll" eddy_player_verify \
        "KERNEL32.dll libeddy.dll msvcrt.dll"
    local out=$ddir/consumer
    mkdir -p "$out"
    x86_64-w64-mingw32-gcc-win32 -std=c17 -O2 -Wall -Wextra -Iinclude -DEDDY_DLL \
        -DEDDY_CONSUMER_REPLAY tests/dll/dll_consumer.c "$ddir/replay/libeddy_replay.dll.a" \
        "$ddir/libeddy.dll.a" -static -o "$out/dll_consumer.exe" ||
        fail "build tests/dll/dll_consumer.c against libeddy.dll and libeddy_replay.dll"
    cp "$ddir/libeddy.dll" "$ddir/replay/libeddy_replay.dll" "$out/"
    local linux_hash="" build=${EDDY_BUILD_DIR:-build}
    if [[ -f $build/libeddy.a && -f $build/replay/libeddy_replay.a ]]; then
        cc -std=c17 -O2 -Iinclude -DEDDY_CONSUMER_REPLAY tests/dll/dll_consumer.c \
            "$build/replay/libeddy_replay.a" "$build/libeddy.a" -lzstd -lm -pthread \
            -o "$out/dll_consumer" || fail "build tests/dll/dll_consumer.c on Linux"
        linux_hash=$("$out/dll_consumer" 2 "$out/linux.eddyr" | grep '^frame ') ||
            fail "dll_consumer on Linux"
    fi
    local workers result
    for workers in 1 4; do
        step "the DLLs' game under wine, $workers worker(s): record, replay hash for hash, a replay file"
        rm -f "$out/wine-$workers.eddyr"
        # in $out, where the game writes its replay file (wine's prefix by absolute path)
        result=$(dir=$absdir && cd "$out" && wine_run ./dll_consumer.exe "$workers" \
            "wine-$workers.eddyr" | tr -d '\r') ||
            { printf '%s\n' "$result"; fail "dll_consumer.exe under wine ($workers workers)"; }
        grep -q '^replay: every frame hash matches' <<<"$result" || fail "replay under wine: $result"
        grep -q '^replay file .* played back hash for hash' <<<"$result" ||
            fail "replay file under wine: $result"
        if [[ -n $linux_hash ]]; then
            [[ $(grep '^frame ' <<<"$result") == "$linux_hash" ]] ||
                fail "the DLL ends on $(grep '^frame ' <<<"$result"), Linux on $linux_hash"
        fi
    done
    [[ -n $linux_hash ]] && step "same final hash as on Linux: $linux_hash"
    if [[ -x $build/verify/eddy-verify ]]; then
        step "the replay file written under wine, played by the Linux eddy-verify"
        "$build/verify/eddy-verify" --replay "$out/wine-4.eddyr" --threads 1,2 ||
            fail "eddy-verify --replay of the file written under wine"
    fi
}

main() {
    if [[ ${1:-} == --dll-only ]]; then # the DLL stage alone
        dll_checks
        step "passed"
        return
    fi
    portable_check
    cross_build
    fma_scan
    golden_checks
    dll_checks
    step "passed"
}

main "$@"
