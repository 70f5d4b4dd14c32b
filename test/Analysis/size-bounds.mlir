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

// A select takes either branch. Sums are also bounded by cases over the
// selects they are computed from, where equal sizes cancel: a size that
// fills one group up to 10 from another (`kp + min(nn, 10 - kp)`, or
// `kp + (c ? min(nn, 10 - kp) : 0)`) is at most 10, not the interval sum
// 20.
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
  // expected-remark @+1 {{result #0 size in [0, 10] (upper: the size computation's terms, cancelled linearly)}}
  %total = arith.addi %kp, %kn : index
  // expected-remark @+1 {{result #0 size in [0, 10]}}
  %fill = arith.select %c, %kn, %c0 : index
  // expected-remark @+1 {{result #0 size in [0, 10] (upper: the size computation by cases over 1 condition)}}
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

// -----

// A branch on sizes (Python's if/elif filling one group up from the other)
// is a select on its condition for the case split: under each of the two
// conditions the groups add up to at most 10, where intervals give 20.
func.func @branches(%c: i1, %d: i1, %np: index {sift.bound = 100 : i64}, %nn: index {sift.bound = 100 : i64}) {
  %c10 = arith.constant 10 : index
  %c5 = arith.constant 5 : index
  // expected-remark @+1 {{result #0 size in [0, 5] (upper: the interval rule of arith.minsi)}}
  %kp0 = arith.minsi %np, %c5 : index
  // expected-remark @+1 {{result #0 size in [0, 5]}}
  %kn0 = arith.minsi %nn, %c5 : index
  // expected-remark @+2 {{result #0 size in [0, 10] (upper: the interval rule of scf.if)}}
  // expected-remark @+1 {{result #1 size in [0, 10]}}
  %r:2 = scf.if %c -> (index, index) {
    // expected-remark @+1 {{result #0 size in [5, 10]}}
    %rest = arith.subi %c10, %kn0 : index
    // expected-remark @+1 {{result #0 size in [0, 10]}}
    %p = arith.minsi %rest, %np : index
    scf.yield %p, %kn0 : index, index
  } else {
    // expected-remark @+2 {{result #0 size in [0, 5]}}
    // expected-remark @+1 {{result #1 size in [0, 10]}}
    %r2:2 = scf.if %d -> (index, index) {
      // expected-remark @+1 {{result #0 size in [5, 10]}}
      %rest = arith.subi %c10, %kp0 : index
      // expected-remark @+1 {{result #0 size in [0, 10]}}
      %n = arith.minsi %rest, %nn : index
      scf.yield %kp0, %n : index, index
    } else {
      scf.yield %kp0, %kn0 : index, index
    }
    scf.yield %r2#0, %r2#1 : index, index
  }
  // expected-remark @+1 {{result #0 size in [0, 10] (upper: the size computation by cases over 2 conditions)}}
  %total = arith.addi %r#0, %r#1 : index
  return
}

// -----

// A condition narrows the sizes it compares under each assignment: where
// `lp < 16` holds, lp <= 15; where `ln >= 8` fails, ln <= 7 (the interval
// of the argument alone gives 200).
func.func @conditions(%lp: index {sift.bound = 200 : i64}, %ln: index {sift.bound = 200 : i64}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %short = arith.cmpi slt, %lp, %c16 : index
  // expected-remark @+1 {{result #0 size in [0, 15] (upper: the size computation by cases over 1 condition)}}
  %a = arith.select %short, %lp, %c0 : index
  %enough = arith.cmpi uge, %ln, %c8 : index
  // expected-remark @+1 {{result #0 size in [0, 7] (upper: the size computation by cases over 1 condition)}}
  %b = scf.if %enough -> (index) {
    scf.yield %c0 : index
  } else {
    scf.yield %ln : index
  }
  // expected-remark @+1 {{result #0 size in [0, 22]}}
  %sum = arith.addi %a, %b : index
  return
}

// -----

// A tensor yielded by a branch: the larger branch's bound. A tensor carried
// by a loop: its initial value's bound when no iteration yields a larger
// one (a selection of it); none when one may (an append).
func.func @regions(%m: tensor<100xi1>, %m2: tensor<40xi1>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-remark @+1 {{result #0 dim 0 <= 100}}
  %a = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 40}}
  %b = sift.nonzero %m2 : tensor<40xi1> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 100 (scf.if: the larger of its branches' bounds)}}
  %r = scf.if %c -> tensor<?xi64> {
    scf.yield %b : tensor<?xi64>
  } else {
    scf.yield %a : tensor<?xi64>
  }
  // expected-remark @+1 {{result #0 dim 0 <= 100 (scf.index_switch: the largest of its cases' bounds)}}
  %w = scf.index_switch %c3 -> tensor<?xi64>
  case 0 {
    scf.yield %b : tensor<?xi64>
  }
  default {
    scf.yield %a : tensor<?xi64>
  }
  // expected-remark @+1 {{result #0 dim 0 <= 40 (scf.for: the bound of its initial value, which no iteration exceeds)}}
  %f = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %b) -> tensor<?xi64> {
    // expected-remark @+1 {{result #0 size in [0, 40]}}
    %n = tensor.dim %s, %c0 : tensor<?xi64>
    %z = arith.constant 0 : i64
    // expected-remark @+1 {{result #0 dim 0 <= 40}}
    %zs = tensor.splat %z[%n] : tensor<?xi64>
    // expected-remark @+1 {{result #0 dim 0 <= 40}}
    %keep = arith.cmpi ne, %s, %zs : tensor<?xi64>
    // expected-remark @+1 {{result #0 dim 0 <= 40 (sift.masked_select: the number of mask elements)}}
    %s2 = sift.masked_select %s, %keep : tensor<?xi64>, tensor<?xi1> -> tensor<?xi64>
    scf.yield %s2 : tensor<?xi64>
  }
  // expected-warning @+1 {{result #0 dim 0 has no static upper bound derivable from the program}}
  %g = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %b) -> tensor<?xi64> {
    // expected-warning @+1 {{result #0 dim 0 has no static upper bound derivable from the program}}
    %more = tensor.concat dim(0) %s, %b : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
    scf.yield %more : tensor<?xi64>
  }
  return
}

// -----

// The size of an elementwise op on selections (upstream's arith models
// bound index scalars only and crashed on it; differential seed 12).
func.func @elementwise_size(%y: tensor<16xi64>) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{result #0 dim 0 <= 16}}
  %u = sift.unique %y : tensor<16xi64> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 16}}
  %d = arith.subi %u, %u : tensor<?xi64>
  // expected-remark @+1 {{result #0 size in [0, 16]}}
  %n = tensor.dim %d, %c0 : tensor<?xi64>
  return
}
