#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lib/'s dependency rule (docs/architecture.md, "Layers"): a file of lib/ uses
# only its own folder and the folders its row of the table names.
#
#   scripts/check_layers.sh [--nm NM] [OBJECT ...]
#   scripts/check_layers.sh --self-test
#
# Reads the rule from docs/architecture.md, then checks
#   1. includes: every #include "..." of lib/ names a lib header by folder
#      ("fluid/fluid.h") and the folder is allowed;
#   2. calls (when objects are given): every symbol an object of lib/ uses
#      and another object of lib/ defines lives in an allowed folder (nm).
# --self-test plants a forbidden include in a copy of lib/ and expects the
# include check to refuse it. Exit 0: the rule holds; 1: it does not.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nm_tool=nm
self_test=0
objects=()
while (($#)); do
    case $1 in
    --nm) nm_tool=$2; shift 2 ;;
    --self-test) self_test=1; shift ;;
    *) # ctest passes $<TARGET_OBJECTS:...> as one ;-separated argument
        IFS=';' read -r -a more <<<"$1"; objects+=("${more[@]}"); shift ;;
    esac
done

# The rule: "| `folder/` | holds | may use |" rows of the Layers table.
# Prints "folder allowed..." lines; world.c's row becomes "world *".
read_rule() {
    awk -F'|' '
        /^## Layers/ { on = 1; next }
        /^## / { on = 0 }
        on && /^\| `/ {
            name = $2; gsub(/[ `\/]/, "", name); sub(/\.c$/, "", name)
            uses = $4; gsub(/`|\/|,/, " ", uses)
            if (uses ~ /every folder/) uses = "*"
            else if (uses ~ /\(none\)/) uses = ""
            gsub(/ +/, " ", uses); sub(/^ /, "", uses); sub(/ $/, "", uses)
            print name, uses
        }' "$1"
}

# folder of a path under lib/: runtime, core, ... or "world" for lib/world.c
folder_of() {
    local rel=${1##*/lib/}
    if [[ $rel == */* ]]; then printf '%s\n' "${rel%%/*}"; else printf 'world\n'; fi
}

declare -A allowed
load_rule() {
    local name uses
    allowed=()
    while read -r name uses; do allowed[$name]=" $uses "; done < <(read_rule "$1")
    local f
    for f in runtime core hash bodies fluid state world; do
        [[ -n ${allowed[$f]+x} ]] || { echo "check_layers: $1 has no row for $f" >&2; return 1; }
    done
}

may_use() { # from to
    [[ $1 == "$2" || ${allowed[$1]} == " * " || ${allowed[$1]} == *" $2 "* ]]
}

check_includes() { # lib_dir
    local lib=$1 bad=0 file from line target to
    while IFS= read -r file; do
        from=$(folder_of "$file")
        while IFS= read -r line; do
            target=${line#*\"}; target=${target%%\"*}
            [[ $target == eddy/* ]] && continue # public headers: open to all
            if [[ $target != */* || $target == ../* ]]; then
                echo "check_layers: ${file#"$lib"/}: #include \"$target\" does not name a lib/ folder" >&2
                bad=1; continue
            fi
            to=${target%%/*}
            if [[ ! -e $lib/$target ]]; then
                echo "check_layers: ${file#"$lib"/}: #include \"$target\": no such file in lib/" >&2
                bad=1
            elif ! may_use "$from" "$to"; then
                echo "check_layers: ${file#"$lib"/} ($from/) includes $target: $from/ may not use $to/" >&2
                bad=1
            fi
        done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
    done < <(find "$lib" -name '*.[ch]' | LC_ALL=C sort)
    return $bad
}

check_calls() {
    local bad=0 obj folder sym kind
    declare -A where
    # defined symbols, by the folder of the object that defines them
    for obj in "${objects[@]}"; do
        folder=$(folder_of "$(dirname "$obj")/x")
        while read -r kind sym; do where[$sym]=$folder; done < <(
            "$nm_tool" -g --defined-only "$obj" | awk 'NF == 3 { print $2, $3 }')
    done
    for obj in "${objects[@]}"; do
        folder=$(folder_of "$(dirname "$obj")/x")
        while read -r sym; do
            [[ -n ${where[$sym]+x} ]] || continue
            if ! may_use "$folder" "${where[$sym]}"; then
                echo "check_layers: ${obj##*/lib/} ($folder/) calls $sym of ${where[$sym]}/: $folder/ may not use ${where[$sym]}/" >&2
                bad=1
            fi
        done < <("$nm_tool" -u "$obj" | awk '{ print $NF }')
    done
    return $bad
}

if ((self_test)); then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cp -r "$root/lib" "$work/lib"
    load_rule "$root/docs/architecture.md"
    check_includes "$work/lib" 2>/dev/null ||
        { echo "check_layers --self-test: the unchanged lib/ is refused" >&2; exit 1; }
    printf '#include "fluid/fluid.h"\n' >>"$work/lib/runtime/prng.c"
    if check_includes "$work/lib" 2>"$work/err"; then
        echo "check_layers --self-test: runtime/ including fluid/ was not refused" >&2; exit 1
    fi
    grep -q 'runtime/ may not use fluid/' "$work/err" ||
        { echo "check_layers --self-test: the refusal does not name the rule" >&2; exit 1; }
    echo "check_layers --self-test: a forbidden include is refused"
    exit 0
fi

load_rule "$root/docs/architecture.md"
status=0
check_includes "$root/lib" || status=1
if ((${#objects[@]})); then
    check_calls || status=1
fi
if ((status == 0)); then
    echo "check_layers: lib/ follows docs/architecture.md ($(find "$root/lib" -name '*.[ch]' | wc -l) files, ${#objects[@]} objects)"
fi
exit $status
