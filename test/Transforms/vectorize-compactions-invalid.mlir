// --sift-vectorize-compactions rejects a lane count it cannot build.
//
// RUN: tensor-opt %s --sift-vectorize-compactions="lanes=3" -verify-diagnostics

// expected-error @below {{sift-vectorize-compactions: lanes must be a power of two in [2, 64], not 3}}
func.func @bad_lanes() {
  return
}
