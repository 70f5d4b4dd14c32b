//===- HeaderIsC.c - The C API header compiles as C ---------------*- C -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift-c/Sift.h"

int sift_c_header_compiles_as_c(void) {
  sift_compile_options_t options;
  sift_compile_options_init(&options);
  return (int)sift_dtype_size(SIFT_DTYPE_F64);
}
