#===- AddSift.cmake - project CMake helpers ------------------------------===#
#
# Thin wrappers in the style of CIRCT's AddCIRCT.cmake, so every library and
# tool of the project is declared the same way and links libMLIR.so.
#
#===----------------------------------------------------------------------===#

# add_sift_library(name SOURCES... [DEPENDS ...] [MLIR_LIBS ...] [LINK_LIBS ...])
# MLIR_LIBS are MLIR component names; with MLIR_LINK_MLIR_DYLIB they resolve to
# libMLIR.so. LINK_LIBS are other sift libraries.
function(add_sift_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;MLIR_LIBS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS})
  if(ARG_LINK_LIBS)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  endif()
  mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
endfunction()
