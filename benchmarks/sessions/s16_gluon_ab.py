"""Session 16: the library's Gluon forward (reordered as the probe, registers trimmed)
against the Triton forward, on the README's patterns.

    python benchmarks/sessions/s16_gluon_ab.py

N = 16K, H = 16, bf16, D = 64 and 128. Each pattern's Gluon and Triton outputs are
checked against SDPA with the token mask first; then both are timed (do_bench median,
wall time of ``launch.forward``), and the s15 probe kernel on the dense layout as the
machine's reference line.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
import s15_gluon_probe as probe  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import launch  # noqa: E402

PATTERNS = ("dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)")


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    N, H = 16384, 16
    for d in (64, 128):
        gen = torch.Generator(device="cuda").manual_seed(d)
        q, k, v = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            mask = layout.to_dense().to(q.device)
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            flops = 4 * H * N * N * d * layout.density
            fwd = lambda: launch.forward(q, k, v, tables, meta, d ** -0.5, None, None, 0, 0.0)  # noqa: E731
            row = []
            for label, env in (("triton", "0"), ("gluon", "1")):
                os.environ["SPARSEFLASH_GLUON"] = env
                out = fwd()[0]
                err = (out.float() - ref.float()).abs().max().item()
                ms = triton.testing.do_bench(fwd, warmup=25, rep=200)
                row.append(ms)
                print(f"D={d:3d} {pattern:34s} {label:7s} {ms:7.3f} ms "
                      f"{flops / ms / 1e9:6.1f} TFLOP/s max|err| {err:.2e}", flush=True)
            print(f"D={d:3d} {pattern:34s} gluon/triton time {row[1] / row[0]:.3f}", flush=True)
        out, _, run = probe.run_variant(q, k, v, (128, 3, False), "dense")
        ms = triton.testing.do_bench(run, warmup=25, rep=200)
        print(f"D={d:3d} {'dense':34s} probe   {ms:7.3f} ms "
              f"{4 * H * N * N * d / ms / 1e9:6.1f} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
