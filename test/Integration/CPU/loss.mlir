// cross_entropy, lowered with --sift-cpu-pipeline and run on the CPU.
// Expected values from PyTorch's formula evaluated in plain Python (math):
//   lse = m + log(sum(exp(x - m))); loss = (1-s)*w[t]*(lse-x[t])
//         + s/C * sum_c w[c]*(lse-x[c]); mean = sum(loss) / sum(w[t]).
// exp and log are f32 polynomials on the CPU (--sift-approximate-math), a
// few ulp from libm: 0.8479114 (exact) prints as 0.847911 or 0.847912.
//
// RUN: tensor-opt %s --sift-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void -shared-libs=%shlibs \
// RUN: | FileCheck %s

func.func private @printMemrefI64(tensor<*xi64>)
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @sift_rt_take_error(!llvm.ptr) -> i64

func.func @ce_none(%x: tensor<4x3xf32>, %t: tensor<4xi64>) -> tensor<4xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<4x3xf32>, tensor<4xi64> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @ce_sum_mean(%x: tensor<4x3xf32>, %t: tensor<4xi64>) -> (tensor<f32>, tensor<f32>) {
  %s = sift.cross_entropy %x, %t reduction = sum : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  %m = sift.cross_entropy %x, %t reduction = mean : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}
func.func @ce_weighted(%x: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %n = sift.cross_entropy %x, %t weight(%w : tensor<3xf32>) reduction = none {label_smoothing = 1.000000e-01 : f64} : tensor<4x3xf32>, tensor<4xi64> -> tensor<4xf32>
  %m = sift.cross_entropy %x, %t weight(%w : tensor<3xf32>) reduction = mean {label_smoothing = 1.000000e-01 : f64} : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return %n, %m : tensor<4xf32>, tensor<f32>
}
func.func @ce_1d(%x: tensor<3xf32>, %t: tensor<i64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<3xf32>, tensor<i64> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @print_error() {
  %null = llvm.mlir.zero : !llvm.ptr
  %code = call @sift_rt_take_error(%null) : (!llvm.ptr) -> i64
  %t = tensor.from_elements %code : tensor<1xi64>
  %c = tensor.cast %t : tensor<1xi64> to tensor<*xi64>
  call @printMemrefI64(%c) : (tensor<*xi64>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [1.0, 0.0, -1.0], [0.5, -2.0, 4.0], [2.0, 2.0, 2.0]]> : tensor<4x3xf32>
  %t = arith.constant dense<[2, 0, 1, 0]> : tensor<4xi64>
  %n = call @ce_none(%x, %t) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  %nc = tensor.cast %n : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%nc) : (tensor<*xf32>) -> ()
  // CHECK: [0.407606,  0.407606,  6.03215,  1.09861]
  %s, %m = call @ce_sum_mean(%x, %t) : (tensor<4x3xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<f32>)
  %sc = tensor.cast %s : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%sc) : (tensor<*xf32>) -> ()
  // CHECK: [7.94598]
  %mc = tensor.cast %m : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%mc) : (tensor<*xf32>) -> ()
  // CHECK: [1.98649]

  // Weights [0.5, 1, 2], smoothing 0.1; the mean ignores targets -100.
  %w = arith.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
  %wn, %wm0 = call @ce_weighted(%x, %t, %w) : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> (tensor<4xf32>, tensor<f32>)
  %wnc = tensor.cast %wn : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%wnc) : (tensor<*xf32>) -> ()
  // CHECK: [0.84791{{[12]}},  0.397643,  5.69102,  0.622547]
  %ti = arith.constant dense<[2, -100, 1, -100]> : tensor<4xi64>
  %wn2, %wm = call @ce_weighted(%x, %ti, %w) : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> (tensor<4xf32>, tensor<f32>)
  %wmc = tensor.cast %wm : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%wmc) : (tensor<*xf32>) -> ()
  // CHECK: [2.17964]
  %wn2c = tensor.cast %wn2 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%wn2c) : (tensor<*xf32>) -> ()
  // CHECK: [0.84791{{[12]}},  0,  5.69102,  0]

  // Every target ignored: mean is NaN (0/0), sum is 0.
  %all = arith.constant dense<-100> : tensor<4xi64>
  %as, %am = call @ce_sum_mean(%x, %all) : (tensor<4x3xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<f32>)
  %asc = tensor.cast %as : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%asc) : (tensor<*xf32>) -> ()
  // CHECK: [0]
  %amc = tensor.cast %am : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%amc) : (tensor<*xf32>) -> ()
  // CHECK: [{{-?nan}}]

  // Non-finite logits: NaN propagates to its row; a -inf class is fine
  // (lse = log(e^1 + e^2), loss 0.313262); +inf anywhere gives NaN as
  // PyTorch's log_softmax (inf - inf); an all -inf row is NaN.
  %y = arith.constant dense<[[0x7FC00000, 1.0, 2.0], [0xFF800000, 1.0, 2.0], [0x7F800000, 1.0, 2.0], [0xFF800000, 0xFF800000, 0xFF800000]]> : tensor<4x3xf32>
  %yt = arith.constant dense<[2, 2, 2, 0]> : tensor<4xi64>
  %yn = call @ce_none(%y, %yt) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  %ync = tensor.cast %yn : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%ync) : (tensor<*xf32>) -> ()
  // CHECK: [{{-?nan}},  0.313262,  {{-?nan}},  {{-?nan}}]

  // No error so far.
  call @print_error() : () -> ()
  // CHECK: [0]
  // Target 3 is out of range for C = 3 (code 1); the other rows are right.
  %bad = arith.constant dense<[2, 3, 1, 0]> : tensor<4xi64>
  %bn = call @ce_none(%x, %bad) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  %bnc = tensor.cast %bn : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%bnc) : (tensor<*xf32>) -> ()
  // CHECK: [0.407606,  nan,  6.03215,  1.09861]
  call @print_error() : () -> ()
  // CHECK: [1]
  // Taking the error cleared it.
  call @print_error() : () -> ()
  // CHECK: [0]

  // 1-D logits with a rank-0 target.
  %x1 = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %t1 = arith.constant dense<2> : tensor<i64>
  %l1 = call @ce_1d(%x1, %t1) : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
  %l1c = tensor.cast %l1 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%l1c) : (tensor<*xf32>) -> ()
  // CHECK: [0.407606]
  return
}
