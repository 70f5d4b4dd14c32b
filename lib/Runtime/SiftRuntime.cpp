//===- SiftRuntime.cpp - The sift CPU runtime -------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/SiftRuntime.h"

namespace {
/// The first error recorded on this thread since the last take.
struct ErrorState {
  int64_t code = 0;
  int64_t value = 0;
};
thread_local ErrorState errorState;
} // namespace

extern "C" void sift_rt_error(int64_t code, int64_t value) {
  if (errorState.code != 0 || code == 0)
    return;
  errorState.code = code;
  errorState.value = value;
}

extern "C" int64_t sift_rt_take_error(int64_t *value) {
  int64_t code = errorState.code;
  if (value)
    *value = errorState.value;
  errorState = ErrorState();
  return code;
}

extern "C" const char *sift_rt_error_message(int64_t code) {
  switch (code) {
  case SIFT_RT_OK:
    return "no error";
  case SIFT_RT_ERROR_TARGET_OUT_OF_RANGE:
    return "sift.cross_entropy: a target is outside [0, C) and is not "
           "ignore_index";
  default:
    return "unknown sift runtime error";
  }
}

extern "C" void _mlir_ciface_sift_rt_error(int64_t code, int64_t value) {
  sift_rt_error(code, value);
}

extern "C" int64_t _mlir_ciface_sift_rt_take_error(int64_t *value) {
  return sift_rt_take_error(value);
}
