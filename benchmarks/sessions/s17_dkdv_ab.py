"""Session 17: the Gluon dK/dV kernel (``kernels.hopper_backward``) against the Triton one,
inside sparseflash's backward, in one process.

    python benchmarks/sessions/s17_dkdv_ab.py     # on an H100/H200

For each head dim and the README's five patterns (N=16K, 16 heads, bf16), the backward
(``launch.backward``: the dQ kernel, then dK/dV) with ``SPARSEFLASH_GLUON=0`` (Triton
dK/dV) and ``=1`` (Gluon dK/dV), alternating, two rounds: the dK/dV kernel's CUDA time
(torch profiler, 20 calls) and do_bench's median wall of the whole backward. The Gluon
side's dq, dk, dv are compared with the Triton side's (itself tested against float64).
"""

import json
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402  (mean CUDA ms per kernel name)

import sparseflash  # noqa: E402
from sparseflash.kernels import launch as sf  # noqa: E402

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name(),
          flush=True)
    H, N = 16, 16384
    for d in (128, 64):
        for pattern in PATTERNS:
            gen = torch.Generator(device="cuda").manual_seed(d)
            q, k, v, do = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16,
                                       generator=gen) for _ in range(4))
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), sf.LayoutMeta.of(layout)
            scale = d ** -0.5
            o, lse = sf.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)

            def bwd():
                return sf.backward(do, q, k, v, o, lse, tables, meta, scale, None, None, 0,
                                   0.0)
            flops = 2.5 * 4 * H * N * N * d * layout.density
            results = {}
            for rnd in range(2):
                for choice in ("0", "1"):
                    os.environ["SPARSEFLASH_GLUON"] = choice
                    grads = bwd()
                    torch.cuda.synchronize()
                    if choice == "0":
                        ref = grads
                        err = 0.0
                    else:
                        err = max((a.float() - b.float()).abs().max().item()
                                  for a, b in zip(grads, ref))
                    times = kernel_times(bwd)
                    dkdv = sum(t for name, t in times.items() if "dkdv" in name)
                    ms = triton.testing.do_bench(bwd, warmup=25, rep=200)
                    side = "gluon" if choice == "1" else "triton"
                    results.setdefault(side, []).append((dkdv, ms))
                    rec = {"D": d, "pattern": pattern, "dkdv": side, "round": rnd,
                           "dkdv_ms": round(dkdv, 4), "backward_ms": round(ms, 4),
                           "backward_tflops": round(flops / ms / 1e9, 1),
                           "max_diff_vs_triton": err,
                           "kernels": {n: round(t, 4) for n, t in times.items()}}
                    print(json.dumps(rec), flush=True)
            tri, glu = results["triton"], results["gluon"]
            print(f"  D={d:3d} {pattern:34s} dK/dV kernel ms triton "
                  f"{tri[0][0]:.3f}/{tri[1][0]:.3f} gluon {glu[0][0]:.3f}/{glu[1][0]:.3f} | "
                  f"backward ms triton {tri[0][1]:.3f}/{tri[1][1]:.3f} "
                  f"gluon {glu[0][1]:.3f}/{glu[1][1]:.3f}", flush=True)
    os.environ.pop("SPARSEFLASH_GLUON")


if __name__ == "__main__":
    main()
