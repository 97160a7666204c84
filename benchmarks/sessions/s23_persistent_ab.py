"""Session 23: the D=128 ping-pong forward with persistent programs (one an SM, each
running work items in turn, its loader copying the next item's keys while the warp
groups finish the last) against a program an item.

    python benchmarks/sessions/s23_persistent_ab.py [--rounds 2] [--label NAME]
        [--store-ab | --qbufs-ab]

Call 1 ran both forms of commit cb7ebc1 (``hopper_pingpong.PERSISTENT``, programs
taking items p, p + P, ...) alternating in one process; call 2 both forms of its
successor (items dealt in alternating order) and the session-22 tree. Since then there
is one form (items drawn from a counter), and the script times whichever tree it runs
in (``--label``), the session scripts alternating processes between trees; with
``--store-ab`` (call 4, commit b7245fd), the persistent kernel's two epilogues
(``hopper_pingpong.TMA_STORE``: O by TMA through the Q buffer, or by the threads' stores
with the Q buffer released early) alternating in one process; the second was 7-15%
slower on short rows and was removed, so on later trees both variants are one kernel.
With ``--qbufs-ab`` (call 9), ``hopper_pingpong.STAGES`` and ``Q_BUFS``: (3, 1), (2, 2)
and (2, 1) alternating in one process (on trees since session 24, whose K and V rings
have depths of their own, ``s24_split_ring_ab.py`` instead: this option then stops).

bf16, D = 128, 16K tokens (N = 16K with one sequence, N = 4K with four); each variant's
O and LSE against the first's (which tests/test_gpu.py checks against float64): the same
arithmetic per item, so they must agree bit for bit, and each is run twice to catch a
race. Then ``launch.forward`` timed with do_bench (median): the kernel
sets the pace at these sizes (host ~0.1 ms against 0.24-3.4 ms).
"""

import sys

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper_pingpong, launch

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)",
            "local(1)"]


def compare_forwards(D, variants, apply, rounds):
    """``variants`` (label, setting) of the forward, alternating, ``rounds`` times, for
    every pattern at 16K tokens (N = 16K, and N = 4K with four sequences), bf16, 16 heads,
    head dim ``D``; ``apply(setting)`` makes the variant the one the next plan binds. Each
    variant runs twice and is compared with the first variant's first output (bit for bit,
    else the largest difference), then ``launch.forward`` is timed with do_bench."""
    H = 16
    width = max(len(label) for label, _ in variants)
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
                for label, setting in variants:
                    apply(setting)
                    launch.clear_plans()
                    outs = [run() for _ in range(2)]
                    torch.cuda.synchronize()
                    if ref is None:
                        ref = outs[0]
                    same = all(torch.equal(a, b) for out in outs for a, b in zip(out, ref))
                    err = max((a.float() - b.float()).abs().max().item()
                              for out in outs for a, b in zip(out, ref))
                    ms = triton.testing.do_bench(run, warmup=25, rep=200)
                    print(f"B={B} N={N:5d} {pattern:34s} round {rnd + 1} {label:{width}s} "
                          f"{ms:7.3f} ms {flops / ms / 1e9:6.1f} TFLOP/s  "
                          f"{'bitwise equal' if same else f'max|diff| {err:.1e}'}",
                          flush=True)


def _set_attributes(attrs):
    for name, value in attrs.items():
        # A later tree may have renamed the knob (session 24 split STAGES into K_STAGES and
        # V_STAGES): setting a name the kernel no longer reads would time the default.
        if not hasattr(hopper_pingpong, name):
            raise SystemExit(f"hopper_pingpong has no {name} on this tree")
        setattr(hopper_pingpong, name, value)


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    label = sys.argv[sys.argv.index("--label") + 1] if "--label" in sys.argv else "this tree"
    variants = [(label, dict(MAX_PROGRAMS=None))]
    if "--qbufs-ab" in sys.argv:
        # K/V buffers and Q buffers per warp group: the library's (3, 1), two Q buffers
        # (the next item's Q loaded before the current epilogue) on two K/V buffers, and
        # (2, 1).
        variants = [(f"{stages} K/V, {q_bufs} Q", dict(STAGES=stages, Q_BUFS=q_bufs))
                    for stages, q_bufs in ((3, 1), (2, 2), (2, 1))]
    if "--store-ab" in sys.argv:
        # O by TMA through the Q buffer, released after the store, against the threads'
        # stores with the buffer released after the item's last score product.
        variants = [("TMA store", dict(TMA_STORE=True)),
                    ("early Q release", dict(TMA_STORE=False))]
    compare_forwards(128, variants, _set_attributes, rounds)


if __name__ == "__main__":
    main()
