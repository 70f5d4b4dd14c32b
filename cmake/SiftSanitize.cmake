#===- SiftSanitize.cmake - sanitizer and fuzzer builds ------------------===#
#
# SIFT_SANITIZE=ON builds sift's own code (not libMLIR.so, which stays the
# uninstrumented Debian build) with AddressSanitizer and
# UndefinedBehaviorSanitizer. The ASan runtime is the shared one
# (-shared-libasan), so every instrumented executable and library uses the
# same copy; a process that is not instrumented itself but loads an
# instrumented library (mlir-runner, a host application linking libsift.so)
# needs LD_PRELOAD of that runtime. scripts/sanitize.sh sets all of this up.
#
# SIFT_ENABLE_FUZZER=ON adds coverage instrumentation for libFuzzer and the
# tools/sift-fuzz target. Both need clang (clang-22 from Debian).
#
#===----------------------------------------------------------------------===#

option(SIFT_SANITIZE "Build with AddressSanitizer and UBSan (clang)" OFF)
option(SIFT_ENABLE_FUZZER "Build the libFuzzer target sift-fuzz (clang)" OFF)

if(SIFT_SANITIZE OR SIFT_ENABLE_FUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SIFT_SANITIZE and SIFT_ENABLE_FUZZER need clang "
      "(configure with -DCMAKE_CXX_COMPILER=clang++-22 "
      "-DCMAKE_C_COMPILER=clang-22; scripts/sanitize.sh does)")
  endif()
endif()

if(SIFT_SANITIZE)
  # vptr needs RTTI, which LLVM builds without; function has false positives
  # through LLVM's type-erased callbacks (LLVM's own UBSan build drops both).
  set(SIFT_SANITIZE_FLAGS -fsanitize=address,undefined
    -fno-sanitize=vptr,function -fno-omit-frame-pointer -g1)
  add_compile_options(${SIFT_SANITIZE_FLAGS})
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
    OUTPUT_VARIABLE SIFT_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(SIFT_ASAN_RUNTIME_DIR "${SIFT_ASAN_RUNTIME}"
    DIRECTORY)
  set(SIFT_ASAN_RUNTIME "${SIFT_ASAN_RUNTIME}" CACHE INTERNAL "")
  add_link_options(-fsanitize=address,undefined -shared-libasan
    "LINKER:-rpath,${SIFT_ASAN_RUNTIME_DIR}")
  message(STATUS "sift: ASan+UBSan build, runtime ${SIFT_ASAN_RUNTIME}")
endif()

if(SIFT_ENABLE_FUZZER)
  # Coverage for libFuzzer in every sift library; only sift-fuzz links the
  # fuzzer's main (-fsanitize=fuzzer). Other executables get the weak
  # coverage callbacks of the sanitizer runtime.
  if(NOT SIFT_SANITIZE)
    message(FATAL_ERROR "SIFT_ENABLE_FUZZER needs SIFT_SANITIZE=ON (the "
      "coverage callbacks come with the ASan runtime)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
