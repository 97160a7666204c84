"""Session 39: two follow-ups of session 38's dK before the dS exchange
(``hopper_fused.DK_EARLY``, NOTES v40), each against main's order, from CUDA graphs.

    python benchmarks/sessions/s39_dk_early_ab.py [--rounds 2] [--only dropout release]

1. ``dropout``: the early dK for calls with dropout too (``hopper_fused.dk_early`` with
   the dropout condition dropped). Prediction: as without dropout, the exchange's wait
   holds a quarter of the tile's tensor work; the draws placed after the exchange (LATE,
   SPLIT's second half) now run beside dQ alone. The backward with dropout 0-4% faster, dK and
   dV bit for bit (the same draws, the same products).
2. ``release``: where dK is early nothing of a tile is in flight after its dQ, so each
   warp group can give the tile's Q/dO slot back at the end of the tile instead of after
   the next tile's S^T (``hopper_fused.RELEASE_EARLY``). With two slots the loader's copy
   of the tile after next then starts about two products earlier. Prediction: a gain only
   where the consumers wait for ``ready`` (copies from L2 that miss, short columns whose
   first tiles are all waiting); dense within +-1%.

Runs on branch ``s39-release-early`` (main has neither knob: ``dk_early`` there takes the
tile alone, and ``RELEASE_EARLY`` is gone).

Result (call 1, an H100, ``benchmarks/results/NVIDIA-H100-dk-early-dropout-s39.log``;
NOTES v41), ``launch.backward`` best of four, dK and dV bit for bit main's in every run:

1. with dropout 0.1, the early dK faster on every layout: dense D=64 9.828 against
   9.974 ms (+1.5%), dense D=128 13.430 / 13.568 (+1.0%), D=64 ``causal`` 5.307 / 5.488
   (+3.4%), D=64 ``local(3)`` +0.3%, D=128 ``butterfly`` +0.1%, D=64
   ``sparse_transformer_strided`` +1.5%. The 12 fused-backward dropout GPU tests against
   float64 passed with it. Kept: ``dk_early`` no longer looks at dropout.
2. the early release slower or even on every layout: dense -0.6% (D=64) and -0.3%
   (D=128), D=64 ``causal`` -0.7%, ``sparse_transformer_strided`` +0.1% (D=64) and
   -2.8% (D=128), D=64 ``local(3)`` -0.5%, D=128 random+global -1.8%. Not kept.
"""

import argparse

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def _dk_early_with_dropout(has_dropout: bool, key_rows: int) -> bool:
    return hopper_fused.DK_EARLY and key_rows > hopper_fused.KEYS_PER_WG


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", nargs="+", default=["dropout", "release"])
    args = parser.parse_args()
    launch = ab.kernels_of(None)
    landed = hopper_fused.dk_early, hopper_fused.RELEASE_EARLY
    try:
        if "dropout" in args.only:
            variants = {"main": (launch, ab.knob(hopper_fused, "dk_early", landed[0])),
                        "dk early": (launch, ab.knob(hopper_fused, "dk_early",
                                                     _dk_early_with_dropout))}
            cases = [(64, "dense", 0.1), (128, "dense", 0.1), (64, "causal", 0.1),
                     (64, "local(3)", 0.1), (128, "butterfly", 0.1),
                     (64, "sparse_transformer_strided", 0.1)]
            ab.backward_ab(variants, cases, rounds=args.rounds, timer="cudagraph")
            hopper_fused.dk_early = landed[0]
        if "release" in args.only:
            variants = {"main": (launch, ab.knob(hopper_fused, "RELEASE_EARLY", False)),
                        "release early": (launch, ab.knob(hopper_fused, "RELEASE_EARLY", True))}
            cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "causal", 0.0),
                     (64, "sparse_transformer_strided", 0.0),
                     (128, "sparse_transformer_strided", 0.0), (64, "local(3)", 0.0),
                     (128, "local(1) | global(1) | random(2)", 0.0)]
            ab.backward_ab(variants, cases, rounds=args.rounds, timer="cudagraph")
    finally:
        hopper_fused.dk_early, hopper_fused.RELEASE_EARLY = landed


if __name__ == "__main__":
    main()
