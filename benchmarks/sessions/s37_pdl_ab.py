"""Session 37: the fused backward's launches chained by programmatic dependent launch
(``hopper_fused.PDL``), and the split columns' dK and dV summed in one launch, against
the tree before them, alternating in one process (``ab.backward_ab``, each backward
replayed from a CUDA graph, so that the host's launches do not hide the gaps between
kernels).

    git archive HEAD~1 sparseflash | tar -x -C s37_base    # the tree before the change
    python benchmarks/sessions/s37_pdl_ab.py s37_base [--rounds 2] [--stress 100]

Variants: ``before`` (the tree given), ``one sum`` (this tree, PDL off: only the sums
merged) and ``pdl`` (this tree as landed). First a race check: with PDL each grid may
start before the one it follows has finished, so a wait placed too late shows as a wrong
delta (dK, dV) or a dQ sum zeroed under its adds. The backward with PDL runs ``--stress``
times back to back (eager, then replayed from one CUDA graph) on layouts with and without
split columns, each run's dK and dV bit for bit the PDL-off run's and its dQ within
float32 summation order of it.

Prediction: the launches' gaps are a few microseconds each (three or four a backward),
so 0.2-0.5% of a 1-3 ms backward from graphs, less of a dense one.

Result (calls 1 and 3, one H100; ``benchmarks/results/NVIDIA-H100-pdl-s37.log`` and
``-pdl-s37-call3.log``; NOTES v39): no race in 2 x 4 x 120 runs; random+global at D=64
0.483-0.488 ms with PDL against 0.493-0.496 before (the one sum launch 1-1.4% of it), at
D=128 even; the other layouts within the 1-2.5% this H100 swung on identical kernels.
Kept.
"""

import argparse

import torch
import triton

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused

PATTERNS = {128: ["local(1) | global(1) | random(2)", "sparse_transformer_strided", "local(3)",
                  "causal", "dense"],
            64: ["local(1) | global(1) | random(2)", "sparse_transformer_strided", "dense"]}


def stress(launch, repeats: int, setup=None) -> None:
    """The PDL backward ``repeats`` times against the PDL-off one, eager and in a graph;
    ``setup()``, where given, sets the variant under test in place of ``PDL = True``."""
    import sparseflash
    for D, pattern, B, N, p_drop in ((128, "local(1) | global(1) | random(2)", 1, 16384, 0.0),
                                     (64, "local(1)", 4, 2048, 0.0),
                                     (128, "local(2) | global(1)", 2, 2048, 0.0),
                                     (64, "dense", 8, 1024, 0.0)):
        gen = torch.Generator(device="cuda").manual_seed(1)
        q, k, v, do = (torch.randn(B, 16, N, D, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        layout = sparseflash.compile_layout(pattern, N, block=128, device="cuda")
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        seed = torch.tensor([77], dtype=torch.int64, device="cuda") if p_drop else None
        out, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, seed,
                                  p_drop)[:2]

        def run():
            return launch.backward(do, q, k, v, out, lse, tables, meta, D ** -0.5, None,
                                   None, seed, p_drop)

        hopper_fused.PDL = False
        launch.clear_plans()
        ref = run()
        hopper_fused.PDL = True
        if setup is not None:
            setup()
        launch.clear_plans()
        scale = ref[0].float().abs().max()
        # Tallied on the GPU: a host sync a run would leave the GPU idle between backwards.
        differ = torch.zeros((), dtype=torch.int64, device="cuda")
        worst = torch.zeros((), device="cuda")

        def tally(grads):
            nonlocal worst
            differ.add_((grads[1] != ref[1]).any().long() + (grads[2] != ref[2]).any().long())
            worst = torch.maximum(worst, (grads[0].float() - ref[0].float()).abs().max() / scale)

        ab.eager_then_graph(run, tally, repeats)
        differ, worst = differ.item(), worst.item()
        ok = differ == 0 and worst < 1e-2
        print(f"stress D={D} {pattern} B={B} N={N} p={p_drop}: {2 * repeats} runs, dK/dV "
              f"differ in {differ}, dQ max|diff|/max {worst:.1e} -> {'ok' if ok else 'RACE'}",
              flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", help="the tree before the change (its sparseflash/)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stress", type=int, default=100)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    launch = ab.kernels_of(None)
    if args.stress:
        stress(launch, args.stress)
    hopper_fused.PDL = True
    variants = {"before": ab.kernels_of(args.tree, "kernels_before"),
                "one sum": (launch, ab.knob(hopper_fused, "PDL", False)),
                "pdl": (launch, ab.knob(hopper_fused, "PDL", True))}
    cases = [(D, p, 0.0) for D in (128, 64) for p in PATTERNS[D]]
    try:
        ab.backward_ab(variants, cases, rounds=args.rounds, timer="cudagraph")
    finally:
        hopper_fused.PDL = True


if __name__ == "__main__":
    main()
