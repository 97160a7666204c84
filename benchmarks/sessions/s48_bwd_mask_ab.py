"""Session 48: the Gluon backwards' partial mask by one compare an entry
(``hopper.partial_select`` with ``KEYS_FIRST``; the fused backward leaves the anti-causal
compare out where the layout has no anti-causal block) against the boolean tile of
``hopper.partial_keep`` it replaced (the tree of commit 514305c, unpacked at the path
given), ``launch.backward`` timed from CUDA graphs.

    python benchmarks/sessions/s48_bwd_mask_ab.py OLD_TREE [--rounds 2]

Why: the forwards' diagonal tiles lost their extra time to this rewrite (call 4,
``s48_mask_ab.py``: 1K ``causal`` forwards 13-16% faster). The backward's fwd+bwd at 1K
was 0.496 ms against 0.429 with the diagonal blocks full (D=64; 0.784 against 0.705 at
D=128; NOTES v48), ~30-50 us of which the forward does not explain. ptxas of Triton 3.6:
the fused backward with partial blocks 4,744 -> 3,456 instructions at D=64 (spill 56 ->
28 bytes), 4,056 -> 3,632 at D=128 (spill 36 -> 44).

Prediction: the 1K ``causal`` backward 5-10% faster at D=64, 2-6% at D=128; 4K half that.

Result (call 5, ``s48-call5.sh``, log ``results/NVIDIA-H200-bwd-mask-ab-s48-call5.log``;
39 fused and dK/dV backward GPU tests passed first, anti-causal cases among them, log
``-checks-s48-call5.log``), best of two rounds, before -> after, ms, dK and dV bit for
bit the old tree's in every run: 1K ``causal`` 0.361 -> 0.333 (D=64, +8.6%), 0.544 ->
0.532 (D=128, +2.2%), ``~causal`` D=64 0.362 -> 0.338 (+7.0%); 4K 0.939 -> 0.881 (+6.6%),
1.488 -> 1.468 (+1.3%). As predicted at D=128; at D=64, 4K gained more than predicted.
"""

from benchmarks.sessions import ab

CAUSAL = [(64, "causal", 0.0), (128, "causal", 0.0)]
SHAPES = {(16, 16, 1024): CAUSAL + [(64, "~causal", 0.0)], (4, 16, 4096): CAUSAL}


def main():
    ab.tree_ab_main(("before", "after"), SHAPES, backward=True)


if __name__ == "__main__":
    main()
