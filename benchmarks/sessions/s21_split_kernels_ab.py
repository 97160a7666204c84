"""Session 21: the merge (forward) and split-sum (backward) kernels of split rows and
columns, with pipelined chunk loads on 16-row tiles, against the tree before
(run this script from each tree; ``s21-call10.sh``).

    python benchmarks/sessions/s21_split_kernels_ab.py

N = 16K, H = 16, bf16, D = 64 and 128, on the layouts with a global row and column:
``launch.forward`` and ``launch.backward`` timed (do_bench median) and their kernels' CUDA
time (torch profiler); outputs checked against SDPA with the layout's token mask.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import launch  # noqa: E402

PATTERNS = ["local(1) | global(1) | random(2)", "local(1) | global(1)"]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name(),
          sparseflash.__file__)
    N, H = 16384, 16
    for D in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, do = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            scale = D ** -0.5
            fwd = lambda: launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)  # noqa: E731
            o, lse = fwd()
            # The first 2048 query rows (the global row among them) against SDPA.
            mask = layout.to_dense()[0, :2048]
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float()[:, :, :2048], k.float(), v.float(), attn_mask=mask, scale=scale)
            err = (o[:, :, :2048].float() - ref).abs().max().item()
            bwd = lambda: launch.backward(do, q, k, v, o, lse, tables, meta, scale, None,  # noqa: E731
                                          None, 0, 0.0)
            bwd()
            for name, fn in (("forward", fwd), ("backward", bwd)):
                ms = triton.testing.do_bench(fn, warmup=25, rep=200)
                kt = kernel_times(fn)
                print(f"D={D:3d} {pattern:34s} {name:8s} {ms:7.3f} ms  kernels "
                      + " ".join(f"{n.split('(')[0][-26:]}={t:.4f}" for n, t in kt.items())
                      + (f"  max|o - sdpa| (first 2048 rows) {err:.1e}" if name == "forward"
                         else ""), flush=True)


if __name__ == "__main__":
    main()
