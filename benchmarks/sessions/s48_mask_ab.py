"""Session 48: the forwards' partial mask by one compare a score (``hopper._partial_mask``
as of this session) against the boolean tile of ``hopper.partial_keep`` it replaced (the
tree of commit 514305c, unpacked at the path given), from CUDA graphs.

    python benchmarks/sessions/s48_mask_ab.py OLD_TREE [--rounds 2]

Why: the probes of ``s48_diag_probe_ab.py`` (calls 1-3) found the diagonal tile's extra
time in the mask's arithmetic: 5-7 instructions a score, and in ``hopper``'s own D=64
kernel the register spill they caused. Prediction, from those probes (probe 7 for
``hopper``'s own kernel, which main compiles without the anti-causal branch where the
layout has no anti-causal block; probe 5 for the ping-pong kernel, which keeps it): 1K
``causal`` 13-16% faster at both head dims, 4K 1-4%, 16K under 2%; dense at N = 1,000
(ragged last blocks) 2-11%; the anti-causal layouts no slower.

Result (call 4, ``s48-call4.sh``, log ``results/NVIDIA-H200-mask-ab-s48-call4.log``; 47
forward GPU tests with partial blocks, anti-causal ones among them, padding and empty rows
passed first, log ``-checks-s48-call4.log``), best of two rounds, before -> after, ms,
outputs bit for bit the old tree's: 1K ``causal`` 0.145 -> 0.124 (D=64, +16.3%), 0.210 ->
0.186 (D=128, +12.9%); ``~causal`` 0.145 -> 0.135, 0.211 -> 0.189; 4K ``causal`` 0.375 ->
0.359, 0.513 -> 0.497; 16K 1.292 -> 1.275, 1.820 -> 1.834 (-0.8%); N = 1,000 dense 0.204
-> 0.184, 0.266 -> 0.254, ``causal`` D=64 0.143 -> 0.126, ``local(1) & ~causal`` 0.090 ->
0.085. As predicted; at 16K within noise. (The LSE of ``~causal``'s last row, which has
no key, is -inf in both: the log's "LSE nan" was the comparison's, fixed since in
``ab._relative_error``.)
"""

from benchmarks.sessions import ab

CAUSAL = [(64, "causal", 0.0), (128, "causal", 0.0)]
SHAPES = {
    (16, 16, 1024): CAUSAL + [(64, "~causal", 0.0), (128, "~causal", 0.0)],
    (4, 16, 4096): CAUSAL,
    (1, 16, 16384): CAUSAL,
    (16, 16, 1000): [(64, "dense", 0.0), (128, "dense", 0.0), (64, "causal", 0.0),
                     (64, "local(1) & ~causal", 0.0)],
}


def main():
    ab.tree_ab_main(("before", "after"), SHAPES)


if __name__ == "__main__":
    main()
