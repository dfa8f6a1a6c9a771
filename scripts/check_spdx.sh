#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# License check: every source file of eddy (C sources and headers, CMake
# files, pkg-config and CMake templates, shell scripts) carries the line
#   SPDX-License-Identifier: MIT
# in its first five lines. Prints every file that lacks it and exits 1.
#
# Files are the ones git tracks (new files count once they are added); outside
# a git checkout, the same patterns are searched with find. Run by ctest as the
# test `spdx`, or by hand:  scripts/check_spdx.sh [repository root]
set -euo pipefail
root=${1:-"$(dirname "${BASH_SOURCE[0]}")/.."}
cd "$root"

is_source() {
    case $1 in
        *.c | *.h | *.cmake | *.in | *.sh | */CMakeLists.txt | CMakeLists.txt | .ci/run) return 0 ;;
        *) return 1 ;;
    esac
}

list_files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard
    else
        find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||'
    fi
}

checked=0
missing=0
while IFS= read -r file; do
    is_source "$file" || continue
    [[ -f $file ]] || continue # deleted in the work tree, not yet in the index
    checked=$((checked + 1))
    if ! head -n 5 -- "$file" | grep -q 'SPDX-License-Identifier: MIT'; then
        printf 'missing SPDX-License-Identifier: MIT: %s\n' "$file"
        missing=$((missing + 1))
    fi
done < <(list_files)

if ((checked == 0)); then
    echo "check_spdx: no source files found under $(pwd)" >&2
    exit 1
fi
if ((missing > 0)); then
    printf 'check_spdx: %d of %d source files lack the SPDX line (see LICENSE)\n' "$missing" "$checked"
    exit 1
fi
printf 'check_spdx: all %d source files carry SPDX-License-Identifier: MIT\n' "$checked"
