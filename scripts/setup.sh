#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian packages needed to build and test eddy.
#
# Idempotent: checks each package with dpkg-query and does nothing (and prints
# nothing) when all are installed. Otherwise runs `apt-get update` once and
# installs only the missing ones, non-interactively. Uses sudo when not root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(build-essential cmake pkg-config libxxhash-dev libzstd-dev libcriterion-dev
          libhwloc-dev libpng-dev clang libclang-rt-14-dev zstd
          qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
          emscripten nodejs chromium python3
          gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 wine64)
# eddy-replay export --vdb and its round-trip test: OpenVDB, with the Boost
# and TBB headers its own headers include.
packages+=(libopenvdb-dev libboost-dev libtbb-dev)
# mono: the C# bindings (scripts/check_csharp.sh) are compiled with mcs and run under mono.
packages+=(mono-mcs mono-runtime)
# xmllint: the cli_conventions test validates eddy-verify's JUnit XML with it.
packages+=(libxml2-utils)
# libbullet-dev: examples/bullet, eddy coupled to the Bullet rigid-body engine (ctest bullet_example).
packages+=(libbullet-dev)
# npm: Debian's package, unless an npm is already there (a nodejs from another
# source bundles its own, and Debian's npm would conflict with it).
command -v npm >/dev/null 2>&1 || packages+=(npm)

die() { printf 'setup.sh: error: %s\n' "$*" >&2; exit 1; }

command -v dpkg-query >/dev/null 2>&1 ||
    die "dpkg-query not found: this script installs Debian packages. On another system install: ${packages[*]}"

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "==> setup: installing missing packages: ${missing[*]}"
if ((EUID == 0)); then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    die "not root and sudo is not installed; as root run: apt-get install ${missing[*]}"
fi

apt_get() {
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
        -o Dpkg::Use-Pty=0 "$@" </dev/null
}
apt_get update >/dev/null ||
    die "apt-get update failed (network or permissions?); missing: ${missing[*]}"
apt_get install --no-install-recommends "${missing[@]}" ||
    die "apt-get install failed for: ${missing[*]}"
echo "==> setup: done"
