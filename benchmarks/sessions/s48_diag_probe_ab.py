"""Session 48: where a diagonal tile's time goes in the forwards (``causal`` at short
sequences; NOTES v48, v49). Runs on branch ``s48-diag-probe`` (or on commit 514305c, the
tree before the mask's rewrite, after ``git apply benchmarks/sessions/s48_diag_probe.patch``),
whose ``hopper.PARTIAL_PROBE`` (a constexpr global; 0 is that tree's machine code,
instruction for instruction) selects a timing probe:

    0  the tree as it was (labelled "main" in the logs)
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

Result (best of two rounds, ms; outputs of 2, 5 and 6 bit for bit main's):

* call 1 (``s48-call1.sh``, log ``results/NVIDIA-H200-diag-probe-s48-call1.log``), main /
  1 / 2 / 3 / 4: 1K D=64 0.144 / 0.115 / 0.146 / 0.117 / 0.163; D=128 0.209 / 0.161 /
  0.185 / 0.151 / 0.197; 4K D=64 0.374 / 0.349 / 0.352 / 0.341 / 0.498; D=128 0.497 /
  0.487 / 0.490 / 0.462 / 0.581. Without the mask (1) the diagonal costs what the one
  loop (3) does and ``causal | local(0)`` did: the time is the mask's arithmetic, not the
  second loop; masking every tile (4) costs more than it saves.
* call 2 (``s48-call2.sh``), main / 1 / 2 / 5 / 6: 1K D=64 0.145 / 0.115 / 0.147 / 0.133
  / 0.135, D=128 0.208 / 0.163 / 0.184 / 0.183 / 0.189; 4K 0.376 / 0.354 / 0.357 / 0.361
  / 0.365 and 0.516 / 0.496 / 0.496 / 0.504 / 0.499; N = 1,000 dense 0.204 / 0.172 /
  0.210 / 0.195 / 0.195 (D=64) and 0.260 / 0.244 / 0.250 / 0.254 / 0.256, ``causal`` D=64
  0.143 / 0.117 / 0.149 / 0.135 / 0.136.
* call 3 (``s48-call3.sh``), main / 5 / 6 / 7: 1K D=64 0.145 / 0.134 / 0.135 / 0.125,
  D=128 0.208 / 0.184 / 0.189 / 0.187; 4K 0.375 / 0.359 / 0.365 / 0.361 and 0.495 /
  0.490 / 0.493 / 0.495; N = 1,000 dense 0.205 / 0.196 / 0.196 / 0.185 and 0.257 / 0.246
  / 0.255 / 0.253, ``causal`` D=64 0.143 / 0.135 / 0.136 / 0.126.

``hopper``'s own D=64 kernel is fastest with 7 (no branch; ptxas of Triton 3.6 spills 0
bytes, against 72 for main and 164 for 5), the ping-pong kernel with 5 (7 spills 16
there). Main now takes 7's form where the layout has no anti-causal block and 5's
elsewhere (``hopper.partial_select``; ``s48_mask_ab.py`` times it).
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
