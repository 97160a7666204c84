"""Session 35: the fused backward's two memory passes ordered for L2, alternating in one
process with main's order.

    python benchmarks/sessions/s35_l2_order_ab.py [--rounds 2]

Runs on the knobs' tree (call 1 ran it, log ``results/NVIDIA-H100-l2-order-s35.log``):
``git checkout 55bc450``. ``s35_passes_ab.py`` compares the form that landed with main's.

Around the fused kernel (which takes its columns head by head, first head first) the
delta kernel reads O and dO and zeroes the float32 dQ sum (B*H*N, D), and after it dQ is
cast from that sum: 124 us at D=128 and 16K tokens on an H200, at the memory's bandwidth
(``s34_bwd_passes.py``, NOTES v36). An H100/H200 keeps the last ~50 MB touched in L2. If
the delta kernel walks the heads last to first, its last rows (the first heads' dO, delta
and zeroed sums) are in L2 when the fused kernel starts on them; if the cast walks them
last to first, it starts on the sums the fused kernel wrote last. Variants
(``hopper_fused``'s knobs):

* ``main``: the delta kernel first to last, ``Tensor.copy_`` for the cast;
* ``cast kernel``: the cast by ``dq_cast_kernel`` first to last (its own speed);
* ``delta reversed``: and the delta kernel last to first;
* ``both reversed``: and the cast last to first;
* ``both, delta 8 warps``: and the delta kernel on 8 warps (NOTES v36: 69.5 against 71.7 us).

B=1, H=16, N=16K, bf16, D=128 and 64; ``launch.backward`` on one forward's output, timed
with do_bench (median; L2 flushed before each call, so only the passes' order within a
call can find anything in L2). dK and dV must agree bit for bit with the first variant's
(only the passes change), dQ within the sum order's rounding (its TMA reductions land in a
varying order).
"""

import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper_fused, launch

PATTERNS = ["dense", "causal", "sparse_transformer_strided", "strided(sqrt(n))", "butterfly",
            "chunk(8)", "local(3)", "local(1) | global(1) | random(2)", "local(1)"]
# (label, REVERSE_DELTA, CAST_KERNEL, REVERSE_CAST, DELTA_WARPS)
VARIANTS = [("main", False, False, False, 4),
            ("cast kernel", False, True, False, 4),
            ("delta reversed", True, True, False, 4),
            ("both reversed", True, True, True, 4),
            ("both, delta 8 warps", True, True, True, 8)]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
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
                for label, rev_delta, cast_kernel, rev_cast, warps in VARIANTS:
                    (hopper_fused.REVERSE_DELTA, hopper_fused.CAST_KERNEL,
                     hopper_fused.REVERSE_CAST, hopper_fused.DELTA_WARPS) = (
                        rev_delta, cast_kernel, rev_cast, warps)
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
                    print(f"D={D} {pattern:34s} round {rnd + 1} {label:20s} {ms:7.3f} ms "
                          f"{flops / ms / 1e9:6.1f} TFLOP/s  dK,dV "
                          f"{'bitwise equal' if dkdv_same else 'DIFFER'}, dQ max|diff|/max "
                          f"{dq_err:.1e}{'' if finite else ' NOT FINITE'}", flush=True)


if __name__ == "__main__":
    main()
