// Branches on counts (scf.if whose condition is read from a count) are
// if-converted: both branches run, guarded, and arith.select picks. Nested
// branches (if/elif) convert from the inside out; a branch may hold pure
// region ops with nothing in them that could trap (a reduction over a
// static tensor). This is the rule --sift-batch applies to per-row
// conditions (sift/Dialect/Sift/Transforms/IfConversion.h).
// RUN: tensor-opt %s --sift-staticize --sift-verify-static -split-input-file | FileCheck %s

// CHECK-LABEL: func @if_elif
// CHECK-NOT: scf.if
// CHECK: %[[NEG_SHORT:.*]] = arith.cmpi slt, %[[LN:.*]], %c8 : index
// CHECK: %[[POS_SHORT:.*]] = arith.cmpi slt, %[[LP:.*]], %c8 : index
// CHECK: %[[INNER_P:.*]] = arith.select %[[POS_SHORT]], %[[LP]], %c8 : index
// CHECK: %[[INNER_N:.*]] = arith.select %[[POS_SHORT]], %{{.*}}, %c8 : index
// CHECK: arith.select %[[NEG_SHORT]], %{{.*}}, %[[INNER_P]] : index
// CHECK: arith.select %[[NEG_SHORT]], %[[LN]], %[[INNER_N]] : index
func.func @if_elif(%labels: tensor<100xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant dense<1> : tensor<100xi64>
  %zero = arith.constant dense<0> : tensor<100xi64>
  %mp = arith.cmpi eq, %labels, %one : tensor<100xi64>
  %mn = arith.cmpi eq, %labels, %zero : tensor<100xi64>
  %pos = sift.nonzero %mp : tensor<100xi1> -> tensor<?xi64>
  %neg = sift.nonzero %mn : tensor<100xi1> -> tensor<?xi64>
  %np = tensor.dim %pos, %c0 : tensor<?xi64>
  %nn = tensor.dim %neg, %c0 : tensor<?xi64>
  %neg_short = arith.cmpi slt, %nn, %c8 : index
  %r:2 = scf.if %neg_short -> (index, index) {
    %p = arith.subi %c16, %nn : index
    %pm = arith.minsi %p, %np : index
    scf.yield %pm, %nn : index, index
  } else {
    %pos_short = arith.cmpi slt, %np, %c8 : index
    %r2:2 = scf.if %pos_short -> (index, index) {
      %q = arith.subi %c16, %np : index
      %qm = arith.minsi %q, %nn : index
      scf.yield %np, %qm : index, index
    } else {
      scf.yield %c8, %c8 : index, index
    }
    scf.yield %r2#0, %r2#1 : index, index
  }
  %pi = tensor.extract_slice %pos[0] [%r#0] [1] : tensor<?xi64> to tensor<?xi64>
  %ni = tensor.extract_slice %neg[0] [%r#1] [1] : tensor<?xi64> to tensor<?xi64>
  return %pi, %ni : tensor<?xi64>, tensor<?xi64>
}

// -----

// mean(x) if any(m) else 0, the mean a reduction inside the branch.
// CHECK-LABEL: func @region_in_branch
// CHECK-NOT: scf.if
// CHECK: %[[SUM:.*]] = linalg.reduce
// CHECK: %[[S:.*]] = tensor.extract %[[SUM]][] : tensor<f32>
// CHECK: %[[MEAN:.*]] = arith.divf %[[S]], %{{.*}} : f32
// CHECK: arith.select %{{.*}}, %[[MEAN]], %{{.*}} : f32
func.func @region_in_branch(%x: tensor<16xf32>, %m: tensor<16xi1>) -> f32 {
  %c = sift.count %m : tensor<16xi1> -> tensor<i64>
  %n = tensor.extract %c[] : tensor<i64>
  %z = arith.constant 0 : i64
  %any = arith.cmpi sgt, %n, %z : i64
  %zero = arith.constant 0.0 : f32
  %r = scf.if %any -> f32 {
    %init = tensor.empty() : tensor<f32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
    %sum = linalg.reduce ins(%x : tensor<16xf32>) outs(%acc : tensor<f32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %s = arith.addf %a, %b : f32
        linalg.yield %s : f32
      }
    %s = tensor.extract %sum[] : tensor<f32>
    %nf = arith.sitofp %n : i64 to f32
    %mean = arith.divf %s, %nf : f32
    scf.yield %mean : f32
  } else {
    scf.yield %zero : f32
  }
  return %r : f32
}
