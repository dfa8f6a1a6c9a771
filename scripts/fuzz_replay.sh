#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzz the replay reader (and the snapshot/input/definition decoders behind
# it) with libFuzzer for a bounded time:  ./scripts/fuzz_replay.sh [SECONDS]
#
# Builds replay/fuzz/fuzz_replay with clang in build-fuzz/ (EDDY_FUZZ=ON:
# ASan + UBSan, checksums skipped so mutations reach the parsers), seeds it
# with replay/fuzz/seeds/ and the stored bad files of tests/corpus/replay/,
# and runs it for SECONDS (default 60, or $EDDY_FUZZ_SECONDS). Exits non-zero
# if the fuzzer finds a crash, a leak or a broken round trip; the input that
# did it is left in build-fuzz/fuzz-artifacts/. Add such inputs to the stored
# corpus (tests/corpus/replay/README.md) once fixed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-${EDDY_FUZZ_SECONDS:-60}}
build=${EDDY_FUZZ_BUILD_DIR:-build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

command -v clang >/dev/null 2>&1 || { echo "fuzz_replay.sh: clang not found (scripts/setup.sh installs it)" >&2; exit 2; }

echo "==> configuring $build (clang, EDDY_FUZZ=ON)"
CC=clang cmake -S . -B "$build" --log-level=WARNING -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEDDY_FUZZ=ON -DEDDY_BUILD_TESTS=OFF >/dev/null
echo "==> building fuzz_replay"
cmake --build "$build" --target fuzz_replay -j "$jobs" >/dev/null

corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus" "$artifacts"
cp replay/fuzz/seeds/* "$corpus/"
for f in tests/corpus/replay/*.eddyr; do          # mode byte 0: a replay file
    { printf '\000'; cat "$f"; } > "$corpus/bad_$(basename "$f")"
done

echo "==> fuzzing for ${seconds}s"
"$build/replay/fuzz_replay" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus"
echo "==> fuzz_replay: no crash in ${seconds}s"
