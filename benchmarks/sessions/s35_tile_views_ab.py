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
rounding. Since session 36 the A/B loop is ``ab.backward_ab``'s (the same cases, do_bench
settings, order and checks; its summary line reads ``best views before X / views in loop
Y (+Z%)`` where call 4's log reads ``best before X / in loop Y ms (+Z%)``).
"""

import argparse
import importlib.util

import torch
import triton

from benchmarks.sessions import ab
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


def _using(module):
    """A setup that has ``launch`` bind ``module``'s fused backward."""
    return lambda: setattr(launch, "hopper_fused", module)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    variants = {"views before": (launch, _using(_module(args.before))),
                "views in loop": (launch, _using(hopper_fused))}
    cases = [(128, p, 0.0) for p in PATTERNS] + [(64, p, 0.0) for p in PATTERNS] + [
        (128, "dense", 0.1), (128, "local(3)", 0.1)]
    try:
        ab.backward_ab(variants, cases, rounds=args.rounds)
    finally:
        launch.hopper_fused = hopper_fused


if __name__ == "__main__":
    main()
