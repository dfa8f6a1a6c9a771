#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Denormals do not matter (docs/determinism.md, "Denormals"): every scene's
# golden trace is reproduced with denormals flushed (flush_denormals = true,
# FTZ+DAZ / FPCR.FZ) and kept (false, the default and WebAssembly's only
# mode). Called by scripts/test.sh after scripts/ci_matrix.sh; runs on its own
# too:  ./scripts/check_denormals.sh
#
# - x86-64, the main build: every scene, every golden frame, flushed, 1
#   worker (kept, the default, is scripts/ci_matrix.sh's "all golden frames"
#   stage: every golden frame at 4 workers);
# - aarch64 under qemu-user, the cross build of scripts/ci_matrix.sh (built
#   here if it is missing): every scene over its first aarch64_frames
#   frames, flushed and kept, 1 worker.
#
# Environment:
#   EDDY_BUILD_DIR=dir        the main build with eddy-verify in it (default build)
#   EDDY_CI_BUILD_ROOT=dir    where ci_matrix.sh put the aarch64 build (default build-ci)
#   EDDY_GOLDEN_DIR=dir       the goldens (default golden)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${EDDY_BUILD_DIR:-build}
ci_root=${EDDY_CI_BUILD_ROOT:-build-ci}
golden=${EDDY_GOLDEN_DIR:-golden}
jobs=$(nproc 2>/dev/null || echo 2)
aarch64_dir=$ci_root/aarch64
aarch64_frames=10
status=0

say() { printf '==> %s\n' "$*"; }
check() {
    local what=$1 start=$SECONDS
    shift
    say "denormals: $what"
    if "$@" --golden "$golden" --pin none; then
        say "denormals: $what: ok ($((SECONDS - start)) s)"
    else
        say "FAILED denormals: $what" >&2
        status=1
    fi
}

x86=$build_dir/verify/eddy-verify
if [[ -x $x86 ]]; then
    check "$(uname -m), flushed, every frame, 1 worker" "$x86" --denormals flush --threads 1
else
    echo "no $x86: build the main build first (scripts/test.sh does)"
    status=1
fi

if [[ ! -x $aarch64_dir/eddy-verify ]]; then
    say "denormals: building the aarch64 eddy-verify in $aarch64_dir"
    cmake -S verify -B "$aarch64_dir" --log-level=WARNING -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" >/dev/null &&
        cmake --build "$aarch64_dir" -j "$jobs" --target eddy-verify || status=1
fi
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu "$aarch64_dir/eddy-verify")
for mode in flush keep; do
    check "aarch64 (qemu), $mode, first $aarch64_frames frames, 1 worker" \
        "${qemu[@]}" --denormals "$mode" --threads 1 --frames "$aarch64_frames"
done
exit $status
