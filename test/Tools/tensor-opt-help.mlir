// tensor-opt lists the sift dialect and passes with their one-line summaries.
// RUN: tensor-opt --help | FileCheck %s

// CHECK: Available Dialects:{{.*}} sift,
// CHECK: --sift-report-bounds {{.*}}- Report the static upper bound of every dynamic dimension
// CHECK: --sift-verify-static {{.*}}- Fail on any data-dependent dynamic shape or host sync left
