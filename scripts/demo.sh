#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run the eddy demo:  ./scripts/demo.sh [demo arguments...]
#
# Installs missing Debian packages (scripts/setup.sh), builds RelWithDebInfo in
# build/ (or $EDDY_BUILD_DIR), then runs build/eddy-demo with the given arguments.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${EDDY_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '==> %s\n' "$*"; }

step "checking build dependencies"
bash scripts/setup.sh
step "configuring $build_dir (RelWithDebInfo)"
cmake -S . -B "$build_dir" --log-level=WARNING -DCMAKE_BUILD_TYPE=RelWithDebInfo
step "building eddy-demo with $jobs jobs"
cmake --build "$build_dir" -j "$jobs" --target eddy-demo
step "running $build_dir/eddy-demo $*"
exec "$build_dir/eddy-demo" "$@"
