// --sift-fuse computes each tile of a value once per kernel. Upstream's
// tile-and-fuse driver fuses a producer again for every slice of it, and
// every copy fuses its own producers again: this binary search (what
// sift.torch emits for searchsorted and repeat_interleave), whose bounds
// are each read twice by the next step, had 2^8 copies of its first step's
// gather; with 12 steps the pass ran over 5 minutes, and a search over a
// million elements (20 steps) never ended. Each slice that reads a tile
// the kernel already computes now reads that tile: one kernel with one
// gather per step.
//
// RUN: tensor-opt %s --convert-elementwise-to-linalg --sift-fuse | FileCheck %s

// CHECK-LABEL: func.func @search
// CHECK: scf.forall
// CHECK-COUNT-8: sift.gather
// CHECK-NOT: sift.gather
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @search(%seq: tensor<8x4096xi64>, %v: tensor<8x16xi64>) -> tensor<8x16xi64> {
  %zero = arith.constant dense<0> : tensor<8x16xi64>
  %one = arith.constant dense<1> : tensor<8x16xi64>
  %end0 = arith.constant dense<4096> : tensor<8x16xi64>
  %act0 = arith.cmpi slt, %zero, %end0 : tensor<8x16xi64>
  %span0 = arith.subi %end0, %zero : tensor<8x16xi64>
  %half0 = arith.shrui %span0, %one : tensor<8x16xi64>
  %mid0 = arith.addi %zero, %half0 : tensor<8x16xi64>
  %safe0 = arith.select %act0, %mid0, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv0 = sift.gather %seq[%safe0] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go0 = arith.cmpi slt, %mv0, %v : tensor<8x16xi64>
  %up0 = arith.andi %act0, %go0 : tensor<8x16xi1>
  %down0 = arith.xori %act0, %up0 : tensor<8x16xi1>
  %after0 = arith.addi %mid0, %one : tensor<8x16xi64>
  %s0 = arith.select %up0, %after0, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %e0 = arith.select %down0, %mid0, %end0 : tensor<8x16xi1>, tensor<8x16xi64>
  %act1 = arith.cmpi slt, %s0, %e0 : tensor<8x16xi64>
  %span1 = arith.subi %e0, %s0 : tensor<8x16xi64>
  %half1 = arith.shrui %span1, %one : tensor<8x16xi64>
  %mid1 = arith.addi %s0, %half1 : tensor<8x16xi64>
  %safe1 = arith.select %act1, %mid1, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv1 = sift.gather %seq[%safe1] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go1 = arith.cmpi slt, %mv1, %v : tensor<8x16xi64>
  %up1 = arith.andi %act1, %go1 : tensor<8x16xi1>
  %down1 = arith.xori %act1, %up1 : tensor<8x16xi1>
  %after1 = arith.addi %mid1, %one : tensor<8x16xi64>
  %s1 = arith.select %up1, %after1, %s0 : tensor<8x16xi1>, tensor<8x16xi64>
  %e1 = arith.select %down1, %mid1, %e0 : tensor<8x16xi1>, tensor<8x16xi64>
  %act2 = arith.cmpi slt, %s1, %e1 : tensor<8x16xi64>
  %span2 = arith.subi %e1, %s1 : tensor<8x16xi64>
  %half2 = arith.shrui %span2, %one : tensor<8x16xi64>
  %mid2 = arith.addi %s1, %half2 : tensor<8x16xi64>
  %safe2 = arith.select %act2, %mid2, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv2 = sift.gather %seq[%safe2] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go2 = arith.cmpi slt, %mv2, %v : tensor<8x16xi64>
  %up2 = arith.andi %act2, %go2 : tensor<8x16xi1>
  %down2 = arith.xori %act2, %up2 : tensor<8x16xi1>
  %after2 = arith.addi %mid2, %one : tensor<8x16xi64>
  %s2 = arith.select %up2, %after2, %s1 : tensor<8x16xi1>, tensor<8x16xi64>
  %e2 = arith.select %down2, %mid2, %e1 : tensor<8x16xi1>, tensor<8x16xi64>
  %act3 = arith.cmpi slt, %s2, %e2 : tensor<8x16xi64>
  %span3 = arith.subi %e2, %s2 : tensor<8x16xi64>
  %half3 = arith.shrui %span3, %one : tensor<8x16xi64>
  %mid3 = arith.addi %s2, %half3 : tensor<8x16xi64>
  %safe3 = arith.select %act3, %mid3, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv3 = sift.gather %seq[%safe3] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go3 = arith.cmpi slt, %mv3, %v : tensor<8x16xi64>
  %up3 = arith.andi %act3, %go3 : tensor<8x16xi1>
  %down3 = arith.xori %act3, %up3 : tensor<8x16xi1>
  %after3 = arith.addi %mid3, %one : tensor<8x16xi64>
  %s3 = arith.select %up3, %after3, %s2 : tensor<8x16xi1>, tensor<8x16xi64>
  %e3 = arith.select %down3, %mid3, %e2 : tensor<8x16xi1>, tensor<8x16xi64>
  %act4 = arith.cmpi slt, %s3, %e3 : tensor<8x16xi64>
  %span4 = arith.subi %e3, %s3 : tensor<8x16xi64>
  %half4 = arith.shrui %span4, %one : tensor<8x16xi64>
  %mid4 = arith.addi %s3, %half4 : tensor<8x16xi64>
  %safe4 = arith.select %act4, %mid4, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv4 = sift.gather %seq[%safe4] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go4 = arith.cmpi slt, %mv4, %v : tensor<8x16xi64>
  %up4 = arith.andi %act4, %go4 : tensor<8x16xi1>
  %down4 = arith.xori %act4, %up4 : tensor<8x16xi1>
  %after4 = arith.addi %mid4, %one : tensor<8x16xi64>
  %s4 = arith.select %up4, %after4, %s3 : tensor<8x16xi1>, tensor<8x16xi64>
  %e4 = arith.select %down4, %mid4, %e3 : tensor<8x16xi1>, tensor<8x16xi64>
  %act5 = arith.cmpi slt, %s4, %e4 : tensor<8x16xi64>
  %span5 = arith.subi %e4, %s4 : tensor<8x16xi64>
  %half5 = arith.shrui %span5, %one : tensor<8x16xi64>
  %mid5 = arith.addi %s4, %half5 : tensor<8x16xi64>
  %safe5 = arith.select %act5, %mid5, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv5 = sift.gather %seq[%safe5] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go5 = arith.cmpi slt, %mv5, %v : tensor<8x16xi64>
  %up5 = arith.andi %act5, %go5 : tensor<8x16xi1>
  %down5 = arith.xori %act5, %up5 : tensor<8x16xi1>
  %after5 = arith.addi %mid5, %one : tensor<8x16xi64>
  %s5 = arith.select %up5, %after5, %s4 : tensor<8x16xi1>, tensor<8x16xi64>
  %e5 = arith.select %down5, %mid5, %e4 : tensor<8x16xi1>, tensor<8x16xi64>
  %act6 = arith.cmpi slt, %s5, %e5 : tensor<8x16xi64>
  %span6 = arith.subi %e5, %s5 : tensor<8x16xi64>
  %half6 = arith.shrui %span6, %one : tensor<8x16xi64>
  %mid6 = arith.addi %s5, %half6 : tensor<8x16xi64>
  %safe6 = arith.select %act6, %mid6, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv6 = sift.gather %seq[%safe6] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go6 = arith.cmpi slt, %mv6, %v : tensor<8x16xi64>
  %up6 = arith.andi %act6, %go6 : tensor<8x16xi1>
  %down6 = arith.xori %act6, %up6 : tensor<8x16xi1>
  %after6 = arith.addi %mid6, %one : tensor<8x16xi64>
  %s6 = arith.select %up6, %after6, %s5 : tensor<8x16xi1>, tensor<8x16xi64>
  %e6 = arith.select %down6, %mid6, %e5 : tensor<8x16xi1>, tensor<8x16xi64>
  %act7 = arith.cmpi slt, %s6, %e6 : tensor<8x16xi64>
  %span7 = arith.subi %e6, %s6 : tensor<8x16xi64>
  %half7 = arith.shrui %span7, %one : tensor<8x16xi64>
  %mid7 = arith.addi %s6, %half7 : tensor<8x16xi64>
  %safe7 = arith.select %act7, %mid7, %zero : tensor<8x16xi1>, tensor<8x16xi64>
  %mv7 = sift.gather %seq[%safe7] {batch_dims = 1 : i64} : tensor<8x4096xi64>, tensor<8x16xi64> -> tensor<8x16xi64>
  %go7 = arith.cmpi slt, %mv7, %v : tensor<8x16xi64>
  %up7 = arith.andi %act7, %go7 : tensor<8x16xi1>
  %down7 = arith.xori %act7, %up7 : tensor<8x16xi1>
  %after7 = arith.addi %mid7, %one : tensor<8x16xi64>
  %s7 = arith.select %up7, %after7, %s6 : tensor<8x16xi1>, tensor<8x16xi64>
  %e7 = arith.select %down7, %mid7, %e6 : tensor<8x16xi1>, tensor<8x16xi64>
  return %s7 : tensor<8x16xi64>
}
