#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Symbol check: every external symbol a library of eddy defines starts with
# eddy_ or EDDY_, so a game that defines its own parallel_for or read_file
# still links. Runs nm on each library given (static archives: every global
# defined symbol, hidden ones included; shared objects: the dynamic symbol
# table, what the library exports) and prints each offender with its library.
#
#   scripts/check_symbols.sh build/libeddy.a build/replay/libeddy_replay.a
#   scripts/check_symbols.sh <prefix>/lib/libeddy.so.0 ...
#
# Run by ctest as the test `symbols` on the libraries of the build, and by
# scripts/check_install.sh on the installed ones (static and shared).
# Exit: 0 all clean, 1 an offender, 2 usage or a library nm cannot read.
set -euo pipefail
NM=${NM:-nm}

(($# > 0)) || { echo "usage: $0 LIBRARY..." >&2; exit 2; }

# Defined by the static linker in every shared object, not by eddy's code.
linker_defined='^(_init|_fini|_edata|_end|__bss_start)$'

bad=0
for lib in "$@"; do
    [[ -f $lib ]] || { echo "check_symbols: no such library: $lib" >&2; exit 2; }
    case $lib in
        *.so | *.so.*) flags=(-D --defined-only) ;;
        *) flags=(-g --defined-only) ;;
    esac
    out=$("$NM" "${flags[@]}" "$lib" 2>&1) || { echo "check_symbols: $NM failed on $lib: $out" >&2; exit 2; }
    # Lines are "<value> <type> <name>" (archives add "member.o:" headers).
    names=$(awk 'NF == 3 && $2 ~ /^[A-Za-z]$/ { print $3 }' <<<"$out" | sort -u)
    total=$(grep -c . <<<"$names" || true)
    offenders=$(grep -Ev '^(eddy_|EDDY_)' <<<"$names" | grep -Ev "$linker_defined" || true)
    if [[ -n $offenders ]]; then
        while IFS= read -r name; do
            printf '%s: external symbol without the eddy_ prefix: %s\n' "$lib" "$name"
            bad=$((bad + 1))
        done <<<"$offenders"
    else
        printf '%s: %d external symbols, all eddy_/EDDY_\n' "$lib" "$total"
    fi
    ((total > 0)) || { echo "check_symbols: $lib defines no external symbol at all" >&2; exit 2; }
done
if ((bad > 0)); then
    printf 'check_symbols: %d symbols without the prefix\n' "$bad"
    exit 1
fi
