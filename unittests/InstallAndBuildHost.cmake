#===- InstallAndBuildHost.cmake - Test of the installed package ----------===#
#
# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P this-file
# Installs the `sift` component of the build into a fresh prefix, configures
# and builds examples/host against it with find_package(Sift), and runs it.
#
#===----------------------------------------------------------------------===#

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --component sift --prefix ${prefix})
foreach(f lib/libsift.so lib/libsift_runtime.so include/sift/JIT/Engine.h
    include/sift-c/Sift.h lib/cmake/Sift/SiftConfig.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/host -B ${WORK_DIR}/build
  -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/sift-host ${SOURCE_DIR}/examples/host/scale.mlir)
