# SPDX-License-Identifier: MIT
# Cross toolchain for aarch64 Linux with Debian's gcc-aarch64-linux-gnu and
# libc6-dev-arm64-cross (scripts/setup.sh installs both). Used by the CI
# cross-architecture check (scripts/ci_matrix.sh, docs/verify.md):
#   cmake -S verify -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Binaries run under qemu-user: qemu-aarch64 -L /usr/aarch64-linux-gnu <binary>.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
