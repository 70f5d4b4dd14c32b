// Knowledge-graph triples from a data loader's flat buffer: up to 33
// (head, relation, tail) triples in 100 slots, the unused slots -1. The
// valid ids, viewed as triples, and the largest id of each:
//   ids = flat[flat != -1]
//   triples = ids.view(-1, 3)
//   return triples, triples.max(dim=1).values
// The selection is padded to 100 rows, which 3 does not divide: the split
// pads it up to 102 (34 triples).
func.func @flat_triples(%flat: tensor<100xi64>) -> (tensor<?x3xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant dense<-1> : tensor<100xi64>
  %valid = arith.cmpi ne, %flat, %pad : tensor<100xi64>
  %ids = sift.masked_select %flat, %valid : tensor<100xi64>, tensor<100xi1> -> tensor<?xi64>
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %t = arith.divui %n, %c3 : index
  %triples = tensor.expand_shape %ids [[0, 1]] output_shape [%t, 3]
      : tensor<?xi64> into tensor<?x3xi64>
  %lowest = arith.constant -9223372036854775808 : i64
  %init = tensor.empty(%t) : tensor<?xi64>
  %acc = linalg.fill ins(%lowest : i64) outs(%init : tensor<?xi64>) -> tensor<?xi64>
  %max = linalg.reduce ins(%triples : tensor<?x3xi64>) outs(%acc : tensor<?xi64>) dimensions = [1]
    (%x: i64, %a: i64) {
      %m = arith.maxsi %x, %a : i64
      linalg.yield %m : i64
    }
  return %triples, %max : tensor<?x3xi64>, tensor<?xi64>
}
