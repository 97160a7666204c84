"""Session 13 probe: one dK/dV tile forced, its gradients against float64, beside the
default tile's (the check ``tests/test_gpu.py`` makes, without pytest).

    TRITON_INTERPRET=1 python benchmarks/sessions/s13_forced_tile.py   # CPU, interpreter
    python benchmarks/sessions/s13_forced_tile.py                      # on a GPU

Call 7's 32x128 tile with 8 warps failed the float16 check as the GPU tests' fixed D=128
tile (dk error 0.0195 against the float16 reference's 0.0046); under the interpreter it
gives exactly the 64x64 tile's errors, so the kernel's arithmetic is the same for both.
On the H200 it is wrong only with a ragged last block: ``errors(tile, N=1000,
device="cuda")`` (benchmarks/NOTES.md, v15).
"""

import os

import torch
import triton

import sparseflash
from sparseflash.kernels import launch
from sparseflash.kernels.backward import attention_dkdv_kernel
from sparseflash.kernels.fastlaunch import Kernel
from sparseflash.reference import dense_attention


def errors(tile, dtype=torch.float16, N=384, D=128, device="cpu"):
    """Max |error| of dq, dk, dv against float64 with the dK/dV kernel forced to ``tile``
    (BLOCK_M, BLOCK_N, warps, stages), and the same for the reference computed in
    ``dtype``, on a causal layout."""
    m, n, warps, stages = tile
    config = triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=warps, num_stages=stages)
    launch._dkdv = Kernel(attention_dkdv_kernel, [config], launch._KEY_DKDV,
                          lambda configs, named, **kw: configs)
    gen = torch.Generator(device=device).manual_seed(0)
    q, k, v, do = (torch.randn(1, 2, N, D, generator=gen, device=device).to(dtype)
                   for _ in range(4))
    layout = sparseflash.compile_layout("causal", N, block=128, num_heads=2, device=device)
    mask = layout.to_dense()
    inputs = [t.clone().requires_grad_() for t in (q, k, v)]
    out = sparseflash.attention(*inputs, layout, backend="triton")
    got = torch.autograd.grad(out, inputs, do)
    gold_in = [t.double().requires_grad_() for t in (q, k, v)]
    gold_out, _ = dense_attention(*gold_in, mask)
    gold = torch.autograd.grad(gold_out, gold_in, do.double())
    same_in = [t.clone().requires_grad_() for t in (q, k, v)]
    same_out, _ = dense_attention(*same_in, mask)
    same = torch.autograd.grad(same_out, same_in, do)
    return {name: ((a.double() - g).abs().max().item(), (s.double() - g).abs().max().item())
            for name, a, g, s in zip(("dq", "dk", "dv"), got, gold, same)}


if __name__ == "__main__":
    device = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
    for tile in ((32, 128, 8, 2), (64, 64, 4, 2)):
        for name, (kernel, reference) in errors(tile, device=device).items():
            print(f"tile {tile} {name}: kernel {kernel:.4g}, float16 reference {reference:.4g}")
