# SPDX-License-Identifier: MIT
# eddy_refuse_fp_contraction(): stop at configure time if this build's
# effective C flags would contract a*b+c into a fused multiply-add
# (determinism rule 5, docs/determinism.md).
#
# gcc defines no macro for its -ffp-contract mode, so lib/runtime/fpcheck.h cannot see
# -ffp-contract=fast, and no compiler shows it for clang's =fast either. This
# probe compiles one function with the flags every eddy target gets (the
# user's CMAKE_C_FLAGS and build-type flags, then the directory's compile
# options, i.e. eddy's own) and with FMA instructions enabled (-mfma on
# x86-64; always there on aarch64), and refuses the build if the assembly
# holds an FMA. It sees every flag given through CMake, and a compiler (or a
# wrapper) that fuses anyway; it cannot see flags a later target-specific
# option adds, which the FMA scan of the built library in CI covers.
function(eddy_refuse_fp_contraction)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" OR EMSCRIPTEN)
    return()
  endif()
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(fma_flag -mfma)
    set(fma_pattern "vfn?m(add|sub)[0-9]")
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(fma_flag "")
    set(fma_pattern "[ \t](fn?madd|fn?msub|fmla|fmls)[ \t]")
  else()
    return()
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type)
  separate_arguments(user_flags NATIVE_COMMAND "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${build_type}}")
  get_directory_property(eddy_options COMPILE_OPTIONS)
  set(probe ${CMAKE_BINARY_DIR}/eddy_contraction_probe.c)
  file(WRITE ${probe}
       "float eddy_contraction_probe(float a, float b, float c);\n"
       "float eddy_contraction_probe(float a, float b, float c) { return a * b + c; }\n")
  execute_process(
    COMMAND ${CMAKE_C_COMPILER} -O2 ${user_flags} ${eddy_options} ${fma_flag} -S -o - ${probe}
    OUTPUT_VARIABLE assembly ERROR_VARIABLE errors RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(WARNING "eddy: the FP contraction probe did not compile (${errors}); "
                    "relying on -ffp-contract=off and the FMA scan in CI")
  elseif(assembly MATCHES "${fma_pattern}")
    message(FATAL_ERROR "eddy: with these C flags the compiler contracts a*b+c into a fused "
                        "multiply-add (one rounding instead of two), so results would differ "
                        "between builds and machines. Remove -ffp-contract=fast/on (and "
                        "-ffast-math) from the flags; eddy needs -ffp-contract=off.")
  endif()
endfunction()
