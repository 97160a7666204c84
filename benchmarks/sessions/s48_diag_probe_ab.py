"""Session 48: where a diagonal tile's time goes in the forwards (``causal`` at short
sequences; NOTES v48, v49). Runs on branch ``s48-diag-probe`` (or main after ``git apply
benchmarks/sessions/s48_diag_probe.patch``), whose ``hopper.PARTIAL_PROBE`` (a constexpr
global; 0 is main's machine code, instruction for instruction) selects a timing probe:

    0  main
    1  the partial mask not applied (its table reads, loop and -inf guard kept)
    2  the mask by per-row key bounds (lo <= key < hi), a correct rewrite
    3  the partial tiles through the full tiles' loop, unmasked (one loop; wrong outputs)
    4  one loop, every tile masked by the causal rule (right for ``causal`` alone)
    5  the mask by one compare a score: each row's upper key bound (``min(q + 1, Nk)`` on
       causal blocks, ``Nk`` else), the lower one (``q + 1``) under a branch taken on
       anti-causal blocks alone
    6  the mask by one unsigned compare a score: ``key - lo < hi - lo`` with each row's
       interval [lo, hi) of kept keys
    7  5 without the branch: the upper bound alone (wrong on anti-causal blocks)

    python benchmarks/sessions/s48_diag_probe_ab.py [--probes main nomask ...] [--rounds 2]

Each probe value runs from a copy of this tree's ``sparseflash`` under
``/tmp/s48-probe<N>`` with the global set, loaded beside this one (``ab.kernels_of``),
all in one process, A B C .. C B A a round, from CUDA graphs.

Why. ``causal | local(0)`` (the same blocks with the diagonal ones full) ran the 1K
forward in 0.110 ms against ``causal``'s 0.139 (D=64) and 0.164 against 0.214 (D=128):
~2-3 us a diagonal tile an SM, where a full tile takes ~1.2 (v48). Two early-read probes
were refuted (v48). The mask's arithmetic, by the machine code (ptxas of Triton 3.6):
~5-6 instructions a score (3 FSEL, 2 ISETP), ~0.4-0.7 us a tile an SM if issue-bound:
not enough alone. The partial variants' code is twice the full ones' (8,408 against
4,280 instructions for the D=128 ping-pong kernel): a loop and epilogue whose code is
cold at each item's diagonal tile would cost about that.

Prediction: if the mask's arithmetic is the cost, 1 and 2 gain most of the gap and 3
about as much as 1; if the second loop's code (its size, or the step into it) is the
cost, 3 gains most of it and 1 and 2 little; 4 (one loop, a mask on every tile) then
gains too despite masking 4.5x the tiles.

Result: (to be filled from call 1).
"""

import os
import shutil

from benchmarks.sessions import ab

PROBES = {"main": 0, "nomask": 1, "bounds": 2, "oneloop": 3, "maskall": 4, "onecmp": 5,
          "interval": 6, "upper": 7}
CAUSAL = [(64, "causal", 0.0), (128, "causal", 0.0)]
RAGGED = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "causal", 0.0)]
SHAPES = {(16, 16, 1024): CAUSAL, (4, 16, 4096): CAUSAL, (16, 16, 1000): RAGGED}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def probe_tree(value: int) -> str:
    """A copy of this tree's ``sparseflash`` with ``PARTIAL_PROBE`` = ``value``."""
    tree = f"/tmp/s48-probe{value}"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "sparseflash"), os.path.join(tree, "sparseflash"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(tree, "sparseflash", "kernels", "hopper.py")
    text = open(path).read()
    line = "PARTIAL_PROBE = gl.constexpr(0)"
    assert text.count(line) == 1, "the probe's global is not where it was"
    open(path, "w").write(text.replace(line, f"PARTIAL_PROBE = gl.constexpr({value})"))
    return tree


def main():
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--probes", nargs="+", default=list(PROBES), choices=list(PROBES))
    args = parser.parse_args()
    variants = {}
    for label in args.probes:
        value = PROBES[label]
        variants[label] = (ab.kernels_of(None) if value == 0
                           else ab.kernels_of(probe_tree(value), f"probe{value}"))
    for (B, H, N), cases in SHAPES.items():
        print(f"B={B} H={H} N={N}", flush=True)
        ab.forward_ab(variants, cases, rounds=args.rounds, B=B, H=H, N=N)


if __name__ == "__main__":
    main()
