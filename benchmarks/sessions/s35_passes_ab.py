"""Session 35: the fused backward's memory passes last head first (``hopper_fused``'s
``PASSES_LAST_HEAD_FIRST``, the delta kernel on 8 warps, dQ cast by ``dq_cast_kernel``)
against main's (first head first, 4 warps, ``Tensor.copy_`` for the cast), alternating in
one process, each round in the order A B B A.

    python benchmarks/sessions/s35_passes_ab.py [--rounds 3] [--head-dims 128 64]

Call 1 (``s35_l2_order_ab.py``) put the gain within the H100's noise at D=128 (dense
moved by up to 10% from variant to variant) and at 0.5-1% on D=64's short columns; this
repeats the two ends with more alternation. B=1, H=16, N=16K, bf16; ``launch.backward``
on one forward's output, do_bench (median, L2 flushed before each call). dK and dV must
agree bit for bit (only the passes change), dQ within the sum order's rounding.
"""

import argparse

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper_fused, launch

PATTERNS = ["dense", "sparse_transformer_strided", "strided(sqrt(n))", "butterfly",
            "chunk(8)", "local(3)", "local(1) | global(1) | random(2)", "local(1)"]
_BIND = hopper_fused.bind


def _main_bind(*args, **kwargs):
    """``hopper_fused.bind`` as main had it: the passes first head first, the delta kernel
    on 4 warps, dQ cast by ``Tensor.copy_``."""
    kept = hopper_fused.PASSES_LAST_HEAD_FIRST, hopper_fused.DELTA_WARPS
    hopper_fused.PASSES_LAST_HEAD_FIRST, hopper_fused.DELTA_WARPS = False, 4
    try:
        delta, fused, tiles, _ = _BIND(*args, **kwargs)
    finally:
        hopper_fused.PASSES_LAST_HEAD_FIRST, hopper_fused.DELTA_WARPS = kept
    return delta, fused, tiles, lambda t, s: t[1].copy_(t[0].view(t[1].shape))


VARIANTS = {"main": _main_bind, "last head first": _BIND}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--head-dims", type=int, nargs="+", default=[128, 64])
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    B, H, N = 1, 16, 16384
    order = ["main", "last head first", "last head first", "main"]
    for D in args.head_dims:
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
            ref, times = None, {label: [] for label in VARIANTS}
            for rnd in range(args.rounds):
                for label in order:
                    hopper_fused.bind = VARIANTS[label]
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
                    times[label].append(ms)
                    print(f"D={D} {pattern:34s} round {rnd + 1} {label:16s} {ms:7.3f} ms "
                          f"{flops / ms / 1e9:6.1f} TFLOP/s  dK,dV "
                          f"{'bitwise equal' if dkdv_same else 'DIFFER'}, dQ max|diff|/max "
                          f"{dq_err:.1e}{'' if finite else ' NOT FINITE'}", flush=True)
            hopper_fused.bind = _BIND
            best = {label: min(t) for label, t in times.items()}
            median = {label: sorted(t)[len(t) // 2] for label, t in times.items()}
            new = "last head first"
            print(f"D={D} {pattern:34s} best main {best['main']:.3f} / new {best[new]:.3f} "
                  f"ms ({best['main'] / best[new] - 1:+.1%}), median {median['main']:.3f} / "
                  f"{median[new]:.3f} ({median['main'] / median[new] - 1:+.1%})", flush=True)


if __name__ == "__main__":
    main()
