// Real patterns from detection, segmentation and recommendation code
// (examples/patterns/) become fully static under --sift-staticize.
// RUN: tensor-opt %sift_src_root/examples/patterns/rpn_positive_l1.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=RPN --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/ssd_hard_negatives.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=SSD --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/seg_valid_pixels_loss.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=SEG --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/recsys_dedupe.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=REC --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/det_postprocess_topn.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=DET --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/class_stats_scatter.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=SCT --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/flat_bce_valid_anchors.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=BCE --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/balanced_counts_branches.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=BRA --implicit-check-not='tensor<?' --implicit-check-not='scf.if'
// RUN: tensor-opt %sift_src_root/examples/patterns/nested_selection.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=NEST --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/selected_target_logits.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=PICK --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/fallback_selection.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=FALL --implicit-check-not='tensor<?' --implicit-check-not='scf.if'
// RUN: tensor-opt %sift_src_root/examples/patterns/cascade_filter.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=CASC --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/flat_triples.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=TRI --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/multilabel_counts.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=MLC --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/kept_box_fields.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=KEPT --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/valid_fg_presence.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=FGP --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/mode_selection.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=MODE --implicit-check-not='tensor<?'
// RUN: tensor-opt %sift_src_root/examples/patterns/budgeted_topn_helper.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=BUD --implicit-check-not='tensor<?' --implicit-check-not='func.call'

// RPN: func.func @positive_l1({{.*}}) -> tensor<f32>
// RPN: sift.compact %{{.*}} : tensor<512xi1> -> tensor<512xi64>, tensor<i64>
// RPN: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<512x4xf32>, tensor<512xi1>)

// SSD: func.func @hard_negatives({{.*}}) -> tensor<f32>
// SSD: sift.sort %{{.*}} descending : tensor<1000xf32>
// k = min(3 * len(pos), len(neg)) <= len(neg) <= 1000:
// SSD: sift.gather %{{.*}} : tensor<1000xf32>, tensor<1000xi64> -> tensor<1000xf32>
// SSD: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1000xf32>, tensor<1000xi1>)

// SEG: func.func @valid_pixels_loss({{.*}}) -> tensor<f32>
// SEG: sift.cross_entropy %{{.*}}, %{{.*}} reduction = mean : tensor<4096x21xf32>, tensor<4096xi64> -> tensor<f32>

// REC: func.func @dedupe({{.*}}) -> (tensor<256x8xf32>, tensor<i64>, tensor<256xi64>, tensor<i64>, tensor<256xi64>)
// REC: sift.sort %{{.*}} : tensor<256xi64>

// DET: func.func @postprocess({{.*}}) -> (tensor<100x4xf32>, tensor<i64>, tensor<100xf32>, tensor<i64>)
// DET: sift.argsort %{{.*}} descending : tensor<2000xf32> -> tensor<2000xi64>

// SCT: func.func @class_stats({{.*}}) -> (tensor<21xi64>, tensor<21xf32>, tensor<21xf32>, tensor<512xi64>)
// SCT: sift.compact %{{.*}} : tensor<512xi1> -> tensor<512xi64>, tensor<i64>
// SCT: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] reduce(add) : tensor<512xi64>, tensor<512xi64> into tensor<21xi64>
// SCT: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] reduce(max) : tensor<512xf32>, tensor<512xi64> into tensor<21xf32>
// SCT: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] : tensor<512xi64>, tensor<512xi64> into tensor<512xi64>

// BCE: func.func @flat_bce({{.*}}) -> tensor<f32>
// BCE: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [256, 1] : tensor<256xi64> into tensor<256x1xi64>
// BCE: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<256x5xf32> into tensor<1280xf32>

// BRA: func.func @balanced_counts({{.*}}) -> (tensor<32xi64>, tensor<i64>, tensor<32xi64>, tensor<i64>)
// BRA: arith.select

// NEST: func.func @nested_selection({{.*}}) -> (tensor<300x4xf32>, tensor<i64>, tensor<300xi64>, tensor<i64>, tensor<3xf32>, tensor<i64>)

// The helper is inlined; the slice of a length read from the data is at
// most its 300-row source.
// BUD-NOT: func.func private @ranked
// BUD: func.func @budgeted_topn({{.*}}) -> (tensor<300x4xf32>, tensor<i64>, tensor<300xf32>, tensor<i64>)
// BUD: sift.argsort %{{.*}} descending : tensor<300xf32> -> tensor<300xi64>

// The per-row pick of selected rows: a gather with batch_dims = 1 on the
// padded rows.
// PICK: func.func @target_logits({{.*}}) -> (tensor<256xf32>, tensor<i64>, tensor<f32>)
// PICK: sift.gather %{{.*}}[%{{.*}}] {batch_dims = 1 : i64} : tensor<256x5xf32>, tensor<256x1xi64> -> tensor<256x1xf32>

// The selection yielded by a branch on a count: both branches' selections
// padded to 200 rows, the branch if-converted.
// FALL: func.func @fallback_selection({{.*}}) -> (tensor<200x4xf32>, tensor<i64>, tensor<200xf32>, tensor<i64>, tensor<200xi64>, tensor<i64>)
// FALL: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<200xi64>

// Selections of selections carried by a loop, padded to the pre-filter's
// 200 rows.
// CASC: func.func @cascade_filter({{.*}}) -> (tensor<200x4xf32>, tensor<i64>, tensor<200xf32>, tensor<i64>, tensor<f32>)
// CASC: scf.for {{.*}} -> (tensor<200xf32>, index, tensor<200x4xf32>, index)

// .view(-1, 3) of 100 padded rows: padded up to 102, 34 triples.
// TRI: func.func @flat_triples({{.*}}) -> (tensor<34x3xi64>, tensor<i64>, tensor<33xi64>, tensor<i64>)
// TRI: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [34, 3] : tensor<102xi64> into tensor<34x3xi64>

// Counts along the rows of a selection: one per padded row.
// MLC: func.func @multilabel_counts({{.*}}) -> (tensor<256xi64>, tensor<i64>, tensor<i64>)
// MLC: sift.count %{{.*}} : tensor<256x5xi1> -> tensor<256xi64>

// KEPT: func.func @kept_box_fields({{.*}}) -> (tensor<64x2xf32>, tensor<i64>, tensor<4xf32>, tensor<f32>)
// KEPT: tensor.extract_slice %{{.*}}[0, 0] [64, 2] [1, 1] : tensor<64x4xf32> to tensor<64x2xf32>
// KEPT: sift.gather %{{.*}} : tensor<64x4xf32>, tensor<1xi64> -> tensor<1x4xf32>
// KEPT: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
// KEPT: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>

// FGP: func.func @valid_fg_presence({{.*}}) -> (tensor<256xi1>, tensor<i64>, tensor<256xi64>, tensor<i64>)
// FGP: sift.sort %{{.*}} : tensor<256xi8> -> tensor<256xi8>, tensor<256xi64>

// MODE: func.func @mode_selection({{.*}}) -> (tensor<128xf32>, tensor<i64>, tensor<f32>)
// MODE: scf.index_switch %{{.*}} -> tensor<128xf32>, index
// MODE-COUNT-3: sift.compact
