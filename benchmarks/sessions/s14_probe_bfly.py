"""Session 14 probe: the GPU test's check of forced dK/dV tiles on a butterfly layout with
a ragged last block (N = 1000, block 128), outside pytest, for one tree.

    TRITON_INTERPRET=1 python benchmarks/sessions/s14_probe_bfly.py   # CPU, interpreter
    python benchmarks/sessions/s14_probe_bfly.py                      # on a GPU

Call 1's tests/test_gpu.py found dk errors of 0.04-0.16 (float16 reference: 0.001) for
dK/dV tiles with BLOCK_M = 32 on this layout, where the interpreter gives every tile the
same small error. Printed per tile: max |error| of dq, dk, dv against float64.
"""

import os
import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import launch
from sparseflash.kernels.backward import attention_dkdv_kernel
from sparseflash.kernels.fastlaunch import Kernel
from sparseflash.reference import dense_attention


def errors(tile, pattern="butterfly", dtype=torch.float16, N=1000, D=64, device="cpu"):
    m, n, warps, stages = tile
    config = triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=warps, num_stages=stages)
    launch._dkdv = Kernel(attention_dkdv_kernel, [config], launch._KEY_DKDV,
                          lambda configs, named, **kw: configs)
    gen = torch.Generator(device=device).manual_seed(0)
    q, k, v, do = (torch.randn(1, 2, N, D, generator=gen, device=device).to(dtype)
                   for _ in range(4))
    layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=2, device=device)
    inputs = [t.clone().requires_grad_() for t in (q, k, v)]
    out = sparseflash.attention(*inputs, layout, backend="triton")
    got = torch.autograd.grad(out, inputs, do)
    gold_in = [t.double().requires_grad_() for t in (q, k, v)]
    gold_out, _ = dense_attention(*gold_in, layout.to_dense())
    gold = torch.autograd.grad(gold_out, gold_in, do.double())
    return {name: round((a.double() - g).abs().max().item(), 5)
            for name, a, g in zip(("dq", "dk", "dv"), got, gold)}


if __name__ == "__main__":
    device = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
    print("sparseflash from", sparseflash.__file__)
    for D, tiles in ((64, ((32, 64, 4, 3), (32, 128, 4, 3), (64, 64, 4, 3), (64, 64, 4, 2))),
                     (128, ((32, 64, 4, 3), (32, 64, 4, 2), (64, 64, 4, 2)))):
        for N in (1000, 1024):
            for tile in tiles:
                print(f"D={D} N={N} tile {tile}:", errors(tile, N=N, D=D, device=device))
                sys.stdout.flush()
