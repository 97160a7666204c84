"""Session 21: the fused backward with its two consumer warp groups as partitions of
their own (dS exchanged through two buffers and a two-arrival barrier) against the same
kernel with both warp groups in one partition, and against the two-kernel backward,
alternating, in one process.

    python benchmarks/sessions/s21_split_ab.py [--head-dim 64] [--rounds 2]

N = 16K, H = 16, bf16; each variant's dQ, dK, dV against the two-kernel backward's
(itself tested against float64 in tests/test_gpu.py), then ``launch.backward`` timed
(do_bench median) and its kernels' CUDA time (torch profiler).

It ran on the trees of commits 89a1fd9 (call 1) and c17b82a (call 2), where
``hopper_fused.SPLIT`` chose between the two forms; the lockstep form was then removed,
so on later trees the two fused variants are the same kernel.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import hopper_fused, launch  # noqa: E402

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]
# (label, SPARSEFLASH_FUSED_BACKWARD, hopper_fused.SPLIT)
VARIANTS = [("two kernels", "0", True), ("fused, lockstep", "1", False),
            ("fused, split", "1", True)]


def main(variants=VARIANTS, switch="SPLIT"):
    """Each of ``variants`` (label, SPARSEFLASH_FUSED_BACKWARD, value of
    ``hopper_fused.<switch>``; with ``switch`` None, a dict of ``hopper_fused`` attributes
    to set) in turn, for every pattern, two rounds."""
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    D = int(sys.argv[sys.argv.index("--head-dim") + 1]) if "--head-dim" in sys.argv else 128
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    N, H = 16384, 16
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, do = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16,
                               generator=gen) for _ in range(4))
    for pattern in PATTERNS:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        scale = D ** -0.5
        o, lse = launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)
        flops = 2.5 * 4 * H * N * N * D * layout.density
        run = lambda: launch.backward(do, q, k, v, o, lse, tables, meta, scale, None,  # noqa: E731
                                      None, 0, 0.0)
        ref = None
        for rnd in range(rounds):
            for label, fused, value in variants:
                os.environ["SPARSEFLASH_FUSED_BACKWARD"] = fused
                for name, setting in (value.items() if switch is None
                                      else [(switch, value)]):
                    setattr(hopper_fused, name, setting)
                launch.clear_plans()
                got = run()
                if ref is None:
                    ref = got
                err = max((a.float() - b.float()).abs().max().item() for a, b in zip(got, ref))
                ms = triton.testing.do_bench(run, warmup=25, rep=200)
                kt = kernel_times(run)
                print(f"{pattern:34s} round {rnd + 1} {label:16s} {ms:7.3f} ms "
                      f"{flops / ms / 1e9:6.1f} TFLOP/s  kernels "
                      + " ".join(f"{name.split('(')[0][-28:]}={t:.3f}"
                                 for name, t in kt.items())
                      + f"  max|diff| vs two kernels {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
