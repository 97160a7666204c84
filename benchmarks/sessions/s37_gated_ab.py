"""Session 37: dQ's cast started during the fused kernel's last wave
(``hopper_fused.GATED_CAST``: each fused program counts itself in its column group once
its dQ sums are complete; the cast's programs, launched by PDL onto the SMs the last
wave leaves idle, cast a head once its group's count is full) against the cast after
the fused kernel (PDL on in both), alternating in one process from CUDA graphs
(``ab.backward_ab``).

    git checkout s37-gated-cast     # the knob lives on that branch, not on main
    python benchmarks/sessions/s37_gated_ab.py [--rounds 2] [--stress 100]

First the race check of ``s37_pdl_ab.stress`` with the gated cast (a count released
before the sums are visible, or read without acquire, shows as a dQ missing some of its
sums). Prediction: the cast (~50 us at D=128, 16K tokens, 16 heads on an H100) overlaps
the last of 15.5 waves, where about half the SMs idle: 1-3% off a sparse backward at
D=128 (0.6-0.8 ms), under 0.5% off a dense one.

Result (call 4, an H100, ``benchmarks/results/NVIDIA-H100-gated-cast-s37.log``; the race
check passed, 4 x 120 runs, and 56 fused-backward and graph GPU tests against float64,
``NVIDIA-H100-checks-s37-call4.log``): D=128 sparse even (-1.6% to +0.4%), D=64's short
layouts 1.3% slower in every run (``local(3)`` 0.476 ms against 0.470-0.473), D=128 dense
10.46-10.69 against 10.84-11.29 ms (more than the ~0.5% the cast could hide, within this
H100's run-to-run swing of dense backwards). Not kept (NOTES v39).
"""

import argparse

import torch
import triton

from benchmarks.sessions import ab
from benchmarks.sessions.s37_pdl_ab import stress
from sparseflash.kernels import hopper_fused

PATTERNS = {128: ["local(1) | global(1) | random(2)", "sparse_transformer_strided", "local(3)",
                  "butterfly", "strided(sqrt(n))", "causal", "dense"],
            64: ["local(1) | global(1) | random(2)", "local(3)", "sparse_transformer_strided",
                 "dense"]}


def _gated(on: bool):
    def setup():
        hopper_fused.PDL = True
        hopper_fused.GATED_CAST = on
    return setup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stress", type=int, default=100)
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    launch = ab.kernels_of(None)
    try:
        if args.stress:
            stress(launch, args.stress, _gated(True))
        variants = {"cast after": (launch, _gated(False)), "gated": (launch, _gated(True))}
        cases = [(D, p, 0.0) for D in (128, 64) for p in PATTERNS[D]] + [(128, "local(3)", 0.1)]
        ab.backward_ab(variants, cases, rounds=args.rounds, timer="cudagraph")
    finally:
        _gated(True)()


if __name__ == "__main__":
    main()
