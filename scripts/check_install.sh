#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumer check: install eddy into a temporary prefix and build
# tests/install/main.c against it, the two ways a game would:
#   1. CMake:      find_package(eddy COMPONENTS replay) + eddy::replay eddy::eddy
#   2. pkg-config: cc main.c $(pkg-config --cflags --libs eddy-replay)
# The program records its own world to a replay file and plays it back,
# checking every frame hash. All of it twice: with the static libraries of
# the build being checked, and with shared libraries (BUILD_SHARED_LIBS=ON,
# built in <build>/install-check-shared, library targets only). On each
# installed library, scripts/check_symbols.sh checks that every exported
# symbol starts with eddy_. Guards against a false pass: every consumer must
# resolve eddy inside the temporary prefix, the static consumers must not
# load libeddy.so and the shared ones must.
#
# Needs a configured and built tree (scripts/test.sh does this first).
# Environment: EDDY_BUILD_DIR (default build), EDDY_WERROR=ON adds -Werror.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${EDDY_BUILD_DIR:-build}
werror=${EDDY_WERROR:-OFF}
jobs=$(nproc 2>/dev/null || echo 2)
started=$SECONDS

step() { printf '==> install check: %s\n' "$*"; }
fail() { printf '==> install check FAILED: %s\n' "$*" >&2; exit 1; }

[[ -f $build_dir/CMakeCache.txt ]] ||
    fail "no configured build in $build_dir (run scripts/test.sh first)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/eddy-install-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Run a command with its output in a log that is shown only on failure.
quietly() {
    local what=$1
    shift
    if ! "$@" >"$tmp/log" 2>&1; then
        cat "$tmp/log" >&2
        fail "$what"
    fi
}

# Same compiler as the build being checked (a clang build checks with clang).
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
cc=${cc:-${CC:-cc}}
cflags=(-std=c17 -Wall -Wextra -Wpedantic -Wstrict-prototypes)
[[ $werror == ON ]] && cflags+=(-Werror)

# Fails unless path (a file or directory) resolves inside real_prefix.
require_in_prefix() {
    local what=$1 path=$2 real
    real=$(realpath -e "$path" 2>/dev/null) || fail "$what: $path does not exist"
    [[ $real == "$real_prefix"/* ]] || fail "$what resolves to $real, outside the install prefix $real_prefix"
}

# Fails unless the program loads libeddy and libeddy_replay from the prefix
# (kind shared) or loads no libeddy at all (kind static).
require_linkage() {
    local kind=$1 program=$2 libdir=$3 loaded
    loaded=$(LD_LIBRARY_PATH=$libdir ldd "$program" | awk '$1 ~ /^libeddy/ { print $1 " " $3 }')
    if [[ $kind == static ]]; then
        [[ -z $loaded ]] || fail "$program is static but loads: $loaded"
        return
    fi
    local lib path
    for lib in libeddy.so.0 libeddy_replay.so.0; do
        path=$(awk -v l="$lib" '$1 == l { print $2 }' <<<"$loaded")
        [[ -n $path ]] || fail "$program does not load $lib"
        require_in_prefix "$program's $lib" "$path"
    done
}

# Install build $2 into a fresh prefix and check both consumers against it.
check_prefix() {
    local kind=$1 build=$2
    local prefix=$tmp/$kind
    step "$kind: cmake --install $build --prefix <tmp>"
    quietly "cmake --install $build" cmake --install "$build" --prefix "$prefix"
    real_prefix=$(realpath "$prefix")

    local libs
    if [[ $kind == static ]]; then
        libs=$(find "$prefix" -name 'libeddy*.a')
    else
        libs=$(find "$prefix" -name 'libeddy*.so.*.*.*')
    fi
    [[ $(wc -l <<<"$libs") -eq 2 ]] || fail "$kind: expected libeddy and libeddy_replay, found: $libs"
    # shellcheck disable=SC2086
    quietly "$kind: exported symbols" bash scripts/check_symbols.sh $libs

    step "$kind: find_package(eddy) consumer"
    local consumer=$tmp/$kind-consumer
    quietly "$kind: configure tests/install" cmake -S tests/install -B "$consumer" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_FLAGS="$([[ $werror == ON ]] && echo -Werror)"
    local eddy_dir
    eddy_dir=$(sed -n 's/^eddy_DIR:[A-Z]*=//p' "$consumer/CMakeCache.txt")
    require_in_prefix "find_package(eddy) eddy_DIR" "$eddy_dir"
    quietly "$kind: build tests/install" cmake --build "$consumer"
    local libdir=$prefix/lib
    require_linkage "$kind" "$consumer/eddy_install_check" "$libdir"
    "$consumer/eddy_install_check" "$tmp/$kind-cmake.eddyr" ||
        fail "$kind: find_package consumer did not run cleanly"

    step "$kind: pkg-config consumer"
    local pc_file
    pc_file=$(find "$prefix" -name eddy-replay.pc -path '*/pkgconfig/*' -print -quit)
    [[ -n $pc_file ]] || fail "$kind: eddy-replay.pc was not installed under the prefix"
    [[ -f ${pc_file%/*}/eddy.pc ]] || fail "$kind: eddy.pc was not installed next to eddy-replay.pc"
    export PKG_CONFIG_PATH=${pc_file%/*}
    require_in_prefix "eddy.pc includedir" "$(pkg-config --variable=includedir eddy)/eddy/eddy.h"
    libdir=$(pkg-config --variable=libdir eddy-replay)
    require_in_prefix "eddy-replay.pc libdir" "$libdir"
    local pc_text pc_flags
    pc_text=$(pkg-config --cflags --libs eddy-replay) || fail "pkg-config --cflags --libs eddy-replay"
    read -r -a pc_flags <<<"$pc_text"
    quietly "$kind: compile with pkg-config ($cc ${pc_flags[*]})" \
        "$cc" "${cflags[@]}" tests/install/main.c "${pc_flags[@]}" -o "$tmp/$kind-pkg-config"
    require_linkage "$kind" "$tmp/$kind-pkg-config" "$libdir"
    LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$tmp/$kind-pkg-config" "$tmp/$kind-pkg-config.eddyr" ||
        fail "$kind: pkg-config consumer did not run cleanly"
}

grep -q '^BUILD_SHARED_LIBS:BOOL=ON' "$build_dir/CMakeCache.txt" &&
    fail "$build_dir is a shared build; give the static build (the shared one is made here)"
check_prefix static "$build_dir"

shared_dir=$build_dir/install-check-shared
step "shared: building libeddy.so and libeddy_replay.so in $shared_dir"
quietly "configure $shared_dir" cmake -S . -B "$shared_dir" --log-level=WARNING \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDDY_WERROR="$werror" \
    -DBUILD_SHARED_LIBS=ON -DEDDY_BUILD_TOOLS=OFF -DEDDY_BUILD_TESTS=OFF
quietly "build $shared_dir" cmake --build "$shared_dir" -j "$jobs"
check_prefix shared "$shared_dir"

step "ok ($((SECONDS - started)) s)"
