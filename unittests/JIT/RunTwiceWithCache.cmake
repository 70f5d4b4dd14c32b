# Runs the JIT's test suite (-DTESTS=<SiftJITTests>) twice against a fresh
# compile cache (-DCACHE_DIR=<dir>): the first run compiles and stores every
# program, the second loads them all from the cache. Both must pass, and the
# second must add or rewrite no entry: every compile of it was a hit, so the
# suite's results and errors are the same on the hit path as on the miss
# path. The CompileCacheTest cases use caches of their own.
file(REMOVE_RECURSE "${CACHE_DIR}")
set(ENV{SIFT_CACHE_DIR} "${CACHE_DIR}")
unset(ENV{SIFT_CACHE})

function(run_suite pass)
  execute_process(COMMAND "${TESTS}" --gtest_brief=1
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${pass} run (${status}):\n${output}")
  endif()
endfunction()

function(list_entries out)
  file(GLOB entries "${CACHE_DIR}/llvmcache-*")
  list(FILTER entries EXCLUDE REGEX "timestamp$")
  set(listing "")
  foreach(entry IN LISTS entries)
    file(TIMESTAMP "${entry}" stamp "%s")
    file(SIZE "${entry}" size)
    list(APPEND listing "${entry}:${size}:${stamp}")
  endforeach()
  set(${out} "${listing}" PARENT_SCOPE)
endfunction()

run_suite(first)
list_entries(after_first)
list(LENGTH after_first count)
if(count EQUAL 0)
  message(FATAL_ERROR "the first run stored no entry in ${CACHE_DIR}")
endif()
# Rewritten entries would get newer modification times.
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1)
run_suite(second)
list_entries(after_second)
if(NOT after_first STREQUAL after_second)
  message(FATAL_ERROR "the second run compiled again:\nbefore: "
    "${after_first}\nafter: ${after_second}")
endif()
message(STATUS "${count} entries, all loaded from the cache the second time")
