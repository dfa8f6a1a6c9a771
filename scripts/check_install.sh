#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumer check: install the built tree into a temporary prefix and build
# tests/install/main.c against it twice, the two ways a game would:
#   1. CMake:      find_package(eddy) + eddy::eddy, with CMAKE_PREFIX_PATH=<prefix>
#   2. pkg-config: cc main.c $(pkg-config --cflags --libs eddy)
# Each program must create and destroy a world. Guards against a false pass:
# both must resolve eddy inside the temporary prefix, not a system install.
#
# Needs a configured and built tree (scripts/test.sh does this first).
# Environment: EDDY_BUILD_DIR (default build), EDDY_WERROR=ON adds -Werror.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${EDDY_BUILD_DIR:-build}
werror=${EDDY_WERROR:-OFF}

step() { printf '==> install check: %s\n' "$*"; }
fail() { printf '==> install check FAILED: %s\n' "$*" >&2; exit 1; }

[[ -f $build_dir/CMakeCache.txt ]] ||
    fail "no configured build in $build_dir (run scripts/test.sh first)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/eddy-install-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

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

step "cmake --install $build_dir --prefix <tmp>"
quietly "cmake --install" cmake --install "$build_dir" --prefix "$prefix"
real_prefix=$(realpath "$prefix")

# Fails unless path (a file or directory) resolves inside the temporary prefix.
require_in_prefix() {
    local what=$1 path=$2 real
    real=$(realpath -e "$path" 2>/dev/null) || fail "$what: $path does not exist"
    [[ $real == "$real_prefix"/* ]] || fail "$what resolves to $real, outside the install prefix $real_prefix"
}

step "find_package(eddy) consumer"
consumer=$tmp/consumer
quietly "configure tests/install" cmake -S tests/install -B "$consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$([[ $werror == ON ]] && echo -Werror)"
eddy_dir=$(sed -n 's/^eddy_DIR:[A-Z]*=//p' "$consumer/CMakeCache.txt")
require_in_prefix "find_package(eddy) eddy_DIR" "$eddy_dir"
quietly "build tests/install" cmake --build "$consumer"
"$consumer/eddy_install_check" || fail "find_package consumer did not run cleanly"

step "pkg-config consumer"
pc_file=$(find "$prefix" -name eddy.pc -path '*/pkgconfig/*' -print -quit)
[[ -n $pc_file ]] || fail "eddy.pc was not installed under the prefix"
export PKG_CONFIG_PATH=${pc_file%/*}
require_in_prefix "eddy.pc includedir" "$(pkg-config --variable=includedir eddy)/eddy/eddy.h"
libdir=$(pkg-config --variable=libdir eddy)
require_in_prefix "eddy.pc libdir" "$libdir"
pc_text=$(pkg-config --cflags --libs eddy) || fail "pkg-config --cflags --libs eddy"
read -r -a pc_flags <<<"$pc_text"
quietly "compile with pkg-config ($cc ${pc_flags[*]})" \
    "$cc" "${cflags[@]}" tests/install/main.c "${pc_flags[@]}" -o "$tmp/pkg_config_check"
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/pkg_config_check" ||
    fail "pkg-config consumer did not run cleanly"

step "ok"
