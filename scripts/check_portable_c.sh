#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lib/ and include/ use no GCC-only extension, so MSVC can build them
# (docs/verify.md, "Windows x64"). Three checks over the files a Windows x64
# build compiles (every .c and header of lib/ except the back ends of other
# platforms: lib/runtime/*_posix.c and lib/runtime/fpenv_*.c other than fpenv_x86_64.c):
#
# 1. No GCC-only token (__attribute__, __builtin_*, __asm__/asm, typeof,
#    __extension__, __int128, __label__, __thread) outside a #define: each
#    use must sit behind a macro with a non-GNU branch (EDDY_PRINTF_LIKE,
#    EDDY_API).
# 2. clang with __GNUC__ undefined (as under MSVC: the non-GNU branches of
#    those macros are taken), -std=c17 -pedantic -Wgnu -Werror, on the host's
#    C library headers: ISO C17 only, no GNU syntax (statement expressions,
#    case ranges, ?: without middle operand, out-of-range enumerators...).
#    xxHash's own MSVC support is its business: it is checked scalar
#    (XXH_VECTOR=0), since its SSE2 path is picked by __GNUC__ or _MSC_VER.
# 3. The same flags (with __GNUC__, which MinGW-w64's headers need) for the
#    Windows target: clang --target=x86_64-w64-mingw32, so the _WIN32 branches
#    and lib/runtime/thread_win32.c are parsed too.
# What is not covered: MSVC's own headers and its C11 support (C11 atomics
# need VS 2022 17.5+ with /experimental:c11atomics; _Thread_local and
# _Alignas need /std:c17), which only a real MSVC build proves.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cc=${EDDY_PORTABLE_CC:-clang}
xxhash_dir=${EDDY_XXHASH_DIR:-/usr/include}
fail() { printf 'check_portable_c: %s\n' "$*" >&2; exit 1; }
command -v "$cc" >/dev/null || fail "$cc not found (scripts/setup.sh installs clang)"

windows_sources() {
    local f
    for f in lib/*.c lib/*/*.c lib/*/*.h include/eddy/*.h; do
        case $f in
        lib/*/*_posix.c) continue ;;
        lib/runtime/fpenv_*.c) [[ $f == lib/runtime/fpenv_x86_64.c ]] || continue ;;
        esac
        printf '%s\n' "$f"
    done
}
mapfile -t files < <(windows_sources)

# 1. GCC-only tokens outside #define lines (and their continuations).
hits=$(awk '
    FNR == 1 { in_define = 0 }
    { is_define = in_define || $0 ~ /^[ \t]*#[ \t]*define/
      in_define = is_define && $0 ~ /\\$/ }
    !is_define && /__attribute__|__builtin_|__asm__|(^|[^_a-zA-Z])asm[ \t]*\(|typeof|__extension__|__int128|__label__|__thread[^_a-zA-Z]/ {
        printf "%s:%d: %s\n", FILENAME, FNR, $0 }' "${files[@]}")
[[ -z $hits ]] || fail "GCC-only extension outside a macro:"$'\n'"$hits"

# 2 and 3. ISO C17 parses with and without GNU, for the host and for Windows.
flags=(-std=c17 -pedantic -Wgnu -Werror -fsyntax-only -Iinclude -Ilib -D_POSIX_C_SOURCE=200809L)
xxdir=$(mktemp -d)
trap 'rm -rf "$xxdir"' EXIT
cp "$xxhash_dir/xxhash.h" "$xxdir/" # alone: a cross target must not see /usr/include
for f in "${files[@]}"; do
    [[ $f == *.c ]] || continue
    if [[ $f != lib/*/*_win32.c ]]; then
        "$cc" "${flags[@]}" -I"$xxdir" -U__GNUC__ -DXXH_VECTOR=0 "$f" ||
            fail "$f is not ISO C17 without GNU extensions (clang -U__GNUC__)"
    fi
    "$cc" --target=x86_64-w64-mingw32 "${flags[@]}" -I"$xxdir" "$f" ||
        fail "$f does not parse as ISO C17 for Windows x64 (clang --target=x86_64-w64-mingw32)"
done
printf '#include "eddy/%s"\n' $(cd include/eddy && ls *.h) > "$xxdir/headers.c"
"$cc" "${flags[@]}" -U__GNUC__ "$xxdir/headers.c" || fail "include/eddy is not ISO C17 without GNU"
echo "check_portable_c: ${#files[@]} files of lib/ and include/ use no GCC-only extension"
