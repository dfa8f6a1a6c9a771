#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The C# bindings (bindings/csharp/, docs/integration.md §12) under mono:
#
# 1. libeddy.so and libeddy_replay.so built shared in $EDDY_CSHARP_BUILD_DIR
#    (default build-csharp), and the scene builders as a test library
#    (libeddy_scenes.so) so the tests can build the golden scenes;
# 2. EddyLayout.g.cs generated from the headers (bindings/csharp/layout_gen.c);
# 3. Eddy.dll and the tests compiled with mcs (Debian's mono-mcs);
# 4. under mono: first the bindings' structs against the C layout (size and
#    every field's offset; a difference stops the run before any struct
#    crosses), then every scene at 1 and 4 workers against every frame of its
#    golden, a snapshot/restore round trip, no managed allocation per step, a
#    step with a C# Input, errors as exceptions, and a replay recorded from
#    C#, which eddy-verify (from $EDDY_BUILD_DIR, default build) then plays
#    back at 1, 2 and 4 workers, every frame hash checked.
#
#   scripts/check_csharp.sh [scene ...]      (default: every golden scene)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir=${EDDY_CSHARP_BUILD_DIR:-build-csharp}
build_dir=${EDDY_BUILD_DIR:-build}
werror=${EDDY_WERROR:-OFF}
jobs=$(nproc 2>/dev/null || echo 2)
started=$SECONDS

step() { printf -- '--> csharp: %s (at %d s)\n' "$*" $((SECONDS - started)); }
fail() { printf -- '--> csharp: FAILED: %s\n' "$*" >&2; exit 1; }

command -v mcs >/dev/null && command -v mono >/dev/null ||
    fail "mcs and mono not found (scripts/setup.sh installs mono-mcs and mono-runtime)"
verify=$build_dir/verify/eddy-verify
[[ -x $verify ]] || fail "no $verify (build $build_dir first)"

step "shared libeddy and libeddy_replay in $dir"
cmake -S . -B "$dir" --log-level=WARNING -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDDY_WERROR="$werror" \
    -DBUILD_SHARED_LIBS=ON -DEDDY_BUILD_TESTS=OFF -DEDDY_BUILD_TOOLS=OFF || fail "cmake configure"
cmake --build "$dir" -j "$jobs" --target eddy eddy_replay eddy_scenes || fail "build"
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
"$cc" -shared -o "$dir/libeddy_scenes.so" -Wl,--whole-archive "$dir/libeddy_scenes.a" \
    -Wl,--no-whole-archive -L"$dir" -leddy -lm || fail "libeddy_scenes.so"

out=$dir/csharp
mkdir -p "$out"
step "EddyLayout.g.cs from the headers"
"$cc" -std=c17 -Iinclude -Iscenes bindings/csharp/layout_gen.c -o "$out/layout_gen" || fail "layout_gen"
"$out/layout_gen" >"$out/EddyLayout.g.cs" || fail "layout_gen run"

step "mcs: Eddy.dll and eddy_tests.exe"
mcs -nologo -warnaserror -unsafe -target:library -out:"$out/Eddy.dll" \
    bindings/csharp/Eddy.cs "$out/EddyLayout.g.cs" || fail "mcs Eddy.dll"
mcs -nologo -warnaserror -unsafe -r:"$out/Eddy.dll" -out:"$out/eddy_tests.exe" \
    bindings/csharp/tests/EddyTests.cs "$out/EddyLayout.g.cs" || fail "mcs eddy_tests.exe"

step "mono: the layout, the goldens at 1 and 4 workers, snapshots, allocations, errors, a recording"
replay=$out/from_csharp.eddyr
rm -f "$replay"
LD_LIBRARY_PATH="$PWD/$dir:$PWD/$dir/replay${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    mono --debug "$out/eddy_tests.exe" golden "$replay" "$@" || fail "eddy_tests.exe under mono"

step "eddy-verify plays back the replay recorded from C#"
"$verify" --replay "$replay" --threads 1,2,4 || fail "eddy-verify --replay $replay"
step "passed"
