# Build modes beyond the plain build (each an option, off by default):
#
#   CPTHREAD_DEBUG=ON     the invariant checks of every stateful module run
#                         (CP_DEBUG=1, read by src/common/cp_debug.h).
#   CPTHREAD_SANITIZE=ON  everything built with AddressSanitizer and
#                         UndefinedBehaviorSanitizer; any report aborts.
#   CPTHREAD_TSAN=ON      everything built with ThreadSanitizer (clang or
#                         gcc), the tracer's memory from TSan's allocator
#                         (CP_ALLOC_LIBC); run the runtime tests: ctest -L
#                         tsan.  This build's libcpthread.so cannot run in
#                         a program: TSan's own start-up calls the wrapped
#                         sigaction, and its pthread_create starts the new
#                         thread in our trampoline, both before TSan is set
#                         up for that code to be instrumented.  A TSan-built
#                         program runs traced with a plain libcpthread.so
#                         preloaded (scripts/test.sh's tsan stage does).
#   CPTHREAD_FUZZ=ON      the libFuzzer targets of tests/fuzz (needs clang:
#                         CC=clang-14); implies CPTHREAD_SANITIZE.
#
# ASan and TSan exclude each other.  The fuzz regression tests (replay of
# tests/fuzz/regress and the seed corpus) are part of every build.
# scripts/test.sh builds and runs each mode as a stage.
option(CPTHREAD_DEBUG "Turn on the invariant checks of every module" OFF)
option(CPTHREAD_SANITIZE "Build everything with ASan and UBSan" OFF)
option(CPTHREAD_TSAN "Build everything with ThreadSanitizer" OFF)
option(CPTHREAD_FUZZ "Build the libFuzzer targets (clang)" OFF)

# The fuzz targets need the code they cover checked (ASan, UBSan) and
# instrumented for coverage (tests/fuzz adds fuzzer-no-link to the
# analyzer only): a fuzz build is a sanitized build, and the same build
# runs the whole suite sanitized.
if(CPTHREAD_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CPTHREAD_FUZZ needs clang (libFuzzer): "
            "configure with -DCMAKE_C_COMPILER=clang-14")
  endif()
  set(CPTHREAD_SANITIZE ON CACHE BOOL "" FORCE)
endif()

if(CPTHREAD_SANITIZE AND CPTHREAD_TSAN)
  message(FATAL_ERROR "CPTHREAD_SANITIZE and CPTHREAD_TSAN exclude each other")
endif()

add_compile_definitions(CP_DEBUG=$<IF:$<BOOL:${CPTHREAD_DEBUG}>,1,0>)

# clang emits no .debug_aranges by default, and Debian 12's libdw finds a
# compilation unit by address only through them (dwfl_module_addrdie):
# without, cpt's symbolizer (cp_symbolize.c) finds no file, line or inline
# frame in clang-built code, ours included.
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  add_compile_options(-gdwarf-aranges)
endif()

if(CPTHREAD_SANITIZE)
  set(CP_SAN_FLAGS -fsanitize=address,undefined
      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${CP_SAN_FLAGS})
  add_link_options(${CP_SAN_FLAGS})
  # One ASan runtime, shared (gcc's default; clang links a static copy
  # into each executable otherwise): libcpthread.so then carries it as a
  # dependency, so it can be preloaded into programs built without ASan
  # (/bin/sh under `cpt run`, Debian's compressors), and the programs
  # built here take a preloaded libcpthread.so next to their own runtime.
  # A preloaded library comes before the runtime in the load order: run
  # with ASAN_OPTIONS=verify_asan_link_order=0 (scripts/test.sh does).
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    execute_process(COMMAND ${CMAKE_C_COMPILER}
      -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
      OUTPUT_VARIABLE CP_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(CP_ASAN_RUNTIME_DIR "${CP_ASAN_RUNTIME}"
      DIRECTORY)
    add_link_options(-shared-libasan -Wl,-rpath,${CP_ASAN_RUNTIME_DIR})
  endif()
endif()

if(CPTHREAD_TSAN)
  set(CP_SAN_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
  # the tracer's memory from TSan's allocator (src/runtime/cp_alloc.c)
  add_compile_definitions(CP_ALLOC_LIBC=1)
  add_compile_options(${CP_SAN_FLAGS})
  add_link_options(${CP_SAN_FLAGS})
endif()
