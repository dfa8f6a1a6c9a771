#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzz eddy's decoders with libFuzzer for a bounded time:
#   ./scripts/fuzz_replay.sh [SECONDS] [TARGET ...]
#
# Targets (replay/fuzz/fuzz_TARGET.c): replay (the replay reader and the
# decoders behind it), snapshot (eddy_world_restore, then a step), input
# (eddy_input_decode, then the input applied to a world), golden (the
# golden-file reader of eddy-verify) and desync (a hostile peer's desync search
# messages and hash logs). Default: all five. SECONDS (default 60, or
# $EDDY_FUZZ_SECONDS) is the time of each target.
#
# Builds the targets with clang in build-fuzz/ (EDDY_FUZZ=ON: ASan + UBSan,
# checksums skipped so mutations reach the parsers), seeds each with its
# seeds and stored regression inputs (replay/fuzz/seeds/,
# replay/fuzz/regressions/TARGET/, and for replay the stored bad files of
# tests/corpus/replay/), and runs it. Exits non-zero if a fuzzer finds a
# crash, a leak, a broken round trip or an allocation beyond 2 GB; the input
# that did it is left in build-fuzz/fuzz-artifacts/TARGET/. Once fixed, add it
# to replay/fuzz/regressions/TARGET/ (README.md there), where
# test_fuzz_regressions replays it in every test run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-${EDDY_FUZZ_SECONDS:-60}}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(replay snapshot input golden desync)
build=${EDDY_FUZZ_BUILD_DIR:-build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

command -v clang >/dev/null 2>&1 || { echo "fuzz_replay.sh: clang not found (scripts/setup.sh installs it)" >&2; exit 2; }

echo "==> configuring $build (clang, EDDY_FUZZ=ON)"
CC=clang cmake -S . -B "$build" --log-level=WARNING -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEDDY_FUZZ=ON -DEDDY_BUILD_TESTS=OFF >/dev/null
echo "==> building ${targets[*]/#/fuzz_}"
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}" >/dev/null

# Seeds of one target into its working corpus.
seed_corpus() {
    local target=$1 corpus=$2
    mkdir -p "$corpus"
    cp replay/fuzz/regressions/"$target"/* "$corpus/" 2>/dev/null || true
    rm -f "$corpus/README.md"
    if [ "$target" = replay ]; then
        cp replay/fuzz/seeds/* "$corpus/"
        for f in tests/corpus/replay/*.eddyr; do          # mode byte 0: a replay file
            { printf '\000'; cat "$f"; } > "$corpus/bad_$(basename "$f")"
        done
    fi
}

for target in "${targets[@]}"; do
    corpus="$build/fuzz-corpus/$target"
    artifacts="$build/fuzz-artifacts/$target"
    mkdir -p "$artifacts"
    seed_corpus "$target" "$corpus"
    echo "==> fuzzing $target for ${seconds}s"
    log="$build/fuzz-$target.log"
    status=0
    "$build/replay/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" \
        >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log" >&2
        echo "==> fuzz_$target FAILED (exit $status): the input is in $artifacts/" >&2
        exit 1
    fi
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" | tr '\n' ' '; echo
    echo "==> fuzz_$target: no crash in ${seconds}s"
done
