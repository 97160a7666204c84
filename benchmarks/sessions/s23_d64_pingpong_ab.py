"""Session 23: at D=64, the Gluon forward's own kernel (two programs an SM, the default)
against the persistent ping-pong kernel (``SPARSEFLASH_PINGPONG=1``), alternating in one
process. Session 20 (NOTES v22) had the ping-pong kernel, then a program per tile, at
437-463 TFLOP/s on dense D=64 against 479; its programs are persistent since v25.

    python benchmarks/sessions/s23_d64_pingpong_ab.py [--rounds 2]

bf16, 16 heads, 16K tokens (N = 16K, and N = 4K with four sequences); each variant's O
against the default's (both are checked against float64 in tests/test_gpu.py), then
``launch.forward`` timed with do_bench (median).
"""

import os
import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import launch

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)",
            "local(1)"]
VARIANTS = [("two programs an SM", "auto"), ("persistent ping-pong", "1")]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    D, H = 64, 16
    for B, N in ((1, 16384), (4, 4096)):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            flops = 4 * B * H * N * N * D * layout.density
            run = lambda: launch.forward(q, k, v, tables, meta, D ** -0.5, None, None,  # noqa: E731
                                         0, 0.0)
            ref = None
            for rnd in range(rounds):
                for label, setting in VARIANTS:
                    os.environ["SPARSEFLASH_PINGPONG"] = setting
                    launch.clear_plans()
                    o, lse = run()
                    if ref is None:
                        ref = o
                    err = (o.float() - ref.float()).abs().max().item()
                    ms = triton.testing.do_bench(run, warmup=25, rep=200)
                    print(f"B={B} N={N:5d} {pattern:34s} round {rnd + 1} {label:21s} "
                          f"{ms:7.3f} ms {flops / ms / 1e9:6.1f} TFLOP/s  max|diff| {err:.1e}",
                          flush=True)


if __name__ == "__main__":
    main()
