// Use after free found by the fuzz smoke: --sift-batch (the fuzzer batches
// the first function) if-converted a per-row scf.if nested in another's
// else branch while the outer if-conversion's loop stood on it. ASan
// reports it if it comes back.
func.func @branches(%c: i1, %d: i1, %np: index, %nn: index) -> (index, index) {
  %c10 = arith.constant 10 : index
  %c5 = arith.constant 5 : index
  %kp0 = arith.minsi %np, %c5 : index
  %kn0 = arith.minsi %nn, %c5 : index
  %r:2 = scf.if %c -> (index, index) {
    %rest = arith.subi %c10, %kn0 : index
    %p = arith.minsi %rest, %np : index
    scf.yield %p, %kn0 : index, index
  } else {
    %r2:2 = scf.if %d -> (index, index) {
      %rest = arith.subi %c10, %kp0 : index
      %n = arith.minsi %rest, %nn : index
      scf.yield %kp0, %n : index, index
    } else {
      scf.yield %kp0, %kn0 : index, index
    }
    scf.yield %r2#0, %r2#1 : index, index
  }
  return %r#0, %r#1 : index, index
}
