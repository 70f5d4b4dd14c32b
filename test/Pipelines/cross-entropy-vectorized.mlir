// The CPU pipeline's cross_entropy is vector code at the LLVM dialect: the
// rows run on an OpenMP loop that allocates nothing per row; each row is
// one pass over blocks of eight 16-lane vectors (plain vector loads, the
// polynomial exp as vector fma, the running maxima as selects), then a
// block for the last 1000 mod 128 logits (7 vectors, the last a masked
// load), and vector reductions (the sum reassociable). exp and log call no
// libm function. Timings: docs/Dialect.md (sift.cross_entropy, "On the
// CPU").
//
// Each load of a block prefetches its cache line 8 KB ahead into the L1
// and 32 KB ahead into the L2 (--sift-prefetch-streams: into the next
// rows, which the hardware prefetchers do not reach past the page); so
// does each load of the rest block (at fixed columns of the row the row
// loop moves on); prefetch-distance=0 leaves the near ones out,
// far-prefetch-distance=0 the far ones.
//
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s
// RUN: tensor-opt %s '--sift-cpu-pipeline=prefetch-distance=0 far-prefetch-distance=0' | FileCheck %s --check-prefix=NOPF

// CHECK-NOT: llvm.func @expf
// CHECK-NOT: llvm.func @logf
// CHECK-LABEL: llvm.func @cross_entropy_rows
// CHECK: omp.wsloop
// CHECK-NOT: _mlir_memref_to_llvm_alloc
// A near (hint 3) and a far (hint 2) prefetch for each of the 8 loads:
// CHECK-COUNT-16: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = {{3|2}} : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.fcmp "ogt" %{{.*}} : vector<16xf32>
// CHECK: llvm.intr.fma(%{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.br
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK-NOT: llvm.load
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.intr.vector.reduce.fmax(%{{.*}}) {fastmathFlags = #llvm.fastmath<nnan>}
// CHECK: "llvm.intr.vector.reduce.fadd"({{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}>
// CHECK-NOT: _mlir_memref_to_llvm_alloc
// CHECK: omp.terminator
// CHECK-NOT: llvm.func @expf
// CHECK-NOT: llvm.func @logf
func.func @cross_entropy_rows(%x: tensor<?x1000xf32>, %t: tensor<?xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<?x1000xf32>, tensor<?xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// Rows of at most 16 classes: their log-sum-exps 16 rows at a time, a row
// per lane, class c of the rows read with one gather, no reduction across
// lanes; then the per-row loop.
// CHECK-LABEL: llvm.func @cross_entropy_short_rows
// CHECK: omp.wsloop
// CHECK: llvm.intr.masked.gather %{{.*}} -> vector<16xf32>
// CHECK-NOT: llvm.intr.vector.reduce
// CHECK: llvm.intr.masked.store
// CHECK: omp.terminator
// CHECK: omp.wsloop
// CHECK-NOT: llvm.intr.vector.reduce
// CHECK: omp.terminator
func.func @cross_entropy_short_rows(%x: tensor<?x10xf32>, %t: tensor<?xi64>) -> tensor<?xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<?x10xf32>, tensor<?xi64> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// NOPF-LABEL: llvm.func @cross_entropy_rows
// NOPF-NOT: llvm.intr.prefetch
