"""sift's engine shares the process with libraries that embed their own
LLVM: after a compile and a call, importing Triton (which PyTorch imports
for torch.compile and torch.export) must not bind to sift's libLLVM.so."""

import importlib.util
import os
import subprocess
import sys

import pytest


@pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                    reason="Triton is not installed")
def test_triton_loads_after_a_sift_call():
    script = """
import numpy as np, sift
m = sift.compile_mlir('''
func.func @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = arith.addf %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}''')
assert (m.twice(np.ones(3, np.float32)) == 2).all()
import triton
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, env=dict(os.environ), timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", (
        f"rc {run.returncode}\n{run.stdout}\n{run.stderr[-3000:]}")
