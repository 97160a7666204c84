"""Session 29: what the barrier after the keep mask costs the Triton backward with dropout
(the two-kernel path: ``SPARSEFLASH_FUSED_BACKWARD=0``). Run once on this tree and once on
a copy without the barrier (``s29-call8.sh``); fwd+bwd ms from CUDA graphs, dropout 0.1,
B=4, H=16, N=4096, bf16, untuned tiles (``SPARSEFLASH_NO_AUTOTUNE=1``).

    python benchmarks/sessions/s29_barrier_cost.py LABEL
"""

import os
import sys

import torch
from triton.testing import do_bench_cudagraph

import sparseflash

os.environ["SPARSEFLASH_FUSED_BACKWARD"] = "0"
label = sys.argv[1]
for d in (64, 128):
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(4, 16, 4096, d, device="cuda", dtype=torch.bfloat16, generator=g)
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)
    for pattern in ("dense", "local(3)", "causal"):
        layout = sparseflash.compile_layout(pattern, 4096, block=128, device="cuda")

        def step():
            out = sparseflash.attention(q, k, v, layout, dropout_p=0.1)
            torch.autograd.grad(out, (q, k, v), grad)

        times = [do_bench_cudagraph(step, rep=200) for _ in range(2)]
        print(f"{label}: D={d} {pattern} fwd+bwd {times[0]:.3f} / {times[1]:.3f} ms", flush=True)
