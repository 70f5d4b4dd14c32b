// The rules of the SizeBounds analysis (sift/Dialect/Sift/Analysis), one
// case each, seen through --sift-report-bounds=sizes: the interval of every
// index-typed value the size arithmetic computes.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics --sift-report-bounds=sizes=true -o /dev/null

// A selection's count and the dimension of its result: at most the number
// of candidates; a `sift.bound` argument: [0, bound]; an unannotated index
// argument: unbounded above.
func.func @leaves(%m: tensor<100xi1>, %n: index {sift.bound = 7 : i64}, %u: index) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{result #0 dim 0 <= 100}}
  %p = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 size in [0, 100]}}
  %np = tensor.dim %p, %c0 : tensor<?xi64>
  // expected-remark @+1 {{result #0 size in [0, 7]}}
  %a = arith.addi %n, %c0 : index
  // expected-remark @+1 {{result #0 size in [?, ?]}}
  %b = arith.addi %u, %c0 : index
  return
}

// -----

// Interval arithmetic: sums, differences, products, min/max, divisions.
func.func @arithmetic(%n: index {sift.bound = 10 : i64}, %k: index {sift.bound = 4 : i64}) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  // expected-remark @+1 {{result #0 size in [0, 14]}}
  %sum = arith.addi %n, %k : index
  // expected-remark @+1 {{result #0 size in [-4, 10]}}
  %diff = arith.subi %n, %k : index
  // expected-remark @+1 {{result #0 size in [0, 30]}}
  %prod = arith.muli %n, %c3 : index
  // expected-remark @+1 {{result #0 size in [0, 5]}}
  %min = arith.minsi %n, %c5 : index
  // expected-remark @+1 {{result #0 size in [5, 10]}}
  %max = arith.maxsi %n, %c5 : index
  // expected-remark @+1 {{result #0 size in [0, 5]}}
  %div = arith.divsi %n, %c2 : index
  // expected-remark @+1 {{result #0 size in [0, 3]}}
  %fdiv = arith.floordivsi %n, %c3 : index
  return
}

// -----

// A select takes either branch. Under a select, sizes are also bounded by
// cases, where equal sizes cancel: a size that fills one group up to 10 from
// another when `c` (`kp + (c ? min(nn, 10 - kp) : 0)`) is at most 10. Without a select the
// case split does not run and the interval sum (20) stands: the bound
// --sift-staticize pads to today (see test/Transforms/report-bounds.mlir).
func.func @cases(%c: i1, %np: index {sift.bound = 100 : i64}, %nn: index {sift.bound = 100 : i64}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %kp = arith.minsi %np, %c10 : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %s = arith.select %c, %kp, %c4 : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %rest = arith.subi %c10, %kp : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %kn = arith.minsi %nn, %rest : index
  // expected-remark @+1 {{result #0 size in [0, 20]}}
  %total = arith.addi %kp, %kn : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %fill = arith.select %c, %kn, %c0 : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %bycases = arith.addi %kp, %fill : index
  return
}

// -----

// The value of a count is at most the length it counts.
func.func @counts(%m: tensor<50xi1>) {
  %c0 = arith.constant 0 : index
  %n = sift.count %m : tensor<50xi1> -> tensor<i64>
  %v = tensor.extract %n[] : tensor<i64>
  // expected-remark @+1 {{result #0 size in [0, 50]}}
  %i = arith.index_cast %v : i64 to index
  return
}

// -----

// A concatenation is bounded by its pieces' bounds together, and tighter by
// cases over the sizes the pieces were cut to: `a` takes at most 5, `b`
// fills up to 10 when `a` is short.
func.func @concat_by_cases(%x: tensor<30xi64>, %y: tensor<50xi64>, %na: index {sift.bound = 30 : i64}, %nb: index {sift.bound = 50 : i64}) {
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{result #0 size in [0, 5]}}
  %ka = arith.minui %na, %c5 : index
  // expected-remark @+1 {{result #0 size in [0, 5]}}
  %kb0 = arith.minui %nb, %c5 : index
  %short = arith.cmpi ult, %ka, %c5 : index
  // expected-remark @+1 {{result #0 size in [5, 10]}}
  %rest = arith.subi %c10, %ka : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %kb1 = arith.minui %nb, %rest : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %kb = arith.select %short, %kb1, %kb0 : index
  // expected-remark @+1 {{result #0 dim 0 <= 5}}
  %pa = tensor.extract_slice %x[0] [%ka] [1] : tensor<30xi64> to tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 10}}
  %pb = tensor.extract_slice %y[0] [%kb] [1] : tensor<50xi64> to tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 10}}
  %c = tensor.concat dim(0) %pa, %pb : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return
}
