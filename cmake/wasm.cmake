# SPDX-License-Identifier: MIT
# WebAssembly build options (emscripten; docs/wasm.md). Included by the root
# CMakeLists.txt when CMAKE_TOOLCHAIN_FILE is emscripten's (emcmake).
#
# EDDY_WASM_PTHREADS=ON builds everything with -pthread: the built-in pool then
# runs its workers as Web Workers. Browsers and node start a Web Worker
# asynchronously, so a pthread_create that has to start one blocks the main
# thread forever waiting for it: the workers are pre-started instead
# (PTHREAD_POOL_SIZE), enough for EDDY_WASM_POOL_SIZE + 1 workers per world.
option(EDDY_WASM_PTHREADS "WebAssembly: build with emscripten pthreads (the built-in pool)" OFF)
set(EDDY_WASM_POOL_SIZE 3 CACHE STRING "WebAssembly: Web Workers started ahead for pool threads")

#
# A world with more workers than pre-started Web Workers allow would hang in
# pthread_create; PTHREAD_POOL_SIZE_STRICT=2 makes that pthread_create fail
# instead, and world creation then returns an error naming the worker count.
#
# Memory: the state of the largest scene (noise_cloud) needs more than the
# 16 MiB default. Single-threaded builds grow the heap on demand; with
# pthreads a growable shared heap slows every JavaScript access to it, so the
# heap is fixed at EDDY_WASM_PTHREAD_MEMORY instead.
if(EDDY_WASM_PTHREADS)
  set(EDDY_WASM_PTHREAD_MEMORY 512MB CACHE STRING "WebAssembly with pthreads: fixed heap size")
  add_compile_options(-pthread)
  add_link_options(-pthread -sPTHREAD_POOL_SIZE=${EDDY_WASM_POOL_SIZE} -sPTHREAD_POOL_SIZE_STRICT=2
                   -sINITIAL_MEMORY=${EDDY_WASM_PTHREAD_MEMORY})
else()
  add_link_options(-sALLOW_MEMORY_GROWTH=1)
endif()
