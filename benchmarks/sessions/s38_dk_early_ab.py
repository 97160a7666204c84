"""Session 38: each consumer warp group of the fused backward issues its dK product as soon
as its own rows of dS are in shared memory, before it waits at the dS exchange for the
other warp group's (``hopper_fused.DK_EARLY``, branch ``s38-dk-early``), against main's
order (dQ then dK after the exchange, dK in flight across the back edge).

    python benchmarks/sessions/s38_dk_early_ab.py [--rounds 2]

Prediction: the two warp groups meet at the exchange every tile; whatever one waits
there, its dK product (a quarter of its tile's tensor work) can run in. Against that,
dK no longer overlaps the next tile's first products. Dense D=64 and D=128 within
+-1%, a gain where the exchange waits are long.

Result (call 4, an H100, ``benchmarks/results/NVIDIA-H100-dk-early-s38.log``; NOTES v40):
dK and dV bit for bit main's order in every run; best of four, backward ms: dense D=64
5.872 against 6.126 (+4.3%), dense D=128 9.876 against 10.079 (+2.1%),
``sparse_transformer_strided`` 1.140 against 1.184 (+3.8%) at D=64 and 1.899 against
1.915 (+0.8%) at D=128, D=64 ``local(3)`` 0.461 against 0.466 (+1.3%); the medians of the
four runs favour the early order on every layout too. The 32 fused-backward GPU tests against float64 passed
with it. Kept: ``DK_EARLY`` is on for calls without dropout.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (128, "sparse_transformer_strided", 0.0), (64, "local(3)", 0.0)]
    ab.knob_ab_main(hopper_fused, "DK_EARLY", {"main": False, "dk early": True}, cases)


if __name__ == "__main__":
    main()
