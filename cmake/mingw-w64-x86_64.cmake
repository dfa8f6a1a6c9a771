# SPDX-License-Identifier: MIT
# Cross toolchain for Windows x64 with Debian's gcc-mingw-w64-x86-64 (the
# win32-threads flavour: eddy's pool uses the Win32 API, no winpthreads).
# scripts/setup.sh installs it, and wine64 to run the result. Used by the
# Windows stage of the test command (scripts/check_windows.sh, docs/verify.md):
#   cmake -S verify -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# Binaries are static (no MinGW DLLs to ship next to them) and run under wine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-win32)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
