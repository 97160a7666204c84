"""Session 35: the fused backward with K's and V's views taken in the tile loop
(``hopper_fused._tile_views``) against the same kernel with them taken before it,
alternating in one process, each round in the order A B B A.

    git show <commit before>:sparseflash/kernels/hopper_fused.py > /tmp/s35_fused_before.py
    python benchmarks/sessions/s35_tile_views_ab.py /tmp/s35_fused_before.py [--rounds 2]

(call 4 ran it with the file of commit 3a27055.) Triton 3.6's ptxas for sm_90 reports
spill bytes, before / after: D=128 with partial blocks 80 / 48, with key padding 4 / 0,
with dropout 312 / 16; D=64 20 / 12, with partial blocks 152 / 96 (NOTES v37). B=1, H=16,
N=16K, bf16, D=128 and 64, and D=128 with dropout 0.1; ``launch.backward`` on one
forward's output, do_bench (median, L2 flushed before each call). dK and dV must agree
bit for bit (the products and their order are the same), dQ within the sum order's
rounding.
"""

import argparse
import importlib.util

import torch
import triton

import sparseflash
from sparseflash.kernels import hopper_fused, launch

PATTERNS = ["dense", "causal", "strided(sqrt(n))", "butterfly", "local(3)",
            "local(1) | global(1) | random(2)", "local(1)"]


def _module(path):
    """The older ``hopper_fused`` from ``path``, as a module of ``sparseflash.kernels``
    (its relative imports resolve there)."""
    spec = importlib.util.spec_from_file_location("sparseflash.kernels._fused_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    variants = {"views before": _module(args.before), "views in loop": hopper_fused}
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    B, H, N = 1, 16, 16384
    order = ["views before", "views in loop", "views in loop", "views before"]
    cases = [(128, p, 0.0) for p in PATTERNS] + [(64, p, 0.0) for p in PATTERNS] + [
        (128, "dense", 0.1), (128, "local(3)", 0.1)]
    inputs = {}
    for D, pattern, p_drop in cases:
        if D not in inputs:
            gen = torch.Generator(device="cuda").manual_seed(0)
            inputs[D] = [torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16,
                                     generator=gen) for _ in range(4)]
        q, k, v, do = inputs[D]
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        flops = 2.5 * 4 * B * H * N * N * D * layout.density
        seed = torch.tensor([1234], dtype=torch.int64, device="cuda") if p_drop else None
        out, lse = launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, seed,
                                  p_drop)[:2]
        run = lambda: launch.backward(do, q, k, v, out, lse, tables, meta,  # noqa: E731
                                      D ** -0.5, None, None, seed, p_drop)
        ref, times = None, {label: [] for label in variants}
        for rnd in range(args.rounds):
            for label in order:
                launch.hopper_fused = variants[label]
                launch.clear_plans()
                grads = [run() for _ in range(2)]
                torch.cuda.synchronize()
                if ref is None:
                    ref = grads[0]
                dkdv_same = all(torch.equal(g[i], ref[i]) for g in grads for i in (1, 2))
                dq_err = max(((g[0].float() - ref[0].float()).abs().max()
                              / ref[0].float().abs().max()).item() for g in grads)
                ms = triton.testing.do_bench(run, warmup=25, rep=150)
                times[label].append(ms)
                print(f"D={D} p={p_drop} {pattern:34s} round {rnd + 1} {label:14s} {ms:7.3f} "
                      f"ms {flops / ms / 1e9:6.1f} TFLOP/s  dK,dV "
                      f"{'bitwise equal' if dkdv_same else 'DIFFER'}, dQ max|diff|/max "
                      f"{dq_err:.1e}", flush=True)
        launch.hopper_fused = hopper_fused
        a, b = min(times["views before"]), min(times["views in loop"])
        print(f"D={D} p={p_drop} {pattern:34s} best before {a:.3f} / in loop {b:.3f} ms "
              f"({a / b - 1:+.1%})", flush=True)


if __name__ == "__main__":
    main()
