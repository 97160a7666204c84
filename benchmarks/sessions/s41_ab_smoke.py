"""Session 41: a smoke run of ab.py after its A/B loops were merged into one (_run_ab): a knob
A/B of the backward, a forward A/B and an eager backward A/B with dropout, small cases.

    PYTHONPATH=$PWD python benchmarks/sessions/s41_ab_smoke.py

Ran on an H200 in session 41 (26 s): every loop printed its runs and bests, variants of
one tree even within 0.2%, dK and dV bit for bit, forwards' O and LSE equal.
"""
from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused, launch

cases = [(64, "local(3)", 0.0)]
ab.knob_ab(hopper_fused, "STAGES", {"2": 2, "2 again": 2}, cases, rounds=1)
ab.forward_ab({"a": launch, "b": launch}, cases, rounds=1, N=4096)
ab.backward_ab({"a": launch, "b": launch}, [(128, "dense", 0.1)], rounds=1, N=4096, timer="events")
