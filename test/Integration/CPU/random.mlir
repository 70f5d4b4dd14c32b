// Philox streams of sift.random_bits, sift.random_uniform and sift.randperm,
// lowered with --sift-cpu-pipeline and run on the CPU.
//
// RUN: tensor-opt %s --sift-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void -shared-libs=%shlibs \
// RUN: | FileCheck %s
//
// Expected values come from the Python reference, e.g.
//   python3 -c "import sys; sys.path.insert(0,'python');
//     from sift.reference import philox as p; print(p.random_bits(7,5,6))"
// (printed here as signed integers), p.random_uniform(...) scaled by 2^24 or
// 2^53 (the exact integer mantissas), and p.randperm(n, seed, offset). The
// f16/bf16 values are the f32 values truncated toward zero by hand.

func.func private @printMemrefI64(tensor<*xi64>)
func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_i32(%t: tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?xi64>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<?xi32>) outs(%e : tensor<?xi64>) {
  ^bb0(%x: i32, %o: i64):
    %y = arith.extsi %x : i32 to i64
    linalg.yield %y : i64
  } -> tensor<?xi64>
  %c = tensor.cast %w : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%c) : (tensor<*xi64>) -> ()
  return
}

// Prints x * 2^scale as integers: the exact mantissa of a uniform float.
func.func @print_scaled_f32(%t: tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xi64>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<?xf32>) outs(%e : tensor<?xi64>) {
  ^bb0(%x: f32, %o: i64):
    %s = arith.constant 16777216.0 : f32
    %m = arith.mulf %x, %s : f32
    %y = arith.fptoui %m : f32 to i64
    linalg.yield %y : i64
  } -> tensor<?xi64>
  %c = tensor.cast %w : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%c) : (tensor<*xi64>) -> ()
  return
}

func.func @print_scaled_f64(%t: tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xi64>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<?xf64>) outs(%e : tensor<?xi64>) {
  ^bb0(%x: f64, %o: i64):
    %s = arith.constant 9007199254740992.0 : f64
    %m = arith.mulf %x, %s : f64
    %y = arith.fptoui %m : f64 to i64
    linalg.yield %y : i64
  } -> tensor<?xi64>
  %c = tensor.cast %w : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%c) : (tensor<*xi64>) -> ()
  return
}

func.func @print_half(%t: tensor<3xf16>, %u: tensor<4xbf16>) {
  %e = tensor.empty() : tensor<3xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<3xf16>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f16, %o: f32):
    %y = arith.extf %x : f16 to f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %c = tensor.cast %w : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%c) : (tensor<*xf32>) -> ()
  %e2 = tensor.empty() : tensor<4xf32>
  %w2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%u : tensor<4xbf16>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %c2 = tensor.cast %w2 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%c2) : (tensor<*xf32>) -> ()
  return
}

// A non-constant n: the permutation has a dynamic size.
func.func @perm(%n: index, %seed: i64, %off: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed offset %off sort : tensor<?xi64>
  return %p : tensor<?xi64>
}

func.func @main() {
  %seed7 = arith.constant 7 : i64
  %off5 = arith.constant 5 : i64
  %bits = sift.random_bits %seed7 offset %off5 : tensor<2x3xi32>
  %bits_flat = tensor.collapse_shape %bits [[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
  %bits_dyn = tensor.cast %bits_flat : tensor<6xi32> to tensor<?xi32>
  call @print_i32(%bits_dyn) : (tensor<?xi32>) -> ()
  // CHECK: [896464793,  -469743865,  1861595290,  -2135520675,  -1813465498,  293973488]

  // A seed with both halves set (key = (0xffffffff, 0xffffffff)).
  %seedm1 = arith.constant -1 : i64
  %b64 = sift.random_bits %seedm1 : tensor<2x2xi64>
  %b64c = tensor.cast %b64 : tensor<2x2xi64> to tensor<*xi64>
  call @printMemrefI64(%b64c) : (tensor<*xi64>) -> ()
  // CHECK:      [1533272510205032201,   2484186383481155615],
  // CHECK-NEXT: [5433557989824845073,   -6924187993839500574]

  %seed123 = arith.constant 123 : i64
  %off1 = arith.constant 1 : i64
  %u32 = sift.random_uniform %seed123 offset %off1 : tensor<4xf32>
  %u32d = tensor.cast %u32 : tensor<4xf32> to tensor<?xf32>
  call @print_scaled_f32(%u32d) : (tensor<?xf32>) -> ()
  // CHECK: [15851290,  6640573,  8440696,  7756549]

  %u64 = sift.random_uniform %seed123 : tensor<3xf64>
  %u64d = tensor.cast %u64 : tensor<3xf64> to tensor<?xf64>
  call @print_scaled_f64(%u64d) : (tensor<?xf64>) -> ()
  // CHECK: [3623883238505692,  1719016631606672,  4406858236302414]

  // f16 from words of seed 5: 0.765982 -> 0.765625 (not 0.766113, the
  // nearest), 0.0697070 -> 0.0697021, 0.983737 -> 0.983398. bf16 of the f32
  // stream above: top 16 bits.
  %seed5 = arith.constant 5 : i64
  %h = sift.random_uniform %seed5 : tensor<3xf16>
  %bf = sift.random_uniform %seed123 offset %off1 : tensor<4xbf16>
  call @print_half(%h, %bf) : (tensor<3xf16>, tensor<4xbf16>) -> ()
  // CHECK: [0.765625,  0.0697021,  0.983398]
  // CHECK: [0.941406,  0.394531,  0.5,  0.460938]

  %seed9 = arith.constant 9 : i64
  %c8 = arith.constant 8 : index
  %p8 = sift.randperm %c8, %seed9 sort : tensor<8xi64>
  %p8c = tensor.cast %p8 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%p8c) : (tensor<*xi64>) -> ()
  // CHECK: [4,  7,  5,  1,  3,  0,  6,  2]

  %c5 = arith.constant 5 : index
  %off2 = arith.constant 2 : i64
  %p5 = call @perm(%c5, %seed9, %off2) : (index, i64, i64) -> tensor<?xi64>
  %p5c = tensor.cast %p5 : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%p5c) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [5]
  // CHECK: [3,  0,  4,  2,  1]

  %c1 = arith.constant 1 : index
  %p1 = call @perm(%c1, %seed9, %off2) : (index, i64, i64) -> tensor<?xi64>
  %p1c = tensor.cast %p1 : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%p1c) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [1]
  // CHECK: [0]

  %c0 = arith.constant 0 : index
  %p0 = call @perm(%c0, %seed9, %off2) : (index, i64, i64) -> tensor<?xi64>
  %p0c = tensor.cast %p0 : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%p0c) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [0]
  return
}
