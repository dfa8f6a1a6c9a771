#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The WebAssembly stage (docs/wasm.md): eddy built with Debian's emscripten,
# checked against the committed goldens under node and in headless Chromium.
# Called by scripts/test.sh; runs on its own too:  ./scripts/check_wasm.sh
#
# 1. single-threaded build (library, scenes, eddy-verify, the web page) and a
#    pthreads build (eddy-verify with the built-in pool on Web Workers);
# 2. node: every scene, every golden frame at 1 worker; a world asking to
#    flush denormals refused; every scene at 2 and 3 workers with pthreads
#    over its first pthread_frames frames;
#    the FP contract check (eddy-fp-contract) with pthreads at 1 and 3 workers;
#    the JS package (bindings/js/test/node_test.mjs): scenes against their
#    goldens, snapshots, smoke volumes and sight lines, and, when the native
#    build has eddy-smoke-bench, a smoke volume's hash equal to the native one;
# 3. Chromium: tests/browser/browser_test.js serves <build>/web with
#    `python3 -m http.server` on 127.0.0.1, runs two scenes in the page with
#    their smoke ray-marched in WebGL2 (SwiftShader) and requires every frame
#    hash to match its golden, the canvas not blank, the smoke drawn in its
#    region and nowhere else, and the last frame drawn as particles too;
#    screenshots in <build>/web-<scene>.png.
#
# Environment:
#   EDDY_WASM_BUILD_DIR=dir   single-threaded build (default build-wasm-em)
#   EDDY_WASM_PTHREAD_DIR=dir pthreads build (default build-wasm-em-pt)
#   EDDY_NATIVE_BUILD_DIR=dir native build with eddy-smoke-bench (default build)
#   EDDY_CHROMIUM=path        the browser (default /usr/bin/chromium)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${EDDY_WASM_BUILD_DIR:-build-wasm-em}
pthread_dir=${EDDY_WASM_PTHREAD_DIR:-build-wasm-em-pt}
chromium=${EDDY_CHROMIUM:-/usr/bin/chromium}
jobs=$(nproc 2>/dev/null || echo 2)
golden=$PWD/golden
pthread_threads=2,3
pthread_frames=30
native_dir=${EDDY_NATIVE_BUILD_DIR:-build}
# smoke_grenade: the gameplay scene (its room, its sight line); buoyant_ball:
# smoke around bodies in a closed box (and its last frame as particles).
browser_scenes=smoke_grenade,buoyant_ball
# The JavaScript package (bindings/js) under node: these scenes through its API
# against every golden frame (the page in Chromium runs on the same package).
js_scenes=(vortex_ring ball_through_smoke buoyant_ball container_drop curve_ball dye_drop)

# Debian's emcc runs its JavaScript optimizer with node and needs node's
# system modules (acorn) from here; emscripten 3.1.6's output needs
# --no-experimental-fetch on node >= 18 (it would fetch() the .wasm by path).
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
node_run=(node --no-experimental-fetch)

stage_names=()
stage_seconds=()
stage_results=()
say() { printf '==> %s\n' "$*"; }

stage() {
    local name=$1
    shift
    say "wasm stage: $name"
    local start=$SECONDS result=ok
    "$@" || result=FAILED
    stage_names+=("$name")
    stage_seconds+=($((SECONDS - start)))
    stage_results+=("$result")
    [[ $result == ok ]] || printf '==> FAILED wasm stage: %s\n' "$name" >&2
}

need_tools() {
    local tool missing=0
    for tool in emcc emcmake node npm python3 "$chromium"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "missing: $tool (scripts/setup.sh installs it)"; missing=1; }
    done
    return $missing
}

# build DIR CMAKE_ARGS...: the standalone verifier project (library, scenes,
# eddy-verify and, without pthreads, the web page) with emscripten.
build() {
    local dir=$1
    shift
    emcmake cmake -S verify -B "$dir" --log-level=WARNING -DCMAKE_BUILD_TYPE=Release \
        -DEDDY_WERROR=ON "$@" >/dev/null &&
        cmake --build "$dir" -j "$jobs"
}

verify_node() {
    local dir=$1
    shift
    "${node_run[@]}" "$dir/eddy-verify.js" --golden "$golden" --pin none "$@"
}

# WebAssembly cannot flush denormals: a world that asks is refused, with a
# message, not run in another mode (docs/wasm.md).
flush_refused() {
    local out rc
    out=$(verify_node "$build_dir" --scene vortex_ring --frames 1 --threads 1 --denormals flush 2>&1)
    rc=$?
    if ((rc != 1)) || ! grep -q 'cannot flush denormals' <<<"$out"; then
        printf '%s\n' "$out" | tail -n 5
        echo "--denormals flush under node: expected exit 1 and 'cannot flush denormals', got exit $rc"
        return 1
    fi
    echo "refused: $(grep -om1 'EDDY_ERROR_INVALID_DEF.*cannot flush denormals' <<<"$out")"
}

browser_test() {
    if [[ ! -d tests/browser/node_modules/playwright-core ]]; then
        (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) || return 1
    fi
    node tests/browser/browser_test.js --web "$build_dir/web" --out "$build_dir" \
        --scenes "$browser_scenes" --chromium "$chromium"
}

# The native smoke volume the package's must equal: vortex_ring at frame 41,
# the cube of half-extent 3 at 48^3 voxels (eddy-smoke-bench's line).
native_smoke() {
    local bench=$native_dir/eddy-smoke-bench line
    [[ -x $bench ]] || return 0
    line=$("$bench" --scene vortex_ring --frames 40 --resolution 48 --half-extent 3 --reps 1 \
        --segments 16 --workers 1 2>/dev/null) || return 0
    [[ $line =~ frame\ ([0-9]+).*volume\ hash\ ([0-9a-f]{16}) ]] &&
        printf 'vortex_ring %s 3 48 %s' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
}

js_package() {
    local native
    native=$(native_smoke)
    [[ -n $native ]] || echo "no $native_dir/eddy-smoke-bench: the smoke volume is not compared with native"
    EDDY_NATIVE_SMOKE=$native "${node_run[@]}" bindings/js/test/node_test.mjs "$build_dir/eddy-js" \
        "$golden" "${js_scenes[@]}"
}

stage "tools" need_tools
stage "emscripten build (single-threaded + web page)" build "$build_dir"
stage "emscripten build (pthreads)" build "$pthread_dir" -DEDDY_WASM_PTHREADS=ON
stage "node: every scene, every golden frame, 1 worker" verify_node "$build_dir" --threads 1
stage "node: flush_denormals = true is refused" flush_refused
stage "node + pthreads: every scene, workers $pthread_threads, $pthread_frames frames" \
    verify_node "$pthread_dir" --threads "$pthread_threads" --frames "$pthread_frames"
stage "node + pthreads: FP contract (eddy-fp-contract), workers 1,3" \
    "${node_run[@]}" "$pthread_dir/eddy-fp-contract.js" --threads 1,3
stage "node: the JS package (bindings/js), ${#js_scenes[@]} scenes, every golden frame" js_package
stage "Chromium: web page on the JS package, $browser_scenes" browser_test

say "wasm stage times"
status=0
for i in "${!stage_names[@]}"; do
    printf '    %-62s %4ss  %s\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "${stage_results[$i]}"
    [[ ${stage_results[$i]} == ok ]] || status=1
done
printf '    %-62s %4ss\n' "total" "$SECONDS"
exit $status
