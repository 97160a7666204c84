"""Session 34: the fused backward casting dQ's tiles itself (``hopper_fused.FINISH_DQ``:
the dQ adder counts each tile's contributions down and casts the tile that reaches zero)
against the cast after the kernel (a pass over the float32 accumulator: ~52 us of a
0.7-1.0 ms sparse backward at D=128 on an H200, ``s34_bwd_passes.py``), alternating in
one process.

    python benchmarks/sessions/s34_finish_dq_ab.py [--rounds 3]

Runs on the knob's tree (call 3 ran it): ``git checkout 79cfa5b && git apply
benchmarks/sessions/s34_finish_dq.patch``. Not kept (NOTES v36): correct (46 fused-backward
GPU tests against float64 passed) but 1-15% slower on every layout.

B=1, H=16, N=16K, bf16, D=128 and 64; ``launch.backward`` on one forward's output, timed
with do_bench (median). dK and dV must agree bit for bit with the first variant's (the
change touches only dQ); dQ within the sum order's rounding (its TMA reductions land in
a varying order), reported as the largest difference against the first variant's.
"""

import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper_fused, launch

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "strided(sqrt(n))",
            "local(1) | global(1) | random(2)", "local(1)"]
VARIANTS = [("cast after", False), ("cast in kernel", True)]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    B, H, N = 1, 16, 16384
    for D in (128, 64):
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        for pattern in PATTERNS:
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
            flops = 2.5 * 4 * B * H * N * N * D * layout.density
            out, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)[:2]
            run = lambda: launch.backward(do, q, k, v, out, lse, tables, meta,  # noqa: E731
                                          D ** -0.5, None, None, None, 0.0)
            ref = None
            for rnd in range(rounds):
                for label, finish in VARIANTS:
                    hopper_fused.FINISH_DQ = finish
                    launch.clear_plans()
                    grads = [run() for _ in range(2)]
                    torch.cuda.synchronize()
                    if ref is None:
                        ref = grads[0]
                    dkdv_same = all(torch.equal(g[i], ref[i]) for g in grads for i in (1, 2))
                    dq_err = max(((g[0].float() - ref[0].float()).abs().max()
                                  / ref[0].float().abs().max()).item() for g in grads)
                    finite = all(torch.isfinite(g[0]).all().item() for g in grads)
                    ms = triton.testing.do_bench(run, warmup=25, rep=200)
                    print(f"D={D} {pattern:34s} round {rnd + 1} {label:14s} {ms:7.3f} ms "
                          f"{flops / ms / 1e9:6.1f} TFLOP/s  dK,dV "
                          f"{'bitwise equal' if dkdv_same else 'DIFFER'}, dQ max|diff|/max "
                          f"{dq_err:.1e}{'' if finite else ' NOT FINITE'}", flush=True)
    hopper_fused.FINISH_DQ = True


if __name__ == "__main__":
    main()
