//===- main.cpp - A host application of sift --------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Compiles a function from a .mlir file, calls it on a host buffer and prints
// the result:  sift-host scale.mlir [function]
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Engine.h"

#include <cstdio>
#include <string>
#include <vector>

namespace jit = mlir::sift::jit;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.mlir [function]\n", argv[0]);
    return 2;
  }
  std::string function = argc > 2 ? argv[2] : "scale";

  auto engine = jit::Engine::compileFile(argv[1]);
  if (!engine) {
    std::string message;
    jit::consumeError(engine.takeError(), &message);
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return 1;
  }

  std::vector<float> x = {1, 2, 3, 4, 5};
  auto results = (*engine)->call(
      function, {jit::TensorView(x.data(), jit::DType::F32,
                                 {static_cast<int64_t>(x.size())}),
                 jit::Scalar::ofFloat(2.5, jit::DType::F32)});
  if (!results) {
    std::string message;
    jit::consumeError(results.takeError(), &message);
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return 1;
  }

  const jit::Tensor &y = (*results)[0];
  std::printf("%s(x, 2.5) = [", function.c_str());
  for (int64_t i = 0; i < y.numElements(); ++i)
    std::printf("%s%g", i ? ", " : "", y.data<float>()[i]);
  std::printf("]\n");
  return 0;
}
