"""Session 16: the Gluon forward's output through the copy engine (TMA store from Q's
shared buffer) against the threads' pointer stores, and both against the Triton forward.

    python benchmarks/sessions/s16_store_ab.py

N = 16K, H = 16, bf16, D = 64 and 128; dense, causal and ``local(3)``. Every path's output
is checked against SDPA with the token mask first; then the CUDA time of the kernels one
``launch.forward`` call launches (torch profiler, 20 calls) and do_bench's median wall
time, in two rounds of alternating order.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import hopper, launch  # noqa: E402

PATHS = {"triton": ("0", True), "gluon ptr-store": ("1", False), "gluon tma-store": ("1", True)}


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    N, H = 16384, 16
    for d in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(d)
        q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        for pattern in ("dense", "causal", "local(3)"):
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            ref = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=layout.to_dense().to(q.device))
            flops = 4 * H * N * N * d * layout.density
            fwd = lambda: launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
            for order in (list(PATHS), list(PATHS)[::-1]):
                for label in order:
                    os.environ["SPARSEFLASH_GLUON"], hopper.TMA_STORE = PATHS[label]
                    err = (fwd()[0].float() - ref.float()).abs().max().item()
                    kernel_ms = sum(kernel_times(fwd).values())
                    ms = triton.testing.do_bench(fwd, warmup=25, rep=200)
                    print(f"D={d:3d} {pattern:9s} {label:16s} kernels {kernel_ms:7.3f} ms "
                          f"({flops / kernel_ms / 1e9:6.1f} TFLOP/s)  wall {ms:7.3f} ms  "
                          f"max|err| {err:.2e}", flush=True)


if __name__ == "__main__":
    main()
