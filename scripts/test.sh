#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole eddy test suite in one command:  ./scripts/test.sh
#
# Installs missing Debian packages (scripts/setup.sh), builds RelWithDebInfo in
# build/, runs every CTest test, then checks that the installed package can be
# consumed (scripts/check_install.sh). Exits non-zero on the first failure.
#
# Environment:
#   EDDY_WERROR=ON|OFF   warnings as errors (default OFF; CI sets ON)
#   EDDY_BUILD_DIR=dir   build directory, relative to the repo root (default build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

werror=${EDDY_WERROR:-OFF}
build_dir=${EDDY_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '==> %s\n' "$*"; }
fail() { printf '==> FAILED: %s\n' "$*" >&2; exit 1; }

# Every stage says when it starts and, on one line, how long it took; the
# summary at the end lists them all. Progress lines of the tools (carriage
# returns) appear only when stderr is a terminal, never in a redirected log.
suite_start=$SECONDS
stage_times=()
stage() {
    local name=$1 start=$SECONDS
    shift
    printf '==> stage %s: started at %s\n' "$name" "$(date +%H:%M:%S)"
    "$@"
    local took=$((SECONDS - start))
    printf '==> stage %s: ok in %d min %02d s\n' "$name" $((took / 60)) $((took % 60))
    stage_times+=("$(printf '%-14s %4d min %02d s' "$name" $((took / 60)) $((took % 60)))")
}

setup_packages() {
    step "checking build dependencies"
    bash scripts/setup.sh || fail "scripts/setup.sh"
}

build_release() {
    step "configuring $build_dir (RelWithDebInfo, EDDY_WERROR=$werror)"
    cmake -S . -B "$build_dir" --log-level=WARNING \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDDY_WERROR="$werror" || fail "cmake configure"
    step "building with $jobs jobs"
    cmake --build "$build_dir" -j "$jobs" || fail "build"
}

run_ctest() {
    step "running tests"
    # one line per test as it ends (ctest's own), with its time; two at a
    # time on two cores: the determinism test (about 6 minutes) runs beside
    # the rest instead of before it
    ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$jobs" || fail "ctest"
}

check_install() {
    step "checking the installed package"
    EDDY_BUILD_DIR="$build_dir" EDDY_WERROR="$werror" bash scripts/check_install.sh ||
        fail "scripts/check_install.sh"
}

# ------------------------------------------------------------------ later steps
# Further stages of the suite go here, each as its own function called from
# main below, after check_install: the sanitizer build (EDDY_SANITIZE=ON in its
# own build dir), the verifier matrix (worker counts x pinning x FP modes), and
# the clang build (CC=clang in its own build dir).

# The determinism matrix (docs/verify.md): eddy-verify against golden/ across
# worker counts, pinning, hostile FP modes, gcc/clang, -O0/-O3, -march=native,
# ASan+UBSan and aarch64 under qemu; the mutation and FMA checks.
run_determinism_matrix() {
    step "determinism matrix (scripts/ci_matrix.sh)"
    EDDY_BUILD_DIR="$build_dir" bash scripts/ci_matrix.sh ||
        fail "scripts/ci_matrix.sh"
}

# Denormals do not matter: every golden with flush_denormals forced on and off,
# on x86-64 and aarch64 under qemu (scripts/check_denormals.sh; reuses the
# aarch64 build of the matrix).
run_denormals() {
    step "denormals flushed and kept (scripts/check_denormals.sh)"
    EDDY_BUILD_DIR="$build_dir" bash scripts/check_denormals.sh ||
        fail "scripts/check_denormals.sh"
}

# WebAssembly: emscripten builds checked against the goldens under node
# (single-threaded and pthreads) and in headless Chromium through the web page
# (scripts/check_wasm.sh).
run_wasm() {
    step "WebAssembly in node and Chromium (scripts/check_wasm.sh)"
    EDDY_NATIVE_BUILD_DIR=$build_dir bash scripts/check_wasm.sh || fail "scripts/check_wasm.sh"
}

# The decoders under libFuzzer (clang, ASan+UBSan), each for a bounded time,
# seeded with their stored inputs (scripts/fuzz_replay.sh): the replay reader
# 14 s, the snapshot and input decoders 10 s each, the golden reader and the
# desync messages (a hostile peer's search messages and hash logs) 6 s each
# (46 s in all: the test command's budget is 25 minutes on 2 cores; longer
# campaigns are run by hand: scripts/fuzz_replay.sh SECONDS TARGET, docs/replay.md). Every stored crasher and seed
# is also replayed by ctest's fuzz_regressions.
# EDDY_FUZZ_SECONDS, if set, gives every target that time instead.
run_fuzz() {
    local target seconds
    for target in replay:14 snapshot:10 input:10 golden:6 desync:6; do
        seconds=${EDDY_FUZZ_SECONDS:-${target#*:}}
        step "fuzzing ${target%%:*} (${seconds} s)"
        bash scripts/fuzz_replay.sh "$seconds" "${target%%:*}" ||
            fail "scripts/fuzz_replay.sh $seconds ${target%%:*}"
    done
}

# Windows x64: MinGW-w64 cross build run under wine against the same goldens,
# the FP contract check, and the portable-C check (scripts/check_windows.sh).
run_windows() {
    step "Windows x64 under wine (scripts/check_windows.sh)"
    EDDY_WERROR="$werror" EDDY_WINDOWS_BUILD_DIR="$build_dir-mingw" EDDY_BUILD_DIR="$build_dir" \
        bash scripts/check_windows.sh ||
        fail "scripts/check_windows.sh"
}

# The C# bindings under mono (scripts/check_csharp.sh): the bindings' structs
# against the C layout, every golden scene stepped from C# at 1 and 4 workers,
# snapshots, allocations, errors, and a replay recorded from C# played back by
# eddy-verify.
run_csharp() {
    step "C# bindings under mono (scripts/check_csharp.sh)"
    local t0=$SECONDS
    EDDY_BUILD_DIR="$build_dir" EDDY_WERROR="$werror" bash scripts/check_csharp.sh ||
        fail "scripts/check_csharp.sh"
    step "C# stage: $((SECONDS - t0)) s"
}

main() {
    stage packages setup_packages
    stage build build_release
    stage ctest run_ctest
    stage install check_install
    stage csharp run_csharp
    stage windows run_windows
    stage matrix run_determinism_matrix
    stage denormals run_denormals
    stage wasm run_wasm
    stage fuzz run_fuzz
    local total=$((SECONDS - suite_start))
    step "all tests passed in $((total / 60)) min $((total % 60)) s:"
    printf '    %s\n' "${stage_times[@]}"
}

main "$@"
