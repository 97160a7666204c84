"""Session 22: the D=64 Gluon forward with one in four or one in two of a full tile's
exponentials on the FMA pipe (``hopper.SOFT_EXP2``: a polynomial, NOTES v24) against all
of them on the multi-function unit, alternating in one process.

    python benchmarks/sessions/s22_soft_exp2_ab.py [--rounds 2]

N = 16K, H = 16, D = 64, bf16. Each variant's output against the library's (SOFT_EXP2=0,
itself tested against float64 in tests/test_gpu.py) and, on the first 256 query rows of
every head, on the five query-block rows ``benchmarks.attention`` checks (first, second,
middle, last two) against the torch backend in float32; then ``launch.forward``
timed (do_bench median) and its kernel's CUDA time (torch profiler).

It ran on commit 42078d8 (calls 10-12), where ``hopper.SOFT_EXP2`` chose the share; both
shares were 17-33% slower and the switch was then removed, so on later trees this script
no longer runs.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402

import sparseflash  # noqa: E402
from benchmarks.attention import _reference  # noqa: E402
from sparseflash.kernels import hopper, launch  # noqa: E402

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]
VARIANTS = [0, 4, 2]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    N, H, D = 16384, 16, 64
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
               for _ in range(3))
    scale = D ** -0.5
    for pattern in PATTERNS:
        layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=H,
                                            device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        flops = 4 * H * N * N * D * layout.density
        run = lambda: launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)  # noqa: E731
        exact, tokens = _reference(q, k, v, layout)
        ref_out = None
        for rnd in range(rounds):
            for soft in VARIANTS:
                hopper.SOFT_EXP2 = soft
                launch.clear_plans()
                out = run()[0]
                if ref_out is None:
                    ref_out = out
                diff = (out.float() - ref_out.float()).abs().max().item()
                err = (out[:, :, tokens].float() - exact[:, :, tokens].float()).abs().max().item()
                lib_err = (ref_out[:, :, tokens].float()
                           - exact[:, :, tokens].float()).abs().max().item()
                ms = triton.testing.do_bench(run, warmup=25, rep=200)
                kt = kernel_times(run)
                print(f"{pattern:34s} round {rnd + 1} SOFT_EXP2={soft}  {ms:7.3f} ms "
                      f"{flops / ms / 1e9:6.1f} TFLOP/s  kernels "
                      + " ".join(f"{name.split('(')[0][-24:]}={t:.3f}" for name, t in kt.items())
                      + f"  max|diff| vs SOFT_EXP2=0 {diff:.1e}  vs float32 (5 block rows)"
                      f" {err:.1e} (library {lib_err:.1e})", flush=True)
    hopper.SOFT_EXP2 = 0


if __name__ == "__main__":
    main()
