#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CI determinism matrix (docs/verify.md, "CI"): eddy-verify against the
# committed goldens across worker counts, pinning, the caller's FP mode,
# compilers, optimisation levels, sanitizers and architectures, plus the
# mutation checks and the fused-multiply-add check. Called by scripts/test.sh
# after the main build; runs on its own too:
#
#   ./scripts/ci_matrix.sh            the CI stages
#   ./scripts/ci_matrix.sh --full     also gcc -O0, clang -O3, clang -march=native
#                                     and clang ASan+UBSan, every scene and frame
#   ./scripts/ci_matrix.sh --list     the stages and what each checks
#
# Every stage runs even after one fails; the script prints a table of stage
# times and exits non-zero if any stage failed.
#
# Environment:
#   EDDY_BUILD_DIR=dir        the main build with eddy-verify in it (default build)
#   EDDY_CI_BUILD_ROOT=dir    where the extra builds go (default build-ci)
#   EDDY_CI_WERROR=ON|OFF     warnings as errors in the extra builds (default OFF:
#                             warnings are the main build's job, and clang warns
#                             where gcc does not)
#   EDDY_GOLDEN_DIR=dir       the goldens (default golden)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${EDDY_BUILD_DIR:-build}
ci_root=${EDDY_CI_BUILD_ROOT:-build-ci}
werror=${EDDY_CI_WERROR:-OFF}
jobs=$(nproc 2>/dev/null || echo 2)
golden=${EDDY_GOLDEN_DIR:-golden}
full=0

# The main matrix (issue 5): every scene at every worker count and pin policy
# over its first main_frames frames, then every golden frame of every scene
# at one multi-worker configuration (docs/verify.md states why).
main_threads=1,2,3,4,8,16
main_pins=none,pu
main_frames=100
long_threads=4
long_pin=pu
# Extra builds check every scene at two worker counts and both pin policies
# off (docs/verify.md states the subsets and why).
extra_threads=1,3
extra_frames=60
slow_frames=30          # -O0 and sanitizer builds
# aarch64 under qemu-user: six scenes covering vortons, tracers, an emitter,
# density, bodies and a container, 20 frames, 1 and 3 workers.
aarch64_scenes=vortex_ring,dye_drop,noise_cloud,curve_ball,container_drop,sloshing
aarch64_frames=20
aarch64_threads=1,3
# Mutation checks: the scene and the frames (the divergence comes early).
mutation_scene=vortex_ring
mutation_frames=30
# Rollback check (eddy-verify --synctest, docs/rollback.md): every frame,
# restore the state 4 frames back and re-simulate; vortons, an emitter,
# tracers, a ball, a polytope and a container, at 1 and 2 workers.
synctest_scenes=jet_ring,ball_through_smoke,box_spin,plume_plate,sloshing
synctest_depth=4
synctest_frames=30
synctest_threads=1,2

stage_names=()
stage_seconds=()
stage_results=()

say() { printf '==> %s\n' "$*"; }

# stage NAME COMMAND...: run, time and record one stage.
stage() {
    local name=$1
    shift
    say "stage: $name"
    local start=$SECONDS
    local result=ok
    "$@" || result=FAILED
    stage_names+=("$name")
    stage_seconds+=($((SECONDS - start)))
    stage_results+=("$result")
    [[ $result == ok ]] || printf '==> FAILED stage: %s\n' "$name" >&2
}

# ------------------------------------------------------------------ builds

# build_variant DIR CMAKE_ARGS...: configure the whole project in DIR without
# tests and build only eddy-verify (and what it links).
build_variant() {
    local dir=$1
    shift
    cmake -S . -B "$dir" --log-level=WARNING -DEDDY_BUILD_TESTS=OFF -DEDDY_WERROR="$werror" "$@" &&
        cmake --build "$dir" -j "$jobs" --target eddy-verify
}

# ------------------------------------------------------------------ checks

# run_verify BINARY ARGS...: eddy-verify against the committed goldens.
run_verify() {
    local binary=$1
    shift
    [[ -x $binary ]] || { echo "no executable $binary (did the build fail?)"; return 1; }
    "$binary" --golden "$golden" "$@"
}

# expect_mutation_caught WHAT ARGS...: eddy-verify must exit 1 and name the
# first divergent frame.
expect_mutation_caught() {
    local what=$1
    shift
    local out rc
    out=$("$build_dir/verify/eddy-verify" --golden "$golden" --scene "$mutation_scene" \
          --frames "$mutation_frames" --mutate "$what" "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed -n '/^FAIL/,$p' | head -n 12
    if ((rc != 1)); then
        echo "mutation '$what' was not caught: eddy-verify exited $rc, expected 1"
        return 1
    fi
    if ! grep -Eq 'first divergent frame [0-9]+' <<<"$out"; then
        echo "mutation '$what': eddy-verify failed but did not name the first divergent frame"
        return 1
    fi
    echo "mutation '$what' caught: exit 1, $(grep -Eom1 'first divergent frame [0-9]+' <<<"$out")"
}

# expect_synctest_restore_caught: a restore that keeps the newer flow grid
# (test-only mutation) must make --synctest exit 1 naming frame and component.
expect_synctest_restore_caught() {
    local out rc
    out=$("$build_dir/verify/eddy-verify" --synctest 2 --scene ball_through_smoke --frames 10 \
          --threads 2 --mutate restore 2>&1)
    rc=$?
    printf '%s\n' "$out"
    if ((rc != 1)); then
        echo "mutation 'restore' was not caught by --synctest: exit $rc, expected 1"
        return 1
    fi
    grep -Eq 'MISMATCH: frame [0-9]+ .*component [a-z]+, block [0-9]+' <<<"$out" || {
        echo "mutation 'restore': --synctest failed without naming frame, component and block"
        return 1
    }
}

# desync_between_logs: hash logs of noise_cloud written at 1 worker and at 3
# workers with the reduction mutation must be told apart by --desync (exit 1,
# naming frame, component and block); equal runs are in sync (exit 0); a cut
# log is refused (exit 3).
desync_between_logs() {
    local dir=$ci_root/desync v=$build_dir/verify/eddy-verify out rc
    mkdir -p "$dir"
    "$v" --hash-log "$dir/a.hlog" --scene noise_cloud --frames 6 --threads 1 >/dev/null &&
        "$v" --hash-log "$dir/b.hlog" --scene noise_cloud --frames 6 --threads 3 >/dev/null &&
        "$v" --hash-log "$dir/c.hlog" --scene noise_cloud --frames 6 --threads 3 \
            --mutate reduction >/dev/null || return 1
    "$v" --desync "$dir/a.hlog,$dir/b.hlog" || { echo "equal runs not in sync"; return 1; }
    out=$("$v" --desync "$dir/a.hlog,$dir/c.hlog" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    ((rc == 1)) && grep -Eq '^desync at frame [0-9]+: component [a-z]+, block [0-9]+' <<<"$out" ||
        { echo "--desync did not locate the planted divergence (exit $rc)"; return 1; }
    head -c 1000 "$dir/a.hlog" >"$dir/cut.hlog"
    "$v" --desync "$dir/a.hlog,$dir/cut.hlog"
    rc=$?
    ((rc == 3)) || { echo "a cut hash log was not refused (exit $rc)"; return 1; }
}

# Fused multiply-add mnemonics: x86 FMA3/FMA4 (vfmadd231ss, vfnmsub213pd,
# vfmaddsub..., vfmaddss) and aarch64 (fmadd, fmsub, fnmadd, fnmsub, fmla, fmls).
fma_pattern='^[[:space:]]*[0-9a-f]+:[[:space:]]+(v?fn?m(add|sub)|vfmaddsub|vfmsubadd|fml[as])[0-9a-z.]*([[:space:]]|$)'

# fma_scan OBJDUMP FILE...: fail loudly if any file holds an FMA instruction.
fma_scan() {
    local objdump=$1
    shift
    local file hits status=0
    for file in "$@"; do
        [[ -f $file ]] || { echo "FMA check: $file is missing"; status=1; continue; }
        hits=$("$objdump" -d --no-show-raw-insn "$file" | grep -Ec "$fma_pattern")
        if ((hits > 0)); then
            echo "!!! FMA CHECK FAILED: $hits fused multiply-add instruction(s) in $file:"
            "$objdump" -d --no-show-raw-insn "$file" | grep -E "$fma_pattern" | head -n 10
            status=1
        else
            echo "FMA check: no fused multiply-add instruction in $file"
        fi
    done
    return $status
}

# The scan must be able to fail: an object built to contain FMA is found.
fma_self_test() {
    local dir=$ci_root/fma-self-test
    mkdir -p "$dir"
    printf 'float f(float a, float b, float c) { return a * b + c; }\n' >"$dir/fma.c"
    gcc -O2 -mfma -ffp-contract=fast -c "$dir/fma.c" -o "$dir/fma.o" || return 1
    if fma_scan objdump "$dir/fma.o" >/dev/null; then
        echo "FMA check self-test: the scan missed an FMA instruction"
        return 1
    fi
    echo "FMA check self-test: an object with FMA is caught"
}

fma_check_x86() {
    fma_self_test &&
        fma_scan objdump "$build_dir/libeddy.a" "$build_dir/verify/eddy-verify" \
            "$ci_root/gcc-native/libeddy.a" "$ci_root/gcc-native/verify/eddy-verify"
}

# ------------------------------------------------------------------ aarch64

aarch64_build() {
    local dir=$ci_root/aarch64
    cmake -S verify -B "$dir" --log-level=WARNING -DCMAKE_BUILD_TYPE=Release \
        -DEDDY_WERROR="$werror" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" &&
        cmake --build "$dir" -j "$jobs" --target eddy-verify eddy-fp-contract
}

aarch64_check() {
    local dir=$ci_root/aarch64
    fma_scan aarch64-linux-gnu-objdump "$dir/eddy/libeddy.a" "$dir/eddy-verify" || return 1
    run_verify_qemu "$dir/eddy-verify" --scene "$aarch64_scenes" --frames "$aarch64_frames" \
        --threads "$aarch64_threads" --hostile-fp
}

# The FP contract (docs/determinism.md) on aarch64: FPCR and FPSR of the caller
# unchanged by a step and a hash, every scene and caller mode, 3 workers.
# qemu ignores FP trap enables, so there it checks modes and flags only.
aarch64_fp_contract() {
    local binary=$ci_root/aarch64/eddy-fp-contract
    [[ -x $binary ]] || { echo "no executable $binary (did the build fail?)"; return 1; }
    qemu-aarch64 -L /usr/aarch64-linux-gnu "$binary" --frames 1 --threads 3
}

run_verify_qemu() {
    local binary=$1
    shift
    [[ -x $binary ]] || { echo "no executable $binary (did the build fail?)"; return 1; }
    qemu-aarch64 -L /usr/aarch64-linux-gnu "$binary" --golden "$golden" "$@"
}

# ------------------------------------------------------------------ stages

# Extra builds: name, cmake arguments, frames to check.
variant_stages() {
    stage "build gcc -O3" build_variant "$ci_root/gcc-O3" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG"
    stage "verify gcc -O3" run_verify "$ci_root/gcc-O3/verify/eddy-verify" \
        --frames "$extra_frames" --threads "$extra_threads" --hostile-fp
    stage "build clang -O0" build_variant "$ci_root/clang-O0" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS_DEBUG="-O0 -g"
    stage "verify clang -O0" run_verify "$ci_root/clang-O0/verify/eddy-verify" \
        --frames "$slow_frames" --threads "$extra_threads" --hostile-fp
    stage "build gcc ASan+UBSan" build_variant "$ci_root/gcc-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=gcc -DEDDY_SANITIZE=ON
    stage "verify gcc ASan+UBSan" run_verify "$ci_root/gcc-asan/verify/eddy-verify" \
        --frames "$slow_frames" --threads "$extra_threads" --hostile-fp
    stage "build gcc -O3 -march=native" build_variant "$ci_root/gcc-native" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG" \
        -DEDDY_NATIVE=ON
    stage "verify gcc -march=native" run_verify "$ci_root/gcc-native/verify/eddy-verify" \
        --frames "$extra_frames" --threads "$extra_threads" --hostile-fp
}

# --full only: the rest of the compiler x level x flags product.
full_variant_stages() {
    stage "build gcc -O0" build_variant "$ci_root/gcc-O0" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS_DEBUG="-O0 -g"
    stage "verify gcc -O0" run_verify "$ci_root/gcc-O0/verify/eddy-verify" --threads 1,4 --hostile-fp
    stage "build clang -O3" build_variant "$ci_root/clang-O3" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG"
    stage "verify clang -O3" run_verify "$ci_root/clang-O3/verify/eddy-verify" --threads 1,4 --hostile-fp
    stage "build clang -march=native" build_variant "$ci_root/clang-native" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DEDDY_NATIVE=ON
    stage "verify clang -march=native" run_verify "$ci_root/clang-native/verify/eddy-verify" \
        --threads 1,4 --hostile-fp
    stage "FMA check clang -march=native" fma_scan objdump "$ci_root/clang-native/libeddy.a"
    stage "build clang ASan+UBSan" build_variant "$ci_root/clang-asan" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DEDDY_SANITIZE=ON
    stage "verify clang ASan+UBSan" run_verify "$ci_root/clang-asan/verify/eddy-verify" \
        --threads 1,4 --hostile-fp
}

list_stages() {
    cat <<EOF
matrix          $build_dir/verify/eddy-verify (gcc, RelWithDebInfo): every scene, first $main_frames
                frames, workers {$main_threads} x pin {$main_pins}, hostile caller/worker FP mode
all frames      the same build: every scene, every golden frame, $long_threads workers pinned per $long_pin, hostile FP
original        the seed's treecode traversal against golden/original: every scene, first
                $main_frames frames, workers {1,2,3}, hostile FP
mutation        --mutate reduction (workers 2,3,4) and --mutate fp-mode (workers 4, hostile FP):
                $mutation_scene, $mutation_frames frames; must exit 1 and name the first divergent frame
synctest        --synctest $synctest_depth: $synctest_scenes, $synctest_frames frames, workers {$synctest_threads};
                then --mutate restore must make --synctest exit 1 naming frame, component, block
desync          hash logs of noise_cloud (1 worker; 3 workers; 3 with --mutate reduction):
                --desync must say in sync, then locate the divergence, and refuse a cut log
gcc -O3         every scene, $extra_frames frames, workers {$extra_threads}, hostile FP
clang -O0       every scene, $slow_frames frames, workers {$extra_threads}, hostile FP
gcc ASan+UBSan  every scene, $slow_frames frames, workers {$extra_threads}, hostile FP
gcc -march=native -O3: every scene, $extra_frames frames, workers {$extra_threads}, hostile FP
FMA check       objdump of libeddy.a and eddy-verify (main and -march=native builds, aarch64)
aarch64         cross gcc, no hwloc, under qemu-aarch64: $aarch64_scenes,
                $aarch64_frames frames, workers {$aarch64_threads}, hostile FP;
                FP contract (eddy-fp-contract): every scene and caller mode, 3 workers
--full adds     gcc -O0, clang -O3, clang -march=native (+FMA check), clang ASan+UBSan:
                every scene and frame, workers {1,4}
EOF
}

print_times() {
    say "determinism matrix: stage times (seconds)"
    local i total=0
    for i in "${!stage_names[@]}"; do
        printf '    %-34s %6d  %s\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "${stage_results[$i]}"
        total=$((total + stage_seconds[i]))
    done
    printf '    %-34s %6d\n' "total" "$total"
}

main() {
    case ${1:-} in
    --full) full=1 ;;
    --list) list_stages; return 0 ;;
    "") ;;
    *) echo "usage: scripts/ci_matrix.sh [--full|--list]" >&2; return 2 ;;
    esac
    stage "matrix (main build)" run_verify "$build_dir/verify/eddy-verify" --scene all \
        --frames "$main_frames" --threads "$main_threads" --pin "$main_pins" --hostile-fp
    stage "all golden frames (main build)" run_verify "$build_dir/verify/eddy-verify" \
        --scene all --threads "$long_threads" --pin "$long_pin" --hostile-fp
    stage "original treecode ($golden/original)" "$build_dir/verify/eddy-verify" \
        --treecode original --golden "$golden/original" --scene all --frames "$main_frames" \
        --threads 1,2,3 --hostile-fp
    stage "mutation: reduction" expect_mutation_caught reduction --threads 2,3,4
    stage "mutation: fp-mode" expect_mutation_caught fp-mode --threads 4 --hostile-fp
    stage "synctest (rollback)" "$build_dir/verify/eddy-verify" --synctest "$synctest_depth" \
        --scene "$synctest_scenes" --frames "$synctest_frames" --threads "$synctest_threads"
    stage "mutation: restore (synctest)" expect_synctest_restore_caught
    stage "desync localisation (hash logs)" desync_between_logs
    variant_stages
    stage "FMA check (gcc, gcc -march=native)" fma_check_x86
    stage "build aarch64 (no hwloc)" aarch64_build
    stage "verify aarch64 under qemu" aarch64_check
    stage "FP contract aarch64 under qemu" aarch64_fp_contract
    ((full)) && full_variant_stages
    print_times
    local r
    for r in "${stage_results[@]}"; do
        [[ $r == ok ]] || return 1
    done
    say "determinism matrix passed"
}

main "$@"
