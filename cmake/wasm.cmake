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

if(EDDY_WASM_PTHREADS)
  add_compile_options(-pthread)
  add_link_options(-pthread -sPTHREAD_POOL_SIZE=${EDDY_WASM_POOL_SIZE})
endif()
# The state of the largest scene (noise_cloud) is well above the 16 MiB default.
add_link_options(-sALLOW_MEMORY_GROWTH=1)
